//! The few Windows system calls the std layer needs, declared here once
//! (kernel32 and ntdll, which every Windows program links): what kind of
//! object a file handle is, whether a process still runs, the job object
//! that holds a stdio server and everything it starts, and the console's
//! control events (Ctrl-C and its kin, Windows' counterpart of the signals
//! that stop a Unix process). Unix code
//! calls `libc` where it needs it; no such crate is among our Windows
//! dependencies.

use std::io;
use std::os::windows::io::AsRawHandle;
use std::process::Child;

type Handle = *mut core::ffi::c_void;

/// `GetFileType`: a file on a disk.
const FILE_TYPE_DISK: u32 = 1;
/// `OpenProcess` access: enough to read the exit code.
const PROCESS_QUERY_LIMITED_INFORMATION: u32 = 0x1000;
/// `GetLastError` after `OpenProcess` of a process id that names nothing.
const ERROR_INVALID_PARAMETER: u32 = 87;
/// `GetExitCodeProcess` of a process that has not exited.
const STILL_ACTIVE: u32 = 259;

/// `CreateFile` flag: a directory opens too (as it does on Unix).
pub(crate) const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;
/// `CreateProcess` flag: the process starts with its thread suspended.
pub(crate) const CREATE_SUSPENDED: u32 = 0x0000_0004;
/// `SetInformationJobObject` class: extended limits.
const JOB_OBJECT_EXTENDED_LIMIT_INFORMATION: i32 = 9;
/// Job limit: closing the job's last handle ends every process in it.
const JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: u32 = 0x2000;

/// Console control events (`SetConsoleCtrlHandler`): Ctrl-C, Ctrl-Break,
/// the console window closing, the user logging off, the system shutting
/// down.
pub(crate) const CTRL_C_EVENT: u32 = 0;
pub(crate) const CTRL_BREAK_EVENT: u32 = 1;
pub(crate) const CTRL_CLOSE_EVENT: u32 = 2;
pub(crate) const CTRL_LOGOFF_EVENT: u32 = 5;
pub(crate) const CTRL_SHUTDOWN_EVENT: u32 = 6;

/// A console control handler: given the event, nonzero when it handled it.
/// Windows calls it on a thread of its own.
pub(crate) type CtrlHandler = unsafe extern "system" fn(event: u32) -> i32;

#[link(name = "kernel32")]
extern "system" {
    fn SetConsoleCtrlHandler(handler: Option<CtrlHandler>, add: i32) -> i32;
    fn GetFileType(file: Handle) -> u32;
    fn OpenProcess(access: u32, inherit: i32, pid: u32) -> Handle;
    fn GetExitCodeProcess(process: Handle, code: *mut u32) -> i32;
    fn CloseHandle(handle: Handle) -> i32;
    fn GetLastError() -> u32;
    fn CreateJobObjectW(attributes: *mut core::ffi::c_void, name: *const u16) -> Handle;
    fn SetInformationJobObject(
        job: Handle,
        class: i32,
        info: *const ExtendedLimits,
        len: u32,
    ) -> i32;
    fn AssignProcessToJobObject(job: Handle, process: Handle) -> i32;
    fn TerminateJobObject(job: Handle, exit_code: u32) -> i32;
}

#[link(name = "ntdll")]
extern "system" {
    /// Resumes every thread of a process (here: the one thread of a
    /// process started with [`CREATE_SUSPENDED`]); an NTSTATUS, 0 on success.
    fn NtResumeProcess(process: Handle) -> i32;
}

/// `JOBOBJECT_EXTENDED_LIMIT_INFORMATION` (its basic limits, I/O counters
/// and memory fields), of which only `limit_flags` is set.
#[repr(C)]
#[derive(Default)]
struct ExtendedLimits {
    per_process_user_time_limit: i64,
    per_job_user_time_limit: i64,
    limit_flags: u32,
    minimum_working_set_size: usize,
    maximum_working_set_size: usize,
    active_process_limit: u32,
    affinity: usize,
    priority_class: u32,
    scheduling_class: u32,
    io_counters: [u64; 6],
    process_memory_limit: usize,
    job_memory_limit: usize,
    peak_process_memory_used: usize,
    peak_job_memory_used: usize,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(core::mem::size_of::<ExtendedLimits>() == 144);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(core::mem::size_of::<ExtendedLimits>() == 112);

/// A job object holding a stdio server and every process it starts (the
/// Windows counterpart of the process group a server gets on Unix): ending
/// the job ends them all, and so does closing it, which also happens when
/// our own process ends, however it ends.
#[derive(Debug)]
pub(crate) struct Job(Handle);

// SAFETY: a job handle may be used and closed from any thread.
unsafe impl Send for Job {}

impl Job {
    /// Puts `child`, started with [`CREATE_SUSPENDED`] so that it has not
    /// run yet (nothing it starts can escape), into a new job, then lets it
    /// run. Whatever fails, the child is resumed (or an error says it could
    /// not be): `Ok(None)` when it runs without a job (Windows refused one:
    /// the caller then stops the server alone, as before).
    pub(crate) fn contain(child: &Child) -> io::Result<Option<Job>> {
        let process = child.as_raw_handle();
        let job = Job::new().ok();
        // SAFETY: both handles are open (the job's is ours, the process's is
        // `child`'s) for the whole call.
        let held = job
            .as_ref()
            .is_some_and(|j| unsafe { AssignProcessToJobObject(j.0, process) } != 0);
        // SAFETY: `process` is `child`'s open handle.
        if unsafe { NtResumeProcess(process) } != 0 {
            return Err(io::Error::other("the server could not be resumed"));
        }
        Ok(if held { job } else { None })
    }

    /// A new job whose processes all end when it is closed.
    fn new() -> io::Result<Job> {
        // SAFETY: no security attributes and no name: both may be null.
        let handle = unsafe { CreateJobObjectW(core::ptr::null_mut(), core::ptr::null()) };
        if handle.is_null() {
            return Err(io::Error::last_os_error());
        }
        let job = Job(handle);
        let limits = ExtendedLimits {
            limit_flags: JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
            ..ExtendedLimits::default()
        };
        let len = core::mem::size_of::<ExtendedLimits>() as u32;
        // SAFETY: `limits` is a valid structure of the class named, of `len`
        // bytes, read during the call only.
        let ok = unsafe {
            SetInformationJobObject(job.0, JOB_OBJECT_EXTENDED_LIMIT_INFORMATION, &limits, len)
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(job)
    }

    /// Ends every process in the job.
    pub(crate) fn terminate(&self) {
        // SAFETY: the job's handle is open until `self` is dropped.
        unsafe { TerminateJobObject(self.0, 1) };
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        // SAFETY: the handle is ours and closed once, here; with
        // KILL_ON_JOB_CLOSE this also ends what is left in the job.
        unsafe { CloseHandle(self.0) };
    }
}

/// Adds `handler` to this process's console control handlers (ahead of the
/// default one, which ends the process). A process with no console gets no
/// events, and loses nothing by the call.
pub(crate) fn on_console_events(handler: CtrlHandler) {
    // SAFETY: `handler` is a function that lives as long as the program;
    // the call only registers it.
    unsafe { SetConsoleCtrlHandler(Some(handler), 1) };
}

/// Whether the open `file` is a file on a disk: not a device (`NUL`,
/// `CON`) or a pipe, which carry file attributes too and whose reads may
/// wait forever.
pub(crate) fn is_disk_file(file: &std::fs::File) -> bool {
    // SAFETY: the handle is `file`'s own and open for the whole call;
    // `GetFileType` only reads its type.
    unsafe { GetFileType(file.as_raw_handle()) == FILE_TYPE_DISK }
}

/// Whether the process `pid` is known to be gone: no process has that id,
/// or it has exited. `false` when unsure (no right to ask, say), so a
/// caller never removes what a live process may still use.
pub(crate) fn process_gone(pid: u32) -> bool {
    // SAFETY: `OpenProcess` takes plain values; a null result is checked.
    let process = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if process.is_null() {
        // SAFETY: reads this thread's last error, set by the failed call.
        return unsafe { GetLastError() } == ERROR_INVALID_PARAMETER;
    }
    let mut code = STILL_ACTIVE;
    // SAFETY: `process` is the handle just opened, `code` a valid place for
    // the answer; the handle is closed once, here.
    unsafe {
        let known = GetExitCodeProcess(process, &mut code) != 0;
        CloseHandle(process);
        known && code != STILL_ACTIVE
    }
}

/// The batch script (`.bat`, `.cmd`) that a bare command name such as
/// `npx` means on Windows, as `cmd.exe` and the MCP SDK clients (through
/// cross-spawn) find it: the first `NAME.com`, `.exe`, `.bat` or `.cmd` in
/// the directories of `path`, when that one is a script. `None` for a name
/// with a directory or an extension, or when a program comes first (the
/// standard library finds programs itself, and runs a script only when
/// given its file name; it then quotes the arguments for `cmd.exe`, and
/// refuses those it cannot quote safely).
pub(crate) fn batch_script(program: &str, path: &std::ffi::OsStr) -> Option<std::path::PathBuf> {
    let bare = std::path::Path::new(program);
    if program.contains(['/', '\\', ':']) || bare.extension().is_some() {
        return None;
    }
    for dir in std::env::split_paths(path) {
        for ext in ["com", "exe", "bat", "cmd"] {
            let candidate = dir.join(bare).with_extension(ext);
            if candidate.is_file() {
                return matches!(ext, "bat" | "cmd").then_some(candidate);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_lives_and_an_exited_one_is_gone() {
        assert!(!process_gone(std::process::id()));
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .arg("--list")
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id();
        child.wait().unwrap();
        drop(child);
        assert!(process_gone(pid));
        // Process ids are multiples of four on Windows: this one names nothing.
        assert!(process_gone(u32::MAX - 2));
    }

    #[test]
    fn a_bare_name_finds_a_script_but_not_past_a_program() {
        let dir =
            std::env::temp_dir().join(std::format!("contractpin-win32-{}", std::process::id()));
        let (first, second) = (dir.join("a"), dir.join("b"));
        std::fs::create_dir_all(&first).unwrap();
        std::fs::create_dir_all(&second).unwrap();
        std::fs::write(second.join("tool.cmd"), "@exit 0").unwrap();
        std::fs::write(second.join("prog.cmd"), "@exit 0").unwrap();
        std::fs::write(first.join("prog.exe"), "").unwrap();
        let path = std::env::join_paths([&first, &second]).unwrap();
        assert_eq!(batch_script("tool", &path), Some(second.join("tool.cmd")));
        // A program earlier in the search order wins, as in cmd.exe.
        assert_eq!(batch_script("prog", &path), None);
        for named in ["tool.cmd", "b\\tool", "./tool", "C:tool", "missing"] {
            assert_eq!(batch_script(named, &path), None, "{named}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn only_disk_files_are_disk_files() {
        let exe = std::fs::File::open(std::env::current_exe().unwrap()).unwrap();
        assert!(is_disk_file(&exe));
        let nul = std::fs::File::open("NUL").unwrap();
        assert!(!is_disk_file(&nul));
    }
}
