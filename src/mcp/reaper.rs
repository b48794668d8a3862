//! Making sure that nothing a stdio server started outlives it.
//!
//! A stdio server is often a wrapper (`npx`, `uvx`, `sh -c`) whose real
//! server is a child or grandchild, and a hostile or sloppy one can leave
//! processes behind that keep running in CI after `contractpin` is gone.
//! Three mechanisms, all here:
//!
//! 1. **Process groups.** Every server is started in a process group of its
//!    own ([`spawn_managed`]) and every signal goes to the whole group
//!    ([`signal_group`]), also after the server exited by itself (a
//!    `sh -c 'sleep 99 & exec server'` leaves `sleep` in the group).
//! 2. **The leader is reaped last.** Its exit is noticed with
//!    `waitid(WNOWAIT)` ([`peek_exit`]), which leaves it a zombie: while it
//!    is unreaped its pid, which is also the group id, cannot be reused, so
//!    a signal to the group can never reach an unrelated process group.
//! 3. **Orphans** ([`reap_orphans`], Linux only). A descendant that called
//!    `setsid` or `setpgid` has left the group and no group signal reaches
//!    it. A process that made itself a *child subreaper*
//!    ([`become_child_subreaper`], as the `contractpin` CLI does at
//!    start-up) inherits such descendants when their parent dies;
//!    `reap_orphans` then kills and reaps every child of this process that
//!    is not a server this module is still running (nor in the process
//!    group of one: a wrapper's child that was re-parented to us while the
//!    server is still being fetched is that server's, and its transport
//!    clears the group).
//!
//! Several servers may run at once (one per thread). The set of running
//! servers ([`MANAGED`]) is the one place that says which pids may be
//! signalled: a pid is in it from the spawn until it is reaped
//! ([`reap_and_forget`]), both under its lock, and [`signal_group`] signals
//! only a pid in it, under the same lock; so a signal can never reach a pid
//! that was reaped and reused, whichever thread sends it.
//! [`stop_all_servers`] (an interrupted CLI) signals every running server
//! and refuses to start new ones.

use std::collections::BTreeSet;
use std::io;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
#[cfg(unix)]
use std::time::Instant;
#[cfg(target_os = "linux")]
use std::vec::Vec;

/// Pids of the stdio servers started and not yet reaped by this module
/// (the children [`reap_orphans`] must leave alone).
static MANAGED: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

fn managed() -> MutexGuard<'static, BTreeSet<u32>> {
    // The set is valid after any panic (single insert/remove calls).
    MANAGED.lock().unwrap_or_else(|p| p.into_inner())
}

/// Set by [`stop_all_servers`]: no server may start any more.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Spawns `cmd` and records its pid as managed, atomically with respect to
/// [`reap_orphans`] (which could otherwise take the new child for an orphan)
/// and to [`stop_all_servers`] (after which nothing starts).
pub(crate) fn spawn_managed(cmd: &mut Command) -> io::Result<Child> {
    let mut set = managed();
    if STOPPING.load(Ordering::SeqCst) {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "every server is being stopped (interrupted)",
        ));
    }
    let child = cmd.spawn()?;
    set.insert(child.id());
    Ok(child)
}

/// Prepares a server's process, between fork and exec (Linux; a no-op
/// elsewhere):
///
/// - every descriptor above stderr is marked close-on-exec
///   (`close_range(3, ~0, CLOSE_RANGE_CLOEXEC)`), so that what this process
///   inherited without the flag (a parent's leaked fd) never reaches the
///   server. Kernels older than 5.11 refuse it (`ENOSYS`, `EINVAL`) and the
///   descriptors pass as before: walking `/proc/self/fd` is not safe
///   between fork and exec;
/// - with `die_with_parent`, the server gets SIGKILL when the thread that
///   spawns it ends (`PR_SET_PDEATHSIG`: the kernel tracks the parent
///   *thread*), so that a proxy killed with SIGKILL does not leave its
///   server running. Only for a caller whose spawning thread outlives the
///   server: the proxy's (`proxy::run` starts the server on its caller's
///   thread and shuts it down before returning). Its children do not
///   inherit the setting.
pub(crate) fn prepare_child(cmd: &mut Command, die_with_parent: bool) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: getpid(2) has no preconditions and cannot fail.
        let parent = unsafe { libc::getpid() };
        let hook = move || child_setup(parent, die_with_parent);
        // SAFETY: the hook runs in the child between fork and exec, where
        // only async-signal-safe calls are allowed: it makes raw system
        // calls only (close_range, prctl, getppid), without allocating or
        // taking a lock, and builds an io::Error from an errno (no
        // allocation).
        unsafe { cmd.pre_exec(hook) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (cmd, die_with_parent);
}

/// [`prepare_child`]'s hook, in the child; `parent` is the spawning process.
#[cfg(target_os = "linux")]
fn child_setup(parent: libc::pid_t, die_with_parent: bool) -> io::Result<()> {
    // Every argument as the unsigned long the kernel reads.
    let (first, last) = (3 as libc::c_ulong, libc::c_ulong::from(u32::MAX));
    let flags = libc::c_ulong::from(libc::CLOSE_RANGE_CLOEXEC);
    // SAFETY: close_range(2) only changes flags of this process's
    // descriptors (no memory is passed); a failure (an old kernel) leaves
    // them as they were, which is the documented fallback.
    unsafe { libc::syscall(libc::SYS_close_range, first, last, flags) };
    if !die_with_parent {
        return Ok(());
    }
    let sig = libc::SIGKILL as libc::c_ulong;
    // SAFETY: prctl(2) with PR_SET_PDEATHSIG reads only integer arguments
    // and sets a flag of this (child) process.
    if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, sig) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: getppid(2) has no preconditions and cannot fail.
    if unsafe { libc::getppid() } != parent {
        // The parent died before the flag was set: nothing will kill us.
        return Err(io::Error::from_raw_os_error(libc::ESRCH));
    }
    Ok(())
}

/// Forgets a managed pid that someone else reaped ([`Exit::Gone`]): it must
/// never be signalled again.
pub(crate) fn unmanage(pid: u32) {
    managed().remove(&pid);
}

/// Reaps `child` if it has exited and forgets it either way (one that did
/// not die even of SIGKILL is left to [`reap_orphans`]), atomically with
/// respect to [`signal_group`], so no thread signals its pid once reaped.
pub(crate) fn reap_and_forget(child: &mut Child) -> Option<ExitStatus> {
    let mut set = managed();
    let status = child.try_wait().ok().flatten();
    set.remove(&child.id());
    status
}

/// Whether a child has exited, learnt without reaping it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    /// Still running.
    Running,
    /// Exited; the status when it could be read.
    Exited(Option<ExitStatus>),
    /// No longer waitable: someone else reaped it, so its pid may already
    /// name another process and must not be signalled.
    Gone,
}

/// Whether `child` has exited, leaving it unreaped (a zombie) on Unix so
/// that its pid, and so its process group id, stays reserved.
#[cfg(unix)]
pub(crate) fn peek_exit(child: &mut Child) -> Exit {
    peek_pid(child.id())
}

/// [`peek_exit`] by pid (a child of ours).
#[cfg(unix)]
fn peek_pid(pid: u32) -> Exit {
    use std::os::unix::process::ExitStatusExt;
    let Some(pid) = libc::id_t::try_from(pid).ok() else {
        return Exit::Gone;
    };
    loop {
        // SAFETY: siginfo_t is a plain C struct for which all-zero bytes are
        // a valid value (and the "no child has changed state" answer of
        // WNOHANG: si_pid == 0).
        let mut info: libc::siginfo_t = unsafe { core::mem::zeroed() };
        // SAFETY: `info` is a valid, writable siginfo_t that outlives the
        // call; waitid(2) writes only into it. WNOWAIT leaves the child
        // waitable, so std's later `wait` still reaps it.
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                pid,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        if rc != 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            // ECHILD: reaped behind our back (a SIGCHLD handler of the
            // embedding program, say).
            return Exit::Gone;
        }
        // SAFETY: waitid succeeded with WEXITED, so `info` is either still
        // zeroed or describes a child's exit (SIGCHLD): the union member
        // holding si_pid and si_status is the one the kernel wrote.
        let (si_pid, si_status) = unsafe { (info.si_pid(), info.si_status()) };
        if si_pid == 0 {
            return Exit::Running;
        }
        // Rebuild the raw wait(2) status that ExitStatus decodes.
        let raw = match info.si_code {
            libc::CLD_EXITED => (si_status & 0xff) << 8,
            libc::CLD_KILLED => si_status & 0x7f,
            libc::CLD_DUMPED => (si_status & 0x7f) | 0x80,
            _ => return Exit::Exited(None),
        };
        return Exit::Exited(Some(ExitStatus::from_raw(raw)));
    }
}

/// Whether `child` has exited (elsewhere: reaping it, there are no groups).
#[cfg(not(unix))]
pub(crate) fn peek_exit(child: &mut Child) -> Exit {
    match child.try_wait() {
        Ok(Some(st)) => Exit::Exited(Some(st)),
        Ok(None) => Exit::Running,
        Err(_) => Exit::Gone,
    }
}

/// Sends `signo` to the process group led by the managed server `pid` (or,
/// if there is no such group, to `pid` alone); nothing when `pid` is not a
/// managed server (any more).
#[cfg(unix)]
pub(crate) fn signal_group(pid: u32, signo: libc::c_int) {
    let set = managed();
    if set.contains(&pid) {
        kill_group(pid, signo);
    }
}

/// `kill(-pid)`, or `kill(pid)` when `pid` leads no group. The caller holds
/// the [`MANAGED`] lock and `pid` is in the set.
#[cfg(unix)]
fn kill_group(pid: u32, signo: libc::c_int) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: kill(2) has no memory-safety preconditions. The pid is in the
    // managed set, whose lock the caller holds: an unreaped child of ours,
    // so it and the group id equal to it cannot have been reused.
    let rc = unsafe { libc::kill(-pid, signo) };
    if rc != 0 {
        // SAFETY: as above, for the single process.
        unsafe { libc::kill(pid, signo) };
    }
}

/// Stops every stdio server still running, for a program that is being
/// interrupted (the `contractpin` CLI on SIGINT, SIGTERM or SIGHUP): from
/// now on no server starts; each one's process group gets SIGTERM, and
/// SIGKILL after `grace` (at once when all have exited); then they are
/// forgotten, so that [`reap_orphans`], which should follow, kills and
/// reaps what is left of them. Returns how many servers were running.
/// Threads still fetching from them see them end (their own signals are
/// no-ops from then on).
pub fn stop_all_servers(grace: Duration) -> usize {
    let mut set = managed();
    STOPPING.store(true, Ordering::SeqCst);
    let n = set.len();
    #[cfg(unix)]
    {
        for &pid in set.iter() {
            kill_group(pid, libc::SIGTERM);
        }
        // A grace too long for the clock is no limit.
        let until = Instant::now().checked_add(grace);
        while until.is_none_or(|u| Instant::now() < u)
            && set.iter().any(|&p| peek_pid(p) == Exit::Running)
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        // Also the groups of leaders that exited: what is left in them.
        for &pid in set.iter() {
            kill_group(pid, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = grace;
    set.clear();
    n
}

/// Whether the process group `pgid` still has a live member other than its
/// (exited, unreaped) leader: `Some` on Linux (from `/proc`), `None` where
/// that cannot be known.
pub(crate) fn group_has_live_members(pgid: u32) -> Option<bool> {
    #[cfg(target_os = "linux")]
    {
        let mut found = false;
        for_each_process(|p| {
            if p.pgrp == pgid && !p.dead() {
                found = true;
            }
        })
        .ok()?;
        Some(found)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pgid;
        None
    }
}

/// Makes this process a *child subreaper* on Linux
/// (`prctl(PR_SET_CHILD_SUBREAPER, 1)`): from then on a descendant whose
/// parent dies (a stdio server's `setsid` grandchild, say) is re-parented to
/// this process instead of to init, where [`reap_orphans`] can find it.
/// Returns whether that worked; `false` elsewhere (a no-op) and on kernels
/// older than 3.4. The flag is not inherited by children. For a process
/// that calls [`reap_orphans`]: the `contractpin` CLI calls both.
pub fn become_child_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER reads only its integer
        // arguments (no pointers) and sets a flag of this process; it cannot
        // violate memory safety. It fails only on kernels that lack it.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// Kills and reaps every child of this process that is not a stdio server
/// this module is still running, and whatever those children leave behind;
/// returns how many of them were still running (exited ones, zombies, are
/// only reaped).
///
/// This is for a process that made itself a child subreaper
/// (`prctl(PR_SET_CHILD_SUBREAPER, 1)`, Linux) so that the descendants of
/// its stdio servers that escaped their process group (`setsid`, a double
/// fork) are re-parented to it rather than to init: the `contractpin` CLI
/// calls it after each stdio server and before it exits. **Every** other
/// child of the process is killed with SIGKILL, so a program that has
/// children of its own must not call it.
///
/// Each round lists the children (from `/proc`), sends SIGKILL to each (and
/// to the process group it leads, if any: such a group can only hold its own
/// descendants) and reaps them; their own children are re-parented to us
/// before they can be reaped, so rounds repeat until none is left, for at
/// most 2 seconds. A no-op returning 0 on systems other than Linux.
pub fn reap_orphans() -> usize {
    #[cfg(target_os = "linux")]
    {
        reap_orphans_linux(Duration::from_secs(2))
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

#[cfg(target_os = "linux")]
fn reap_orphans_linux(budget: Duration) -> usize {
    let deadline = Instant::now() + budget;
    let managed = managed();
    // SAFETY: getpid(2) has no preconditions and cannot fail.
    let me = unsafe { libc::getpid() };
    let Ok(me) = u32::try_from(me) else { return 0 };
    let mut killed = BTreeSet::new();
    loop {
        let mut orphans: Vec<Proc> = Vec::new();
        if for_each_process(|p| {
            // A running server's group members are its own (a wrapper's
            // child re-parented to us): its transport clears the group.
            if p.ppid == me && !managed.contains(&p.pid) && !managed.contains(&p.pgrp) {
                orphans.push(p);
            }
        })
        .is_err()
        {
            return killed.len();
        }
        if orphans.is_empty() {
            return killed.len();
        }
        for p in &orphans {
            if !p.dead() {
                killed.insert(p.pid);
            }
            if p.pgrp == p.pid {
                // It leads its own group (it called setsid or setpgid).
                signal_pid(-(p.pid as i64), libc::SIGKILL);
            }
            signal_pid(i64::from(p.pid), libc::SIGKILL);
        }
        for p in &orphans {
            reap_by_pid(p.pid, deadline);
        }
        if Instant::now() >= deadline {
            return killed.len();
        }
    }
}

/// SIGKILL to a pid (or, negative, a process group) that is an unreaped
/// child of ours (or the group it leads).
#[cfg(target_os = "linux")]
fn signal_pid(target: i64, signo: libc::c_int) {
    let Ok(target) = libc::pid_t::try_from(target) else {
        return;
    };
    // SAFETY: kill(2) has no memory-safety preconditions. `target` comes
    // from a child of ours that we have not reaped, so neither its pid nor
    // the group id equal to it can have been reused.
    unsafe { libc::kill(target, signo) };
}

/// Reaps the child `pid`, polling until `deadline` (a process stuck in an
/// uninterruptible sleep does not die even of SIGKILL: we do not wait for
/// it forever).
#[cfg(target_os = "linux")]
fn reap_by_pid(pid: u32, deadline: Instant) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    loop {
        let mut status = 0;
        // SAFETY: `status` is a valid, writable int for the duration of the call.
        let rc = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if rc == pid {
            return true;
        }
        if rc < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return false; // ECHILD: reaped elsewhere
        }
        if rc == 0 {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// One line of `/proc/<pid>/stat`, the fields we need.
#[cfg(target_os = "linux")]
#[derive(Clone, Copy, Debug)]
struct Proc {
    pid: u32,
    state: u8,
    ppid: u32,
    pgrp: u32,
}

#[cfg(target_os = "linux")]
impl Proc {
    /// A zombie (exited, not yet reaped) or dead process.
    fn dead(&self) -> bool {
        matches!(self.state, b'Z' | b'X' | b'x')
    }

    /// Parses `pid (comm) state ppid pgrp ...`; `comm` may hold spaces and
    /// parentheses, so the fields are read after its last `)`.
    fn parse(stat: &[u8]) -> Option<Proc> {
        let open = stat.iter().position(|&b| b == b'(')?;
        let close = stat.iter().rposition(|&b| b == b')')?;
        let pid = core::str::from_utf8(&stat[..open])
            .ok()?
            .trim()
            .parse()
            .ok()?;
        let rest = core::str::from_utf8(stat.get(close + 1..)?).ok()?;
        let mut f = rest.split_ascii_whitespace();
        let state = *f.next()?.as_bytes().first()?;
        let ppid = f.next()?.parse().ok()?;
        let pgrp = f.next()?.parse().ok()?;
        Some(Proc {
            pid,
            state,
            ppid,
            pgrp,
        })
    }
}

/// Calls `f` for every process in `/proc` (processes that vanish while the
/// directory is read are skipped).
#[cfg(target_os = "linux")]
fn for_each_process(mut f: impl FnMut(Proc)) -> io::Result<()> {
    let mut buf = Vec::with_capacity(512);
    for entry in std::fs::read_dir("/proc")? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        buf.clear();
        let path = std::format!("/proc/{name}/stat");
        let Ok(mut file) = std::fs::File::open(&path) else {
            continue;
        };
        // A stat line is a few hundred bytes; `comm` is at most 64.
        if io::Read::read_to_end(&mut io::Read::take(&mut file, 4096), &mut buf).is_err() {
            continue;
        }
        if let Some(p) = Proc::parse(&buf) {
            f(p);
        }
    }
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_lines_with_awkward_names() {
        let p = Proc::parse(b"4242 (a) b (c)) S 17 4242 4242 0 -1 4194560 ...").unwrap();
        assert_eq!((p.pid, p.state, p.ppid, p.pgrp), (4242, b'S', 17, 4242));
        let p = Proc::parse(b"7 (sleep) Z 1 6 6 0").unwrap();
        assert!(p.dead());
        assert!(Proc::parse(b"garbage").is_none());
        assert!(Proc::parse(b"1 (x) S").is_none());
    }

    #[test]
    fn sees_this_process() {
        let me = std::process::id();
        let mut seen = None;
        for_each_process(|p| {
            if p.pid == me {
                seen = Some(p);
            }
        })
        .unwrap();
        let p = seen.expect("this process is in /proc");
        assert!(!p.dead());
    }
}
