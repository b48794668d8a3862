//! The instructions guard of the C ABI (`contractpin_guard_instructions`
//! and the `contractpin_guard_instructions_result_*` accessors): unchanged,
//! drifted, added, removed and no instructions, enforce and observe mode,
//! the result kept byte for byte but for the cut member, the event line,
//! error statuses and offsets, NULL arguments.
//!
//! The expected digests do not come from the code under test: the lock
//! `bindings/c/testdata/instructions.lock` pins, for server `acme`, the
//! digest of vector `instructions-plain` of `vectors/vectors.json` (made by
//! `vectors/reference.py`), and the drifted result carries the text of
//! vector `instructions-injection`; both digests are copied from that file
//! below. The expected result bytes are written out by hand. Inputs are
//! compiled in (`include_bytes!`) so the suite also runs under Miri.
#![cfg(feature = "ffi")]

use std::ptr;

use contractpin::ffi::*;

#[path = "support/ffi_lock.rs"]
mod ffi_lock;
use ffi_lock::Lock;

const LOCK: &[u8] = include_bytes!("../bindings/c/testdata/instructions.lock");
/// `acme`'s handshake result, its instructions those of vector
/// `instructions-plain` with the `U` escaped as `\u0055`.
const RESULT: &[u8] = include_bytes!("../bindings/c/testdata/initialize.json");
/// The same with the instructions of vector `instructions-injection`.
const DRIFTED: &[u8] = include_bytes!("../bindings/c/testdata/initialize-drifted.json");
/// `DRIFTED` without its instructions member, written by hand.
const DRIFTED_CUT: &[u8] = b"{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{\"listChanged\":true}},\"serverInfo\":{\"name\":\"acme\",\"version\":\"1.0.1\"}}\n";

/// `digest` of vector `instructions-plain` (vectors/vectors.json).
const PLAIN: &str = "sha256:045ac22ce609769df6e2d83a22e097c5118aa15850fbca7f5c599a54d2fb8efd";
/// `digest` of vector `instructions-injection` (vectors/vectors.json).
const INJECTION: &str = "sha256:2e2881ac507a24c7f7134b5599f4ab8c7999a94a369c0b4ae23b6df9c5771f7c";

fn text(d: &[u8; 32]) -> String {
    let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Owns a `contractpin_guard_instructions_result`.
struct Res(*mut contractpin_guard_instructions_result);

impl Drop for Res {
    fn drop(&mut self) {
        // SAFETY: from contractpin_guard_instructions, freed once.
        unsafe { contractpin_guard_instructions_result_free(self.0) };
    }
}

/// What the accessors say.
#[derive(Debug, PartialEq, Eq)]
struct Verdict {
    status: contractpin_instructions_status,
    live: Option<String>,
    removed: bool,
}

fn span(p: *const u8, n: usize) -> Vec<u8> {
    // SAFETY: the tests only read spans of live results (with their NUL).
    let s = unsafe { std::slice::from_raw_parts(p, n + 1) };
    assert_eq!(s[n], 0, "the documented NUL");
    s[..n].to_vec()
}

impl Res {
    fn verdict(&self) -> Verdict {
        let mut status = contractpin_instructions_status::None;
        let (mut has_live, mut removed) = (-1, -1);
        let mut live = [0xa5u8; 32];
        // SAFETY: live result, valid out-parameters.
        let st = unsafe {
            contractpin_guard_instructions_result_verdict(
                self.0,
                &mut status,
                &mut has_live,
                live.as_mut_ptr(),
                &mut removed,
            )
        };
        assert_eq!(st, contractpin_status::Ok);
        assert!(matches!((has_live, removed), (0 | 1, 0 | 1)));
        if has_live == 0 {
            assert_eq!(live, [0xa5; 32], "live_digest written without one");
        }
        Verdict {
            status,
            live: (has_live == 1).then(|| text(&live)),
            removed: removed == 1,
        }
    }

    fn bytes(&self) -> Vec<u8> {
        let (mut p, mut n) = (ptr::null(), 0);
        // SAFETY: live result, valid out-parameters.
        let st = unsafe { contractpin_guard_instructions_result_bytes(self.0, &mut p, &mut n) };
        assert_eq!(st, contractpin_status::Ok);
        span(p, n)
    }

    /// The event line, `None` for `CONTRACTPIN_STATUS_NOT_FOUND`.
    fn json(&self) -> Option<String> {
        let (mut p, mut n) = (ptr::null(), 0usize);
        // SAFETY: live result, valid out-parameters.
        let st =
            unsafe { contractpin_guard_instructions_result_event_json(self.0, &mut p, &mut n) };
        match st {
            contractpin_status::Ok => Some(String::from_utf8(span(p, n)).unwrap()),
            contractpin_status::NotFound => {
                assert!(p.is_null() && n == 0, "written on failure");
                None
            }
            other => panic!("event_json: {other:?}"),
        }
    }
}

/// `contractpin_guard_instructions`; the result, or the status and the error
/// offset (`usize::MAX` when none was written).
fn guard(
    lock: &Lock,
    server: &[u8],
    result: &[u8],
    flags: u32,
    limits: Option<&contractpin_limits>,
) -> Result<Res, (contractpin_status, usize)> {
    let sentinel = 0x5a5a as *mut contractpin_guard_instructions_result;
    let mut out = sentinel;
    let mut offset = usize::MAX;
    // SAFETY: valid handle, buffers and out-parameters.
    let st = unsafe {
        contractpin_guard_instructions(
            lock.0,
            server.as_ptr(),
            server.len(),
            result.as_ptr(),
            result.len(),
            flags,
            limits.map_or(ptr::null(), |l| l as *const _),
            &mut out,
            &mut offset,
        )
    };
    if st == contractpin_status::Ok {
        assert_ne!(out, sentinel);
        assert_eq!(offset, usize::MAX, "offset written on success");
        Ok(Res(out))
    } else {
        assert_eq!(out, sentinel, "out written on failure");
        Err((st, offset))
    }
}

fn verdict(status: contractpin_instructions_status, live: Option<&str>, removed: bool) -> Verdict {
    Verdict {
        status,
        live: live.map(String::from),
        removed,
    }
}

use contractpin_instructions_status as S;

#[test]
fn pinned_instructions_pass_byte_for_byte() {
    let lock = Lock::parse(LOCK);
    for flags in [0, CONTRACTPIN_GUARD_OBSERVE] {
        let r = guard(&lock, b"acme", RESULT, flags, None).unwrap();
        assert_eq!(r.verdict(), verdict(S::Unchanged, Some(PLAIN), false));
        assert_eq!(r.bytes(), RESULT);
        assert_eq!(r.json(), None);
    }
}

#[test]
fn drifted_instructions_are_cut_in_enforce_mode_and_kept_in_observe_mode() {
    let lock = Lock::parse(LOCK);
    let r = guard(&lock, b"acme", DRIFTED, 0, None).unwrap();
    assert_eq!(r.verdict(), verdict(S::Drifted, Some(INJECTION), true));
    assert_eq!(
        String::from_utf8(r.bytes()).unwrap(),
        std::str::from_utf8(DRIFTED_CUT).unwrap()
    );
    assert_eq!(
        r.json().unwrap(),
        format!(
            r#"{{"live":"{INJECTION}","pinned":"{PLAIN}","reason":"the server's instructions differ from the pinned ones; removed from the handshake result","server":"acme","status":"instructions-drifted"}}"#
        )
    );
    let o = guard(&lock, b"acme", DRIFTED, CONTRACTPIN_GUARD_OBSERVE, None).unwrap();
    assert_eq!(o.verdict(), verdict(S::Drifted, Some(INJECTION), false));
    assert_eq!(o.bytes(), DRIFTED);
    assert!(o.json().unwrap().contains(r#"ones; kept (observe mode)","#));
}

#[test]
fn added_removed_none_and_not_a_string() {
    let lock = Lock::parse(LOCK);
    // `bare` pins no instructions: the same result's are added.
    let r = guard(&lock, b"bare", DRIFTED, 0, None).unwrap();
    assert_eq!(r.verdict(), verdict(S::Added, Some(INJECTION), true));
    assert_eq!(r.bytes(), DRIFTED_CUT);
    assert_eq!(
        r.json().unwrap(),
        format!(
            r#"{{"live":"{INJECTION}","reason":"the server's instructions are not pinned; removed from the handshake result","server":"bare","status":"instructions-added"}}"#
        )
    );
    for doc in [
        &br#"{"capabilities":{}}"#[..],
        br#"{"instructions":null, "a":1}"#,
    ] {
        let r = guard(&lock, b"acme", doc, 0, None).unwrap();
        assert_eq!(r.verdict(), verdict(S::Removed, None, false));
        assert_eq!(r.bytes(), doc);
        assert_eq!(
            r.json().unwrap(),
            format!(
                r#"{{"pinned":"{PLAIN}","reason":"the server's instructions were removed; nothing to hide","server":"acme","status":"instructions-removed"}}"#
            )
        );
        let n = guard(&lock, b"bare", doc, 0, None).unwrap();
        assert_eq!(n.verdict(), verdict(S::None, None, false));
        assert_eq!((n.bytes(), n.json()), (doc.to_vec(), None));
    }
    for (server, status) in [(&b"acme"[..], S::Drifted), (b"bare", S::Added)] {
        let doc = br#"{ "a" : [1], "instructions" : {"text":"x"} }"#;
        let r = guard(&lock, server, doc, 0, None).unwrap();
        assert_eq!(r.verdict(), verdict(status, None, true));
        assert_eq!(r.bytes(), br#"{ "a" : [1] }"#);
        assert!(r
            .json()
            .unwrap()
            .contains("instructions are not a string; removed"));
    }
}

#[test]
fn a_rejected_result_is_a_status_with_its_offset() {
    let lock = Lock::parse(LOCK);
    for (doc, status, offset) in [
        (
            &b"{\"instructions\":\"x\""[..],
            contractpin_status::UnexpectedEnd,
            19,
        ),
        (
            br#"{"instructions":"a","instructions":"b"}"#,
            contractpin_status::DuplicateKey,
            20,
        ),
        (
            br#"{"instructions":"\ud800"}"#,
            contractpin_status::LoneSurrogate,
            17,
        ),
        (b" [\"x\"]", contractpin_status::UnexpectedByte, 1),
        (
            br#"{"jsonrpc":"2.0","id":1,"error":{}}"#,
            contractpin_status::JsonRpcError,
            32,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"result":{"instructions":"x"}}"#,
            contractpin_status::UnexpectedByte,
            24,
        ),
        (b"", contractpin_status::UnexpectedEnd, 0),
    ] {
        let got = guard(&lock, b"acme", doc, 0, None).err();
        assert_eq!(
            got,
            Some((status, offset)),
            "{}",
            String::from_utf8_lossy(doc)
        );
    }
}

#[test]
fn limits_apply_to_the_result() {
    let lock = Lock::parse(LOCK);
    let mut limits = contractpin_limits_default();
    limits.max_input = RESULT.len() - 1;
    let got = guard(&lock, b"acme", RESULT, 0, Some(&limits)).err();
    assert_eq!(got.map(|e| e.0), Some(contractpin_status::SizeLimit));
    let mut limits = contractpin_limits_default();
    limits.max_depth = 2;
    let got = guard(&lock, b"acme", RESULT, 0, Some(&limits)).err();
    assert_eq!(got.map(|e| e.0), Some(contractpin_status::DepthLimit));
    limits.max_depth = 3;
    assert!(guard(&lock, b"acme", RESULT, 0, Some(&limits)).is_ok());
}

#[test]
fn argument_errors() {
    let lock = Lock::parse(LOCK);
    assert_eq!(
        guard(&lock, b"nope", RESULT, 0, None).err(),
        Some((contractpin_status::LockUnknownServer, usize::MAX))
    );
    assert_eq!(
        guard(&lock, b"\xff", RESULT, 0, None).err(),
        Some((contractpin_status::InvalidArgument, usize::MAX))
    );
    assert_eq!(
        guard(&lock, b"acme", RESULT, 2, None).err(),
        Some((contractpin_status::InvalidArgument, usize::MAX))
    );
    let mut out = ptr::null_mut();
    // SAFETY: every pointer is NULL or valid; NULLs are what is tested.
    unsafe {
        let st = contractpin_guard_instructions(
            ptr::null(),
            b"acme".as_ptr(),
            4,
            RESULT.as_ptr(),
            RESULT.len(),
            0,
            ptr::null(),
            &mut out,
            ptr::null_mut(),
        );
        assert_eq!(st, contractpin_status::NullArgument);
        let st = contractpin_guard_instructions(
            lock.0,
            b"acme".as_ptr(),
            4,
            ptr::null(),
            1,
            0,
            ptr::null(),
            &mut out,
            ptr::null_mut(),
        );
        assert_eq!(st, contractpin_status::NullArgument);
        let st = contractpin_guard_instructions(
            lock.0,
            b"acme".as_ptr(),
            4,
            RESULT.as_ptr(),
            RESULT.len(),
            0,
            ptr::null(),
            ptr::null_mut(),
            ptr::null_mut(),
        );
        assert_eq!(st, contractpin_status::NullArgument);
        assert!(out.is_null());
    }
}

#[test]
fn accessors_check_their_arguments() {
    let lock = Lock::parse(LOCK);
    let r = guard(&lock, b"acme", DRIFTED, 0, None).unwrap();
    let (mut p, mut n) = (ptr::null(), 0);
    // SAFETY: NULL or valid pointers; NULLs are what is tested.
    unsafe {
        let null = ptr::null();
        assert_eq!(
            contractpin_guard_instructions_result_verdict(
                null,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut()
            ),
            contractpin_status::NullArgument
        );
        // Every out-parameter of the verdict is optional.
        assert_eq!(
            contractpin_guard_instructions_result_verdict(
                r.0,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut()
            ),
            contractpin_status::Ok
        );
        for st in [
            contractpin_guard_instructions_result_bytes(null, &mut p, &mut n),
            contractpin_guard_instructions_result_bytes(r.0, ptr::null_mut(), &mut n),
            contractpin_guard_instructions_result_bytes(r.0, &mut p, ptr::null_mut()),
            contractpin_guard_instructions_result_event_json(null, &mut p, &mut n),
            contractpin_guard_instructions_result_event_json(r.0, ptr::null_mut(), &mut n),
            contractpin_guard_instructions_result_event_json(r.0, &mut p, ptr::null_mut()),
        ] {
            assert_eq!(st, contractpin_status::NullArgument);
        }
        assert!(p.is_null() && n == 0, "written on failure");
        contractpin_guard_instructions_result_free(ptr::null_mut());
    }
}

#[test]
fn the_stable_numbers() {
    assert_eq!(
        S::Unchanged as u32,
        contractpin_tool_status::Unchanged as u32
    );
    assert_eq!(S::Drifted as u32, contractpin_tool_status::Drifted as u32);
    assert_eq!(S::Added as u32, contractpin_tool_status::Added as u32);
    assert_eq!(S::Removed as u32, contractpin_tool_status::Removed as u32);
    assert_eq!(S::None as u32, 4);
}

#[test]
fn a_result_outlives_its_lock_and_threads_share_a_lock() {
    let lock = Lock::parse(LOCK);
    let r = guard(&lock, b"acme", DRIFTED, 0, None).unwrap();
    drop(lock);
    assert_eq!(r.bytes(), DRIFTED_CUT);
    let lock = Lock::parse(LOCK);
    let shared = &lock;
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(move || {
                let r = guard(shared, b"acme", RESULT, 0, None).unwrap();
                assert_eq!(r.verdict().status, S::Unchanged);
            });
        }
    });
}
