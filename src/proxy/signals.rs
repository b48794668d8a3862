//! SIGTERM, SIGINT and SIGHUP end a proxy session the way the end of its
//! stdin does: the server is shut down (stdin closed, then SIGTERM and
//! SIGKILL to its process group) instead of being left running when the
//! client stops the proxy (the SDK clients send SIGTERM to a server that
//! has not exited 2 s after they closed its stdin).
//!
//! The handler only records the signal number in an atomic; the pump polls
//! it. Handlers are reset to the default on `exec`, so the server never
//! inherits them.

use std::sync::atomic::{AtomicI32, Ordering};

static RECEIVED: AtomicI32 = AtomicI32::new(0);

#[cfg(unix)]
extern "C" fn record(signo: libc::c_int) {
    // An atomic store is async-signal-safe.
    RECEIVED.store(signo, Ordering::Relaxed);
}

/// Installs the handlers (idempotent). Only a program that runs the proxy
/// as its main job should call this (the `contractpin proxy` command does):
/// it replaces the process's handlers for the three signals.
pub fn install_signal_handlers() {
    #[cfg(unix)]
    for signo in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        // SAFETY: `action` is a valid, zero-initialised sigaction (all-zero
        // is a valid value of the C struct) whose handler is an `extern "C"`
        // function that only stores into an atomic, which is
        // async-signal-safe; sigemptyset and sigaction only read and write
        // the structs passed, which outlive the calls.
        unsafe {
            let mut action: libc::sigaction = core::mem::zeroed();
            action.sa_sigaction = record as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signo, &action, core::ptr::null_mut());
        }
    }
}

/// The number of a signal received since the handlers were installed.
pub(crate) fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::Relaxed) {
        0 => None,
        n => Some(n),
    }
}

/// The signal's name, for messages.
pub(crate) fn name(signo: i32) -> &'static str {
    #[cfg(unix)]
    {
        match signo {
            libc::SIGTERM => "SIGTERM",
            libc::SIGINT => "SIGINT",
            libc::SIGHUP => "SIGHUP",
            _ => "a signal",
        }
    }
    #[cfg(not(unix))]
    {
        let _ = signo;
        "a signal"
    }
}
