//! Ctrl-C on Windows, the counterpart of the Unix signal tests
//! (`cli_fleet`'s SIGINT to `verify`, `proxy_robust`'s SIGTERM to the
//! proxy): a console control event stops `contractpin` the way SIGINT does.
//!
//! - `init` waiting on a server that never answers exits 130 ("interrupted
//!   by Ctrl-C ... nothing was written"), no lock appears, and the server
//!   is gone;
//! - `proxy` in the middle of a session ends it (exit 0, as for SIGTERM),
//!   and the server is gone.
//!
//! Ctrl-Break is held to its number and name by a unit test only
//! (`proxy::signals`): Wine's `GenerateConsoleCtrlEvent` refuses to send
//! it to the console's processes (it returns FALSE).
//!
//! The servers are this program, started again with a role in their
//! environment; they ignore Ctrl-C themselves (it reaches every process on
//! the console), so only contractpin's job objects can end them.
//!
//! Needs a console: Wine gives a program one only on a terminal, so
//! `scripts/test-cross.sh` runs this test under a pseudo-terminal
//! (`scripts/wine/in-console.sh`). Without one it fails, unless the run
//! declares `console` absent (`CONTRACTPIN_ABSENT_TOOLS`), when it skips
//! loudly. No libtest harness (`harness = false`): libtest would print on
//! a server's stdout, which carries the protocol.

#[cfg(windows)]
#[path = "../../tests/support/self_server.rs"]
mod self_server;

#[cfg(not(windows))]
fn main() {
    println!("console_ctrl: Windows only (the Unix signals: cli_fleet, proxy_robust)");
}

#[cfg(windows)]
fn main() {
    windows::main();
}

#[cfg(windows)]
mod windows {
    use std::io::{BufRead, BufReader, Write};
    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, Output, Stdio};
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    use super::self_server;

    /// Set in a server's environment: which server to be.
    const ROLE: &str = "CONTRACTPIN_CONSOLE_TEST_ROLE";
    /// Set in a server's environment: where it writes its process id.
    const PID_FILE: &str = "CONTRACTPIN_CONSOLE_TEST_PID";
    const CTRL_C_EVENT: u32 = 0;

    type Handler = unsafe extern "system" fn(u32) -> i32;

    #[link(name = "kernel32")]
    extern "system" {
        fn SetConsoleCtrlHandler(handler: Option<Handler>, add: i32) -> i32;
        fn GenerateConsoleCtrlEvent(event: u32, group: u32) -> i32;
        fn GetConsoleCP() -> u32;
        fn OpenProcess(access: u32, inherit: i32, pid: u32) -> *mut core::ffi::c_void;
        fn WaitForSingleObject(handle: *mut core::ffi::c_void, ms: u32) -> u32;
        fn CloseHandle(handle: *mut core::ffi::c_void) -> i32;
    }

    /// The test program's own handler: it stays (the event reaches every
    /// process on the console).
    unsafe extern "system" fn stay(_: u32) -> i32 {
        1
    }

    pub fn main() {
        if let Ok(role) = std::env::var(ROLE) {
            return server(&role);
        }
        // SAFETY: GetConsoleCP takes nothing; 0 means no console.
        if unsafe { GetConsoleCP() } == 0 {
            let absent = std::env::var("CONTRACTPIN_ABSENT_TOOLS").unwrap_or_default();
            if absent.split(',').any(|t| t.trim() == "console") {
                eprintln!(
                    "*** SKIPPED console_ctrl: needs a console (CONTRACTPIN_ABSENT_TOOLS; \
                     scripts/test-cross.sh runs it under a pseudo-terminal) ***"
                );
                return;
            }
            panic!("console_ctrl needs a console: run it under a terminal (scripts/wine/in-console.sh)");
        }
        // SAFETY: `stay` lives as long as the program.
        assert_ne!(unsafe { SetConsoleCtrlHandler(Some(stay), 1) }, 0);
        init_waiting_on_a_server_is_interrupted();
        println!("test init_waiting_on_a_server_is_interrupted ... ok");
        a_proxy_session_is_stopped();
        println!("test a_proxy_session_is_stopped ... ok");
        println!("console_ctrl: 2 passed, 0 failed");
    }

    /// A server that ignores Ctrl-C and writes its process id: `slow`
    /// never answers; `serve` answers with the memory server's tools.
    fn server(role: &str) {
        // SAFETY: a null handler with TRUE: this process ignores Ctrl-C.
        unsafe { SetConsoleCtrlHandler(None, 1) };
        if let Some(file) = std::env::var_os(PID_FILE) {
            let _ = std::fs::write(file, std::process::id().to_string());
        }
        match role {
            "serve" => self_server::serve(self_server::memory_tools),
            _ => std::thread::sleep(Duration::from_secs(60)),
        }
    }

    fn bin() -> &'static str {
        env!("CARGO_BIN_EXE_contractpin")
    }

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("contractpin-ctrl-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// `contractpin ARGS` with the servers' role and pid file in its
    /// environment (the lock refers to both by name).
    fn contractpin(args: &[&str], role: &str, pid: &Path) -> Command {
        let mut c = Command::new(bin());
        c.args(args)
            .env(ROLE, role)
            .env(PID_FILE, pid)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    /// `init --lock LOCK --name NAME` of this program as the server, with
    /// the role and pid file passed on to it by reference.
    fn init_args(lock: &Path, name: &str) -> Vec<String> {
        let lock = lock.to_string_lossy().into_owned();
        let mut args: Vec<String> = vec!["init".into(), "--lock".into(), lock, "--name".into()];
        args.push(name.into());
        for var in [ROLE, PID_FILE] {
            args.extend(["--env".into(), format!("{var}=${{{var}}}")]);
        }
        let exe = std::env::current_exe().unwrap();
        args.extend(["--".into(), exe.to_string_lossy().into_owned()]);
        args
    }

    /// Ctrl-C, then `child`'s output and stderr; it must end within 5 s.
    fn interrupt(child: Child) -> (Output, String) {
        let t0 = Instant::now();
        ctrl_c();
        let out = finish(child, Duration::from_secs(10));
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        (out, err)
    }

    fn wait_for_pid(file: &Path) -> u32 {
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(pid) = std::fs::read_to_string(file)
                .ok()
                .and_then(|t| t.parse().ok())
            {
                return pid;
            }
            assert!(Instant::now() < until, "the server never started");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether process `pid` has ended within `d`.
    fn gone_within(pid: u32, d: Duration) -> bool {
        const SYNCHRONIZE: u32 = 0x0010_0000;
        // SAFETY: plain values; a null handle (no such process) is checked.
        let process = unsafe { OpenProcess(SYNCHRONIZE, 0, pid) };
        if process.is_null() {
            return true;
        }
        // SAFETY: `process` is the handle just opened, closed once here.
        unsafe {
            let ended = WaitForSingleObject(process, d.as_millis() as u32) == 0;
            CloseHandle(process);
            ended
        }
    }

    fn ctrl_c() {
        // SAFETY: plain values: Ctrl-C to every process on this console.
        assert_ne!(unsafe { GenerateConsoleCtrlEvent(CTRL_C_EVENT, 0) }, 0);
    }

    /// Waits up to `d` for `child` to exit, killing it after that.
    fn finish(mut child: Child, d: Duration) -> Output {
        let until = Instant::now() + d;
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > until {
                let _ = child.kill();
                panic!("contractpin did not stop within {d:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        child.wait_with_output().unwrap()
    }

    fn init_waiting_on_a_server_is_interrupted() {
        let dir = scratch("init");
        let (lock, pid_file) = (dir.join("contractpin.lock"), dir.join("server.pid"));
        let args = init_args(&lock, "slow");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let child = contractpin(&args, "slow", &pid_file).spawn().unwrap();
        let pid = wait_for_pid(&pid_file);
        let (out, err) = interrupt(child);
        assert_eq!(out.status.code(), Some(130), "{err}");
        assert!(err.contains("interrupted by Ctrl-C"), "{err}");
        assert!(err.contains("nothing was written"), "{err}");
        assert!(!lock.exists(), "a lock was written");
        assert!(
            gone_within(pid, Duration::from_secs(3)),
            "the server {pid} outlived contractpin"
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    fn a_proxy_session_is_stopped() {
        let dir = scratch("proxy");
        let lock = dir.join("contractpin.lock");
        let lock_arg = lock.to_string_lossy().into_owned();
        let args = init_args(&lock, "mem");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let pinned = contractpin(&args, "serve", &dir.join("init.pid"))
            .output()
            .unwrap();
        assert!(pinned.status.success(), "{pinned:?}");

        let pid_file = dir.join("server.pid");
        let proxy = ["proxy", "--lock", &lock_arg, "--name", "mem"];
        let mut child = contractpin(&proxy, "serve", &pid_file).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
        )
        .unwrap();
        let answer = rx.recv_timeout(Duration::from_secs(30)).expect("an answer");
        assert!(answer.contains(r#""id":1"#), "{answer}");
        let pid = wait_for_pid(&pid_file);
        let (out, err) = interrupt(child);
        // 0 as for SIGTERM: the session ended on the event, not by the
        // client (whose stdin is still open). On Windows the default
        // handler would end the process with STATUS_CONTROL_C_EXIT; Wine's
        // exits 0 too, so there the init case above is what proves the
        // handler (without it, init exits 0 with no message: checked).
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(
            gone_within(pid, Duration::from_secs(3)),
            "the server {pid} outlived the proxy"
        );
        drop(stdin);
        let _ = std::fs::remove_dir_all(dir);
    }
}
