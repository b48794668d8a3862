//! The few Windows system calls the std layer needs, declared here once
//! (kernel32, which every Windows program links): what kind of object a
//! file handle is, and whether a process still runs. Unix code calls `libc`
//! where it needs it; no such crate is among our Windows dependencies.

use std::os::windows::io::AsRawHandle;

type Handle = *mut core::ffi::c_void;

/// `GetFileType`: a file on a disk.
const FILE_TYPE_DISK: u32 = 1;
/// `OpenProcess` access: enough to read the exit code.
const PROCESS_QUERY_LIMITED_INFORMATION: u32 = 0x1000;
/// `GetLastError` after `OpenProcess` of a process id that names nothing.
const ERROR_INVALID_PARAMETER: u32 = 87;
/// `GetExitCodeProcess` of a process that has not exited.
const STILL_ACTIVE: u32 = 259;

#[link(name = "kernel32")]
extern "system" {
    fn GetFileType(file: Handle) -> u32;
    fn OpenProcess(access: u32, inherit: i32, pid: u32) -> Handle;
    fn GetExitCodeProcess(process: Handle, code: *mut u32) -> i32;
    fn CloseHandle(handle: Handle) -> i32;
    fn GetLastError() -> u32;
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
    fn only_disk_files_are_disk_files() {
        let exe = std::fs::File::open(std::env::current_exe().unwrap()).unwrap();
        assert!(is_disk_file(&exe));
        let nul = std::fs::File::open("NUL").unwrap();
        assert!(!is_disk_file(&nul));
    }
}
