//! SIGTERM, SIGINT and SIGHUP end a proxy session the way the end of its
//! stdin does: the server is shut down (stdin closed, then SIGTERM and
//! SIGKILL to its process group) instead of being left running when the
//! client stops the proxy (the SDK clients send SIGTERM to a server that
//! has not exited 2 s after they closed its stdin).
//!
//! The handler only records the signal number in an atomic; the pump polls
//! it. Handlers are reset to the default on `exec`, so the server never
//! inherits them.
//!
//! On Windows the console's control events take their place, recorded as
//! the numbers the C runtime gives the same keys, so the exit codes (128 +
//! the number, see the CLI) are a Unix run's: Ctrl-C as SIGINT (2, exit
//! 130), Ctrl-Break as SIGBREAK (21), and the console closing, a logoff or
//! a shutdown as SIGHUP (1), the terminal gone. Windows ends the process
//! when the handler of one of those three returns; the job objects end the
//! servers with it, and a lock being written stays whole (it is renamed
//! into place, never written in place). A process started without a
//! console gets no events.

use std::sync::atomic::{AtomicI32, Ordering};

static RECEIVED: AtomicI32 = AtomicI32::new(0);

#[cfg(unix)]
extern "C" fn record(signo: libc::c_int) {
    // An atomic store is async-signal-safe.
    RECEIVED.store(signo, Ordering::Relaxed);
}

/// The signal number recorded for a console control event.
#[cfg(windows)]
const fn console_signal(event: u32) -> i32 {
    use crate::win32::{CTRL_BREAK_EVENT, CTRL_CLOSE_EVENT, CTRL_C_EVENT};
    use crate::win32::{CTRL_LOGOFF_EVENT, CTRL_SHUTDOWN_EVENT};
    match event {
        CTRL_C_EVENT => SIGINT,
        CTRL_BREAK_EVENT => SIGBREAK,
        CTRL_CLOSE_EVENT | CTRL_LOGOFF_EVENT | CTRL_SHUTDOWN_EVENT => SIGHUP,
        // An event added later: the process is about to end too.
        _ => SIGHUP,
    }
}

/// How long the handler of an event that ends the process holds it (Windows
/// allows 5 s for a close): enough for the pump or the fetch loop, which
/// poll every 50 ms, to stop the servers and exit on their own.
#[cfg(windows)]
const ENDING_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

#[cfg(windows)]
const SIGINT: i32 = 2;
#[cfg(windows)]
const SIGBREAK: i32 = 21;
#[cfg(windows)]
const SIGHUP: i32 = 1;

/// The console control handler: records the event as its signal number.
#[cfg(windows)]
extern "system" fn record_console(event: u32) -> i32 {
    let signo = console_signal(event);
    RECEIVED.store(signo, Ordering::Relaxed);
    if signo == SIGHUP {
        // Windows ends the process when this returns.
        std::thread::sleep(ENDING_GRACE);
    }
    // Handled: the default handler, which ends the process at once, is not
    // called; the pump or the fetch loop sees the number within a poll.
    1
}

/// Installs the handlers (idempotent). Only a program that runs the proxy
/// as its main job should call this (the `contractpin proxy` command does):
/// it replaces the process's handlers for the three signals (on Windows:
/// adds one for the console's control events).
pub fn install_signal_handlers() {
    #[cfg(windows)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| crate::win32::on_console_events(record_console));
    }
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
    #[cfg(windows)]
    {
        match signo {
            SIGINT => "Ctrl-C",
            SIGBREAK => "Ctrl-Break",
            SIGHUP => "the console closing",
            _ => "a signal",
        }
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = signo;
        "a signal"
    }
}

#[cfg(all(test, windows))]
mod tests {
    use super::*;
    use crate::win32::{CTRL_BREAK_EVENT, CTRL_CLOSE_EVENT, CTRL_C_EVENT};
    use crate::win32::{CTRL_LOGOFF_EVENT, CTRL_SHUTDOWN_EVENT};

    #[test]
    fn console_events_have_the_unix_numbers_and_names() {
        let cases = [
            (CTRL_C_EVENT, 2, "Ctrl-C"),
            (CTRL_BREAK_EVENT, 21, "Ctrl-Break"),
            (CTRL_CLOSE_EVENT, 1, "the console closing"),
            (CTRL_LOGOFF_EVENT, 1, "the console closing"),
            (CTRL_SHUTDOWN_EVENT, 1, "the console closing"),
        ];
        for (event, number, text) in cases {
            assert_eq!(console_signal(event), number, "event {event}");
            assert_eq!(name(number), text);
        }
    }
}
