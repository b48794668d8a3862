//! The C ABI's one-call verify of a server (`contractpin_verify_server_with_limits`,
//! `contractpin_lock_verify_server`) and the report accessors of its server
//! facts (`contractpin_report_instructions*`, `contractpin_report_version_changed`).
//!
//! Nothing expected comes from the code under test:
//!
//! - the JSON reports are `bindings/c/testdata/verify-server/report-*.json`,
//!   written by `contractpin verify --format json` (the CLI, over stdio to
//!   `serve.py`) for the same lock, handshake and tools/list
//!   (`bindings/c/testdata/verify-server/gen.sh`; `--check` re-runs the CLI
//!   in `scripts/test-bindings.sh`);
//! - the instructions digests are those of vectors `instructions-plain` and
//!   `instructions-injection` of `vectors/vectors.json` (made by
//!   `vectors/reference.py`), copied below; the exit codes, statuses and
//!   offsets are written out by hand.
//!
//! Inputs are compiled in (`include_bytes!`) so the suite also runs under
//! Miri.
#![cfg(feature = "ffi")]

use std::ptr;

use contractpin::ffi::*;

#[path = "support/ffi_lock.rs"]
mod ffi_lock;
use ffi_lock::Lock;

const LOCK: &[u8] = include_bytes!("../bindings/c/testdata/verify-server/server.lock");
const INIT: &[u8] = include_bytes!("../bindings/c/testdata/initialize.json");
const INIT_DRIFTED: &[u8] = include_bytes!("../bindings/c/testdata/initialize-drifted.json");
const INIT_REMOVED: &[u8] =
    include_bytes!("../bindings/c/testdata/verify-server/initialize-removed.json");
const TOOLS: &[u8] = include_bytes!("../bindings/c/testdata/tools.json");
const TOOLS_DRIFTED: &[u8] = include_bytes!("../bindings/c/testdata/tools-drifted.json");

/// `digest` of vector `instructions-plain` (vectors/vectors.json): what
/// `acme` pins and `initialize.json` carries.
const PLAIN: &str = "sha256:045ac22ce609769df6e2d83a22e097c5118aa15850fbca7f5c599a54d2fb8efd";
/// `digest` of vector `instructions-injection`: `initialize-drifted.json`.
const INJECTION: &str = "sha256:2e2881ac507a24c7f7134b5599f4ab8c7999a94a369c0b4ae23b6df9c5771f7c";

const ALLOW_NEW: u32 = CONTRACTPIN_VERIFY_ALLOW_NEW;
const IGNORE: u32 = CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS;

use contractpin_instructions_status as I;

/// One case of `gen.sh`, with what the accessors must say.
struct Case {
    report: &'static [u8],
    server: &'static str,
    init: &'static [u8],
    tools: &'static [u8],
    flags: u32,
    exit: i32,
    status: contractpin_instructions_status,
    pinned: Option<&'static str>,
    live: Option<&'static str>,
    version_changed: i32,
}

const CASES: [Case; 6] = [
    Case {
        report: include_bytes!("../bindings/c/testdata/verify-server/report-match.json"),
        server: "acme",
        init: INIT,
        tools: TOOLS,
        flags: 0,
        exit: 0,
        status: I::Unchanged,
        pinned: Some(PLAIN),
        live: Some(PLAIN),
        version_changed: 0,
    },
    Case {
        report: include_bytes!("../bindings/c/testdata/verify-server/report-drifted.json"),
        server: "acme",
        init: INIT_DRIFTED,
        tools: TOOLS,
        flags: 0,
        exit: 1,
        status: I::Drifted,
        pinned: Some(PLAIN),
        live: Some(INJECTION),
        version_changed: 1,
    },
    Case {
        report: include_bytes!("../bindings/c/testdata/verify-server/report-drifted-ignore.json"),
        server: "acme",
        init: INIT_DRIFTED,
        tools: TOOLS,
        flags: IGNORE,
        exit: 0,
        status: I::NotChecked,
        pinned: None,
        live: None,
        version_changed: 1,
    },
    Case {
        report: include_bytes!("../bindings/c/testdata/verify-server/report-removed.json"),
        server: "acme",
        init: INIT_REMOVED,
        tools: TOOLS_DRIFTED,
        flags: 0,
        exit: 1,
        status: I::Removed,
        pinned: Some(PLAIN),
        live: None,
        version_changed: 0,
    },
    Case {
        report: include_bytes!("../bindings/c/testdata/verify-server/report-added.json"),
        server: "bare",
        init: INIT,
        tools: TOOLS,
        flags: 0,
        exit: 1,
        status: I::Added,
        pinned: None,
        live: Some(PLAIN),
        version_changed: 0,
    },
    Case {
        report: include_bytes!("../bindings/c/testdata/verify-server/report-added-allow-new.json"),
        server: "bare",
        init: INIT,
        tools: TOOLS,
        flags: ALLOW_NEW,
        exit: 0,
        status: I::Added,
        pinned: None,
        live: Some(PLAIN),
        version_changed: 0,
    },
];

fn text(d: &[u8; 32]) -> String {
    let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Owns a `contractpin_report`.
struct Report(*mut contractpin_report);

impl Drop for Report {
    fn drop(&mut self) {
        // SAFETY: from a verify call, freed once.
        unsafe { contractpin_report_free(self.0) };
    }
}

impl Report {
    fn exit_code(&self) -> i32 {
        // SAFETY: live report.
        unsafe { contractpin_report_exit_code(self.0) }
    }

    fn json(&self) -> Vec<u8> {
        let mut need = 0;
        // SAFETY: live report; a NULL buffer of capacity 0.
        let st = unsafe { contractpin_report_json(self.0, ptr::null_mut(), 0, &mut need) };
        assert_eq!(st, contractpin_status::OutputTooSmall);
        let mut buf = vec![0u8; need];
        // SAFETY: live report, a buffer of `need` bytes.
        let st = unsafe { contractpin_report_json(self.0, buf.as_mut_ptr(), need, &mut need) };
        assert_eq!(st, contractpin_status::Ok);
        buf
    }

    fn instructions(&self) -> contractpin_instructions_status {
        let mut s = I::None;
        // SAFETY: live report, valid out-parameter.
        let st = unsafe { contractpin_report_instructions(self.0, &mut s) };
        assert_eq!(st, contractpin_status::Ok);
        s
    }

    /// A digest accessor's digest, `None` on `NOT_FOUND` (then unwritten).
    fn digest(
        &self,
        f: unsafe extern "C" fn(*const contractpin_report, *mut u8) -> contractpin_status,
    ) -> Option<String> {
        let mut d = [0xa5u8; 32];
        // SAFETY: live report, 32 writable bytes.
        match unsafe { f(self.0, d.as_mut_ptr()) } {
            contractpin_status::Ok => Some(text(&d)),
            contractpin_status::NotFound => {
                assert_eq!(d, [0xa5; 32], "written on NOT_FOUND");
                None
            }
            other => panic!("digest accessor: {other:?}"),
        }
    }

    /// 1, 0, or -1 for `NOT_FOUND` (unknown; then unwritten).
    fn version_changed(&self) -> i32 {
        let mut c = 7;
        // SAFETY: live report, valid out-parameter.
        match unsafe { contractpin_report_version_changed(self.0, &mut c) } {
            contractpin_status::Ok => c,
            contractpin_status::NotFound => {
                assert_eq!(c, 7, "written on NOT_FOUND");
                -1
            }
            other => panic!("version_changed: {other:?}"),
        }
    }
}

/// What `out` holds before a call, to see that a failure leaves it alone.
fn sentinel() -> *mut contractpin_report {
    ptr::NonNull::dangling().as_ptr()
}

/// A failure: status, error offset and input (`usize::MAX` / `None` when
/// not written).
type Refused = (contractpin_status, usize, Option<u32>);

fn outcome(
    st: contractpin_status,
    out: *mut contractpin_report,
    offset: usize,
    input: u32,
) -> Result<Report, Refused> {
    if st == contractpin_status::Ok {
        return Ok(Report(out));
    }
    assert_eq!(out, sentinel(), "out written on failure");
    Err((st, offset, (input != u32::MAX).then_some(input)))
}

/// `contractpin_verify_server_with_limits` on the lock bytes.
fn verify_bytes(
    lock: &[u8],
    server: &[u8],
    init: &[u8],
    tools: &[u8],
    flags: u32,
    limits: Option<&contractpin_limits>,
) -> Result<Report, Refused> {
    let mut out = sentinel();
    let (mut offset, mut input) = (usize::MAX, u32::MAX);
    // SAFETY: valid buffers and out-parameters; `contractpin_input` is a
    // `uint32_t` in C, and every value the library writes is a variant.
    let st = unsafe {
        contractpin_verify_server_with_limits(
            lock.as_ptr(),
            lock.len(),
            server.as_ptr(),
            server.len(),
            init.as_ptr(),
            init.len(),
            tools.as_ptr(),
            tools.len(),
            flags,
            limits.map_or(ptr::null(), |l| l),
            &mut out,
            &mut offset,
            (&mut input as *mut u32).cast(),
        )
    };
    outcome(st, out, offset, input)
}

/// `contractpin_lock_verify_server` on a parsed lock.
fn verify_lock(
    lock: &Lock,
    server: &[u8],
    init: &[u8],
    tools: &[u8],
    flags: u32,
) -> Result<Report, Refused> {
    let mut out = sentinel();
    let (mut offset, mut input) = (usize::MAX, u32::MAX);
    // SAFETY: as in `verify_bytes`, with a live lock handle.
    let st = unsafe {
        contractpin_lock_verify_server(
            lock.0,
            server.as_ptr(),
            server.len(),
            init.as_ptr(),
            init.len(),
            tools.as_ptr(),
            tools.len(),
            flags,
            ptr::null(),
            &mut out,
            &mut offset,
            (&mut input as *mut u32).cast(),
        )
    };
    outcome(st, out, offset, input)
}

fn check_case(r: &Report, c: &Case) {
    let name = c.server;
    assert_eq!(
        String::from_utf8(r.json()).unwrap(),
        String::from_utf8(c.report.to_vec()).unwrap(),
        "{name}: not the CLI's report"
    );
    assert_eq!(r.exit_code(), c.exit, "{name}");
    assert_eq!(r.instructions(), c.status, "{name}");
    let pinned = r.digest(contractpin_report_instructions_pinned_digest);
    let live = r.digest(contractpin_report_instructions_live_digest);
    assert_eq!(pinned.as_deref(), c.pinned, "{name}");
    assert_eq!(live.as_deref(), c.live, "{name}");
    assert_eq!(r.version_changed(), c.version_changed, "{name}");
}

/// Under Miri (slow) the lock bytes are parsed for the first case only:
/// both calls share everything past the boundary.
const BYTES_CASES: usize = if cfg!(miri) { 1 } else { CASES.len() };

#[test]
fn both_calls_write_the_clis_report_and_verdict() {
    let lock = Lock::parse(LOCK);
    for (i, c) in CASES.iter().enumerate() {
        let s = c.server.as_bytes();
        check_case(&verify_lock(&lock, s, c.init, c.tools, c.flags).unwrap(), c);
        if i < BYTES_CASES {
            check_case(
                &verify_bytes(LOCK, s, c.init, c.tools, c.flags, None).unwrap(),
                c,
            );
        }
    }
}

/// The calls without a handshake: facts not checked, the report as before
/// (no server facts in the JSON), `IGNORE_INSTRUCTIONS` accepted and
/// without effect.
#[test]
fn reports_of_the_tools_only_calls_check_no_facts() {
    let lock = Lock::parse(LOCK);
    for flags in [0, IGNORE] {
        let mut out = ptr::null_mut();
        // SAFETY: valid handle, buffers and out-parameters.
        let st = unsafe {
            contractpin_lock_verify(
                lock.0,
                b"acme".as_ptr(),
                4,
                TOOLS.as_ptr(),
                TOOLS.len(),
                flags,
                ptr::null(),
                &mut out,
                ptr::null_mut(),
            )
        };
        assert_eq!(st, contractpin_status::Ok);
        let r = Report(out);
        assert_eq!(r.exit_code(), 0);
        assert_eq!(r.instructions(), I::NotChecked);
        assert_eq!(
            r.digest(contractpin_report_instructions_pinned_digest),
            None
        );
        assert_eq!(r.digest(contractpin_report_instructions_live_digest), None);
        assert_eq!(r.version_changed(), -1);
        let json = String::from_utf8(r.json()).unwrap();
        for key in [
            "\"instructions\": null,",
            "\"protocol_version\": {\n        \"live\": null,\n        \"pinned\": null\n      },",
            "\"live\": null,\n        \"pinned\": null,\n        \"version_changed\": null\n",
        ] {
            assert!(json.contains(key), "{key:?} not in\n{json}");
        }
    }
}

/// Verify's rule, not the guard's: an `instructions` member that is not a
/// string is no instructions (pinned: removed); `serverInfo` in `_meta`
/// (a 2026-07-28 `server/discover` result) is read, which has no
/// `protocolVersion`.
#[test]
fn the_handshake_is_read_as_the_cli_reads_it() {
    let lock = Lock::parse(LOCK);
    let init = br#"{"instructions":["Use the search tool before answering."],"supportedVersions":["2026-07-28"],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"acme","version":"2.0.0","title":"Acme"}}}"#;
    let r = verify_lock(&lock, b"acme", init, TOOLS, 0).unwrap();
    assert_eq!((r.exit_code(), r.instructions()), (1, I::Removed));
    assert_eq!(r.digest(contractpin_report_instructions_live_digest), None);
    assert_eq!(r.version_changed(), 1);
    let json = String::from_utf8(r.json()).unwrap();
    let want = "\"protocol_version\": {\n        \"live\": null,\n        \"pinned\": \"2025-11-25\"\n      },\n      \"server_info\": {\n        \"live\": {\n          \"name\": \"acme\",\n          \"title\": \"Acme\",\n          \"version\": \"2.0.0\"\n        },";
    assert!(json.contains(want), "{json}");
    // `bare` pins no instructions: a non-string member is none there too.
    let r = verify_lock(&lock, b"bare", br#"{"instructions":7}"#, TOOLS, 0).unwrap();
    assert_eq!((r.exit_code(), r.instructions()), (0, I::None));
    assert_eq!(r.version_changed(), -1, "no live serverInfo");
}

const INIT_INPUT: u32 = contractpin_input::InitializeResult as u32;
const TOOLS_INPUT: u32 = contractpin_input::ToolsList as u32;
const LOCK_INPUT: u32 = contractpin_input::Lock as u32;

#[test]
fn a_bad_handshake_fails_closed_with_its_offset() {
    use contractpin_status as S;
    let lock = Lock::parse(LOCK);
    let bad: [(&[u8], S, usize); 6] = [
        (b"", S::UnexpectedEnd, 0),
        (br#"["x"]"#, S::UnexpectedByte, 0),
        (br#" {"error":{}}"#, S::JsonRpcError, 10),
        (br#"{"jsonrpc":"2.0","result":{}}"#, S::UnexpectedByte, 17),
        (br#"{"a":1,"a":2}"#, S::DuplicateKey, 7),
        (b"{\"instructions\":\"x\"} x", S::TrailingData, 21),
    ];
    for (i, (init, status, at)) in bad.into_iter().enumerate() {
        let want = Err((status, at, Some(INIT_INPUT)));
        let got = verify_lock(&lock, b"acme", init, TOOLS, 0).map(|_| ());
        assert_eq!(got, want, "{:?}", String::from_utf8_lossy(init));
        if i < BYTES_CASES {
            let got = verify_bytes(LOCK, b"acme", init, TOOLS, 0, None).map(|_| ());
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(init));
        }
    }
    let small = contractpin_limits {
        max_input: 8,
        ..contractpin_limits_default()
    };
    let got = verify_bytes(LOCK, b"acme", INIT, b"[]", 0, Some(&small)).map(|_| ());
    assert_eq!(got, Err((S::SizeLimit, 8, Some(INIT_INPUT))));
}

#[test]
fn each_offset_says_which_input_it_is_into() {
    use contractpin_status as S;
    let lock = Lock::parse(LOCK);
    // The handshake is checked before the tools/list.
    let got = verify_lock(&lock, b"acme", b"{", b"[1]", 0).map(|_| ());
    assert_eq!(got, Err((S::UnexpectedEnd, 1, Some(INIT_INPUT))));
    let got = verify_lock(&lock, b"acme", INIT, b"[1]", 0).map(|_| ());
    assert_eq!(got, Err((S::ToolNotObject, 1, Some(TOOLS_INPUT))));
    let got = verify_bytes(LOCK, b"acme", INIT, b"[01]", 0, None).map(|_| ());
    assert_eq!(got, Err((S::InvalidNumber, 1, Some(TOOLS_INPUT))));
    let got = verify_bytes(b"{\"contractpin\":", b"acme", b"{", b"[", 0, None).map(|_| ());
    assert_eq!(got, Err((S::LockSyntax, 15, Some(LOCK_INPUT))));
}

#[test]
fn argument_errors_write_no_offset_and_no_input() {
    use contractpin_status as S;
    let lock = Lock::parse(LOCK);
    let no_offset = |st| Err((st, usize::MAX, None));
    let got = verify_lock(&lock, b"acme", INIT, TOOLS, 4).map(|_| ());
    assert_eq!(got, no_offset(S::InvalidArgument), "unknown flag");
    let got = verify_bytes(LOCK, b"acme", b"{", b"[", 8, None).map(|_| ());
    assert_eq!(
        got,
        no_offset(S::InvalidArgument),
        "flags before the inputs"
    );
    let got = verify_lock(&lock, b"nope", b"{", b"[", 0).map(|_| ());
    assert_eq!(
        got,
        no_offset(S::LockUnknownServer),
        "server before the handshake"
    );
    let got = verify_bytes(LOCK, b"\xff", INIT, TOOLS, 0, None).map(|_| ());
    assert_eq!(got, no_offset(S::InvalidArgument), "name not UTF-8");
    let got = verify_bytes(b"{}", b"acme", INIT, TOOLS, 0, None).map(|_| ());
    assert_eq!(got, no_offset(S::LockInvalid));

    let mut out = ptr::null_mut();
    // SAFETY: a NULL buffer with a non-zero length is refused before any read.
    let st = unsafe {
        contractpin_lock_verify_server(
            lock.0,
            b"acme".as_ptr(),
            4,
            ptr::null(),
            3,
            TOOLS.as_ptr(),
            TOOLS.len(),
            0,
            ptr::null(),
            &mut out,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    assert_eq!((st, out), (S::NullArgument, ptr::null_mut()));
    // SAFETY: NULL `out` and NULL lock handle are refused.
    let (st_out, st_lock) = unsafe {
        (
            contractpin_verify_server_with_limits(
                LOCK.as_ptr(),
                LOCK.len(),
                b"acme".as_ptr(),
                4,
                INIT.as_ptr(),
                INIT.len(),
                TOOLS.as_ptr(),
                TOOLS.len(),
                0,
                ptr::null(),
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
            ),
            contractpin_lock_verify_server(
                ptr::null(),
                b"acme".as_ptr(),
                4,
                INIT.as_ptr(),
                INIT.len(),
                TOOLS.as_ptr(),
                TOOLS.len(),
                0,
                ptr::null(),
                &mut out,
                ptr::null_mut(),
                ptr::null_mut(),
            ),
        )
    };
    assert_eq!((st_out, st_lock), (S::NullArgument, S::NullArgument));
}

#[test]
fn the_accessors_check_their_pointers() {
    use contractpin_status as S;
    let lock = Lock::parse(LOCK);
    let r = verify_lock(&lock, b"acme", INIT, TOOLS, 0).unwrap();
    let mut s = I::None;
    let mut c = 0;
    let mut d = [0u8; 32];
    // SAFETY: NULL report or NULL out-parameters are refused.
    unsafe {
        assert_eq!(
            contractpin_report_instructions(ptr::null(), &mut s),
            S::NullArgument
        );
        assert_eq!(
            contractpin_report_instructions(r.0, ptr::null_mut()),
            S::NullArgument
        );
        assert_eq!(
            contractpin_report_instructions_pinned_digest(ptr::null(), d.as_mut_ptr()),
            S::NullArgument
        );
        assert_eq!(
            contractpin_report_instructions_live_digest(r.0, ptr::null_mut()),
            S::NullArgument
        );
        assert_eq!(
            contractpin_report_version_changed(ptr::null(), &mut c),
            S::NullArgument
        );
        assert_eq!(
            contractpin_report_version_changed(r.0, ptr::null_mut()),
            S::NullArgument
        );
    }
}

/// The C enum values agree with the documented numbers.
#[test]
fn stable_numbers() {
    assert_eq!(I::NotChecked as u32, 5);
    assert_eq!((LOCK_INPUT, TOOLS_INPUT, INIT_INPUT), (0, 1, 2));
    assert_eq!(IGNORE, 2);
}
