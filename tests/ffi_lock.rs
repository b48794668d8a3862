//! The lock handle of the C ABI (`contractpin_lock_*`): parse once, list the
//! servers, verify many times, and read why a lock was refused. The
//! expected verdicts come from the shipped example (examples/) whose
//! digests the other suites check against vectors/reference.py.
#![cfg(feature = "ffi")]

use std::ptr;

use contractpin::ffi::*;

/// The shipped example files, embedded (Miri runs without file access).
fn example(name: &str) -> Vec<u8> {
    let bytes: &[u8] = match name {
        "contractpin.lock" => include_bytes!("../examples/contractpin.lock"),
        "tools-list.json" => include_bytes!("../examples/tools-list.json"),
        "drifted-tools-list.json" => include_bytes!("../examples/drifted-tools-list.json"),
        other => panic!("no example {other}"),
    };
    bytes.to_vec()
}

/// Owns a `contractpin_lock`.
struct Handle(*mut contractpin_lock);

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: created by contractpin_lock_parse, freed once.
        unsafe { contractpin_lock_free(self.0) };
    }
}

fn parse(bytes: &[u8]) -> Result<Handle, (contractpin_status, *mut contractpin_lock_error, usize)> {
    let mut lock = ptr::null_mut();
    let mut error = ptr::null_mut();
    let mut offset = usize::MAX;
    // SAFETY: valid buffers and out-parameters.
    let st = unsafe {
        contractpin_lock_parse(
            bytes.as_ptr(),
            bytes.len(),
            &mut lock,
            &mut error,
            &mut offset,
        )
    };
    if st == contractpin_status::Ok {
        assert!(!lock.is_null() && error.is_null());
        Ok(Handle(lock))
    } else {
        assert!(lock.is_null());
        Err((st, error, offset))
    }
}

/// Verifies `list` against server `name`; the report's exit code, or the status.
fn verify(lock: &Handle, name: &str, list: &[u8], flags: u32) -> Result<i32, contractpin_status> {
    let mut report = ptr::null_mut();
    // SAFETY: valid handle, buffers and out-parameters.
    let st = unsafe {
        contractpin_lock_verify(
            lock.0,
            name.as_ptr(),
            name.len(),
            list.as_ptr(),
            list.len(),
            flags,
            ptr::null(),
            &mut report,
            ptr::null_mut(),
        )
    };
    if st != contractpin_status::Ok {
        assert!(report.is_null());
        return Err(st);
    }
    // SAFETY: a live report, freed once.
    let code = unsafe { contractpin_report_exit_code(report) };
    // SAFETY: the same report, freed once, after its last use.
    unsafe { contractpin_report_free(report) };
    Ok(code)
}

fn text(
    f: unsafe extern "C" fn(
        *const contractpin_lock_error,
        *mut *const u8,
        *mut usize,
    ) -> contractpin_status,
    e: *const contractpin_lock_error,
) -> String {
    let (mut p, mut n) = (ptr::null(), 0usize);
    // SAFETY: a live error and valid out-parameters.
    assert_eq!(unsafe { f(e, &mut p, &mut n) }, contractpin_status::Ok);
    // SAFETY: the library owns `n` bytes at `p` while `e` lives.
    String::from_utf8(unsafe { std::slice::from_raw_parts(p, n) }.to_vec()).unwrap()
}

#[test]
fn parse_once_verify_many() {
    let lock = parse(&example("contractpin.lock")).unwrap();
    // SAFETY: a live handle.
    assert_eq!(unsafe { contractpin_lock_server_count(lock.0) }, 1);
    let (mut p, mut n) = (ptr::null(), 0usize);
    assert_eq!(
        // SAFETY: a live handle, valid out-parameters.
        unsafe { contractpin_lock_server_name(lock.0, 0, &mut p, &mut n) },
        contractpin_status::Ok
    );
    // SAFETY: owned by the handle.
    assert_eq!(unsafe { std::slice::from_raw_parts(p, n) }, b"example");
    assert_eq!(
        // SAFETY: a live handle, valid out-parameters (index 1 is refused).
        unsafe { contractpin_lock_server_name(lock.0, 1, &mut p, &mut n) },
        contractpin_status::IndexOutOfRange
    );
    let pinned = example("tools-list.json");
    let drifted = example("drifted-tools-list.json");
    for _ in 0..3 {
        assert_eq!(verify(&lock, "example", &pinned, 0), Ok(0));
        assert_eq!(verify(&lock, "example", &drifted, 0), Ok(1));
    }
    assert_eq!(
        verify(&lock, "other", &pinned, 0),
        Err(contractpin_status::LockUnknownServer)
    );
    assert_eq!(
        verify(&lock, "example", b"{", 0),
        Err(contractpin_status::UnexpectedEnd)
    );
    // Bit 2 is CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS (accepted); 4 is unknown.
    assert_eq!(
        verify(&lock, "example", &pinned, 4),
        Err(contractpin_status::InvalidArgument)
    );
}

#[test]
fn a_refused_lock_says_where_and_why() {
    let text_lock = String::from_utf8(example("contractpin.lock")).unwrap();
    let bad = text_lock.replacen("\"tool_count\": 4", "\"tool_count\": 5", 1);
    assert_ne!(bad, text_lock, "fixture changed");
    let (st, error, offset) = parse(bad.as_bytes()).err().unwrap();
    assert_eq!(st, contractpin_status::LockInvalid);
    assert!(!error.is_null());
    assert_eq!(
        // SAFETY: `error` is the live, non-null error `parse` handed out.
        unsafe { contractpin_lock_error_status(error) },
        contractpin_status::LockInvalid
    );
    assert_eq!(
        text(contractpin_lock_error_path, error),
        "servers.example.tool_count"
    );
    assert!(text(contractpin_lock_error_detail, error).contains("tool_count is 5"));
    let mut at = 7usize;
    assert_eq!(
        // SAFETY: a live error and a valid out-pointer.
        unsafe { contractpin_lock_error_offset(error, &mut at) },
        contractpin_status::NotFound
    );
    assert_eq!(at, 7, "written although not found");
    assert_eq!(offset, usize::MAX, "no offset for a shape error");
    // SAFETY: freed once.
    unsafe { contractpin_lock_error_free(error) };

    let (st, error, offset) = parse(b"{\"contractpin\": \"1\",").err().unwrap();
    assert_eq!(st, contractpin_status::LockSyntax);
    let mut at = 0usize;
    assert_eq!(
        // SAFETY: a live error and a valid out-pointer.
        unsafe { contractpin_lock_error_offset(error, &mut at) },
        contractpin_status::Ok
    );
    assert_eq!((at, offset), (20, 20));
    // SAFETY: freed once.
    unsafe { contractpin_lock_error_free(error) };

    let (st, error, _) = parse(text_lock.replacen("\"1\"", "\"2\"", 1).as_bytes())
        .err()
        .unwrap();
    assert_eq!(st, contractpin_status::LockUnsupportedVersion);
    assert_eq!(text(contractpin_lock_error_path, error), "contractpin");
    // SAFETY: freed once.
    unsafe { contractpin_lock_error_free(error) };
}

#[test]
fn null_arguments_are_refused_not_followed() {
    let bytes = example("contractpin.lock");
    // SAFETY: NULL where the ABI allows NULL; the rest valid.
    unsafe {
        assert_eq!(
            contractpin_lock_parse(
                bytes.as_ptr(),
                bytes.len(),
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut()
            ),
            contractpin_status::NullArgument
        );
        assert_eq!(contractpin_lock_server_count(ptr::null()), 0);
        let (mut p, mut n) = (ptr::null(), 0usize);
        assert_eq!(
            contractpin_lock_server_name(ptr::null(), 0, &mut p, &mut n),
            contractpin_status::NullArgument
        );
        let mut r = ptr::null_mut();
        assert_eq!(
            contractpin_lock_verify(
                ptr::null(),
                ptr::null(),
                0,
                ptr::null(),
                0,
                0,
                ptr::null(),
                &mut r,
                ptr::null_mut()
            ),
            contractpin_status::NullArgument
        );
        assert_eq!(
            contractpin_lock_error_status(ptr::null()),
            contractpin_status::NullArgument
        );
        contractpin_lock_free(ptr::null_mut());
        contractpin_lock_error_free(ptr::null_mut());
    }
    // A refused lock without an error out-parameter leaks nothing (Miri checks).
    let mut lock = ptr::null_mut();
    // SAFETY: valid buffers; NULL optional out-parameters.
    let st = unsafe {
        contractpin_lock_parse(
            b"[]".as_ptr(),
            2,
            &mut lock,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    assert_eq!(st, contractpin_status::LockInvalid);
}
