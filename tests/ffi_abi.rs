//! The C ABI called from Rust exactly as C would: statuses, NULLs, zero
//! lengths, buffer sizes, error offsets, outputs written only on success.
//! Expected digests are literals computed with Python's hashlib.
#![cfg(feature = "ffi")]

use std::ffi::CStr;
use std::ptr;

use contractpin::ffi::*;

const ECHO: &[u8] = br#"{"name":"echo","title":"ignored","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}},"description":"Echo back"}"#;
const ECHO_CONTRACT: &[u8] = br#"{"description":"Echo back","inputSchema":{"properties":{"text":{"type":"string"}},"type":"object"},"name":"echo"}"#;
const ECHO_DIGEST: &str = "sha256:6f03644ed9f8359b37fef4fee1a2525b6f6bf05124ec4fbb4af7fd17e01e0c13";
const SHA_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const SHA_EMPTY: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn cstr(p: *const std::ffi::c_char) -> &'static str {
    assert!(!p.is_null());
    // SAFETY: the library returns static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap()
}

/// Canonicalizes through the ABI with a buffer of `cap` bytes (filled with
/// 0xAA first); returns (status, out_len, error_offset, buffer).
fn canon(input: &[u8], cap: usize) -> (contractpin_status, usize, usize, Vec<u8>) {
    let mut out = vec![0xAAu8; cap];
    let mut len = usize::MAX;
    let mut off = usize::MAX;
    // SAFETY: valid buffers of the stated sizes.
    let st = unsafe {
        contractpin_canonicalize(
            input.as_ptr(),
            input.len(),
            out.as_mut_ptr(),
            cap,
            &mut len,
            &mut off,
        )
    };
    (st, len, off, out)
}

#[test]
fn version_matches_cargo() {
    assert_eq!(cstr(contractpin_version()), env!("CARGO_PKG_VERSION"));
    let v = format!(
        "{}.{}.{}",
        contractpin_version_major(),
        contractpin_version_minor(),
        contractpin_version_patch()
    );
    assert!(env!("CARGO_PKG_VERSION").starts_with(&v));
}

#[test]
fn status_names_and_messages() {
    let expect = [
        (0, "ok"),
        (1, "unexpected-end"),
        (10, "duplicate-key"),
        (15, "output-too-small"),
        (32, "not-tools-list"),
        (35, "duplicate-tool-name"),
        (37, "tool-limit"),
        (38, "case-variant-key"),
        (64, "lock-syntax"),
        (69, "lock-unknown-server"),
        (100, "null-argument"),
        (101, "invalid-argument"),
        (102, "panic"),
        (103, "index-out-of-range"),
        (104, "field-absent"),
        (105, "not-found"),
    ];
    for (code, name) in expect {
        assert_eq!(cstr(contractpin_status_name(code)), name);
        assert!(!cstr(contractpin_status_message(code)).is_empty());
    }
    for code in [16, 39, 63, 70, 99, 106, u32::MAX] {
        assert_eq!(cstr(contractpin_status_name(code)), "unknown-status");
        assert_eq!(
            cstr(contractpin_status_message(code)),
            "unknown status code"
        );
    }
    // Every core error kind keeps its number and name.
    for kind in contractpin::ErrorKind::ALL {
        assert_eq!(cstr(contractpin_status_name(kind as u32)), kind.name());
    }
    assert_eq!(contractpin_status::DuplicateKey.name(), "duplicate-key");
}

#[test]
fn canonicalize_ok_and_exact() {
    let input = br#"{"b":1,"a":[1.0,"\u0041",1e21,-0]}"#;
    let (st, len, off, out) = canon(input, 64);
    assert_eq!(st, contractpin_status::Ok);
    assert_eq!(&out[..len], br#"{"a":[1,"A",1e+21,0],"b":1}"#);
    assert_eq!(out[len], 0xAA, "no NUL or other byte past the output");
    assert_eq!(off, usize::MAX, "error_offset untouched on success");
}

#[test]
fn canonicalize_too_small_reports_needed_and_leaves_buffer() {
    let input = br#"{"b":1,"a":2}"#;
    let (st, len, off, out) = canon(input, 5);
    assert_eq!(st, contractpin_status::OutputTooSmall);
    assert_eq!(len, 13);
    assert_eq!(off, usize::MAX);
    assert!(out.iter().all(|&b| b == 0xAA), "buffer untouched");
    // Exactly the needed size works.
    let (st, len, _, out) = canon(input, 13);
    assert_eq!(st, contractpin_status::Ok);
    assert_eq!(&out[..len], br#"{"a":2,"b":1}"#);
}

#[test]
fn canonicalize_size_query_with_null_buffer() {
    let mut len = 0usize;
    // SAFETY: NULL buffer with capacity 0 is allowed.
    let st = unsafe {
        contractpin_canonicalize(
            b"[1]".as_ptr(),
            3,
            ptr::null_mut(),
            0,
            &mut len,
            ptr::null_mut(),
        )
    };
    assert_eq!(st, contractpin_status::OutputTooSmall);
    assert_eq!(len, 3);
}

#[test]
fn canonicalize_errors_and_offsets() {
    let cases: [(&[u8], contractpin_status, usize); 7] = [
        (b"{\"a\":1,}", contractpin_status::UnexpectedByte, 7),
        (b"", contractpin_status::UnexpectedEnd, 0),
        (b"[1] x", contractpin_status::TrailingData, 4),
        (b"{\"a\":1,\"a\":2}", contractpin_status::DuplicateKey, 7),
        (b"\xEF\xBB\xBF{}", contractpin_status::ByteOrderMark, 0),
        (b"[01]", contractpin_status::InvalidNumber, 1),
        (b"[1e400]", contractpin_status::NumberOutOfRange, 1),
    ];
    for (input, want, want_off) in cases {
        let (st, len, off, out) = canon(input, 64);
        assert_eq!(st, want, "{:?}", String::from_utf8_lossy(input));
        assert_eq!(off, want_off, "{:?}", String::from_utf8_lossy(input));
        assert_eq!(len, usize::MAX, "out_len untouched on input errors");
        assert!(out.iter().all(|&b| b == 0xAA));
    }
}

#[test]
fn null_and_zero_length_inputs() {
    let mut out = [0u8; 8];
    let mut len = 7usize;
    let mut off = 99usize;
    // SAFETY: NULL input with length 0 is the empty input.
    let st = unsafe {
        contractpin_canonicalize(ptr::null(), 0, out.as_mut_ptr(), 8, &mut len, &mut off)
    };
    assert_eq!(st, contractpin_status::UnexpectedEnd);
    assert_eq!((len, off), (7, 0));

    off = 99;
    // SAFETY: NULL with a non-zero length is rejected before any read.
    let st = unsafe {
        contractpin_canonicalize(ptr::null(), 5, out.as_mut_ptr(), 8, &mut len, &mut off)
    };
    assert_eq!(st, contractpin_status::NullArgument);
    assert_eq!((len, off), (7, 99), "nothing written");

    // SAFETY: out_len NULL is rejected.
    let st = unsafe {
        contractpin_canonicalize(
            b"1".as_ptr(),
            1,
            out.as_mut_ptr(),
            8,
            ptr::null_mut(),
            &mut off,
        )
    };
    assert_eq!(st, contractpin_status::NullArgument);

    // SAFETY: NULL out with a non-zero capacity is rejected.
    let st = unsafe {
        contractpin_canonicalize(b"1".as_ptr(), 1, ptr::null_mut(), 8, &mut len, &mut off)
    };
    assert_eq!(st, contractpin_status::NullArgument);

    // SAFETY: a length above PTRDIFF_MAX is rejected before any read.
    let st = unsafe {
        contractpin_canonicalize(
            b"1".as_ptr(),
            usize::MAX,
            out.as_mut_ptr(),
            8,
            &mut len,
            &mut off,
        )
    };
    assert_eq!(st, contractpin_status::InvalidArgument);

    // error_offset may be NULL.
    // SAFETY: valid buffers; NULL error_offset is allowed.
    let st = unsafe {
        contractpin_canonicalize(
            b"[".as_ptr(),
            1,
            out.as_mut_ptr(),
            8,
            &mut len,
            ptr::null_mut(),
        )
    };
    assert_eq!(st, contractpin_status::UnexpectedEnd);
}

#[test]
fn limits_apply() {
    let defaults = contractpin_limits_default();
    assert_eq!(defaults.max_depth, 256);
    assert_eq!(defaults.max_input, 64 << 20);
    assert_eq!(defaults.max_tools, 100_000);

    let mut limits = defaults;
    limits.max_depth = 2;
    let mut out = [0u8; 16];
    let mut len = 0;
    let mut off = 0;
    for (input, want) in [
        (&b"[[1]]"[..], contractpin_status::Ok),
        (b"[[[1]]]", contractpin_status::DepthLimit),
    ] {
        // SAFETY: valid buffers and limits.
        let st = unsafe {
            contractpin_canonicalize_with_limits(
                input.as_ptr(),
                input.len(),
                &limits,
                out.as_mut_ptr(),
                out.len(),
                &mut len,
                &mut off,
            )
        };
        assert_eq!(st, want);
    }
    assert_eq!(off, 2);

    let mut limits = defaults;
    limits.max_input = 3;
    // SAFETY: valid buffers and limits.
    let st = unsafe {
        contractpin_canonicalize_with_limits(
            b"[10]".as_ptr(),
            4,
            &limits,
            out.as_mut_ptr(),
            16,
            &mut len,
            &mut off,
        )
    };
    assert_eq!(st, contractpin_status::SizeLimit);

    let list = br#"[{"name":"a"},{"name":"b"}]"#;
    let mut limits = defaults;
    limits.max_tools = 1;
    let mut server = ptr::null_mut();
    // SAFETY: valid buffers and limits.
    let st = unsafe {
        contractpin_digest_tools_list_with_limits(
            list.as_ptr(),
            list.len(),
            &limits,
            &mut server,
            &mut off,
        )
    };
    assert_eq!(st, contractpin_status::ToolLimit);
    assert!(server.is_null());
}

#[test]
fn tool_digest_text_and_bytes() {
    let mut text = [0x55 as std::ffi::c_char; 80];
    let mut off = usize::MAX;
    // SAFETY: 80-byte buffer >= 72.
    let st =
        unsafe { contractpin_tool_digest(ECHO.as_ptr(), ECHO.len(), text.as_mut_ptr(), &mut off) };
    assert_eq!(st, contractpin_status::Ok);
    assert_eq!(text[71], 0, "NUL after 71 characters");
    assert_eq!(text[72], 0x55, "nothing past the NUL");
    assert_eq!(
        // SAFETY: NUL-terminated above.
        unsafe { CStr::from_ptr(text.as_ptr()) }.to_str().unwrap(),
        ECHO_DIGEST
    );
    assert_eq!(off, usize::MAX);

    let mut raw = [0u8; 32];
    // SAFETY: 32-byte buffer.
    let st = unsafe {
        contractpin_tool_digest_bytes(ECHO.as_ptr(), ECHO.len(), raw.as_mut_ptr(), ptr::null_mut())
    };
    assert_eq!(st, contractpin_status::Ok);
    assert_eq!(format!("sha256:{}", hex(&raw)), ECHO_DIGEST);

    let mut again = [0 as std::ffi::c_char; 72];
    // SAFETY: 32 readable bytes, 72 writable.
    let st = unsafe { contractpin_digest_to_text(raw.as_ptr(), again.as_mut_ptr()) };
    assert_eq!(st, contractpin_status::Ok);
    assert_eq!(
        // SAFETY: NUL-terminated.
        unsafe { CStr::from_ptr(again.as_ptr()) }.to_str().unwrap(),
        ECHO_DIGEST
    );
    assert_eq!(
        // SAFETY: NULLs are rejected.
        unsafe { contractpin_digest_to_text(ptr::null(), again.as_mut_ptr()) },
        contractpin_status::NullArgument
    );
    assert_eq!(
        // SAFETY: NULLs are rejected.
        unsafe { contractpin_digest_to_text(raw.as_ptr(), ptr::null_mut()) },
        contractpin_status::NullArgument
    );
}

#[test]
fn tool_digest_errors_write_nothing() {
    let mut raw = [7u8; 32];
    let mut off = usize::MAX;
    for (input, want, want_off) in [
        (&b"[1]"[..], contractpin_status::ToolNotObject, 0),
        (b"{\"name\":1}", contractpin_status::NameNotString, 8),
        (b"{\"name\":\"a\"", contractpin_status::UnexpectedEnd, 11),
    ] {
        // SAFETY: valid buffers.
        let st = unsafe {
            contractpin_tool_digest_bytes(input.as_ptr(), input.len(), raw.as_mut_ptr(), &mut off)
        };
        assert_eq!(st, want, "{:?}", String::from_utf8_lossy(input));
        assert_eq!(off, want_off, "{:?}", String::from_utf8_lossy(input));
        assert_eq!(raw, [7u8; 32]);
    }
    // SAFETY: NULL output is rejected.
    let st = unsafe {
        contractpin_tool_digest(ECHO.as_ptr(), ECHO.len(), ptr::null_mut(), ptr::null_mut())
    };
    assert_eq!(st, contractpin_status::NullArgument);
}

#[test]
fn tool_contract_bytes() {
    let mut out = vec![0u8; 256];
    let mut len = 0;
    // SAFETY: valid buffers.
    let st = unsafe {
        contractpin_tool_contract(
            ECHO.as_ptr(),
            ECHO.len(),
            out.as_mut_ptr(),
            out.len(),
            &mut len,
            ptr::null_mut(),
        )
    };
    assert_eq!(st, contractpin_status::Ok);
    assert_eq!(&out[..len], ECHO_CONTRACT);
}

#[test]
fn sha256_streaming() {
    let mut state = contractpin_sha256::default();
    let mut out = [0u8; 32];
    // Never initialised: refused, nothing written.
    // SAFETY: valid state and buffers.
    unsafe {
        assert_eq!(
            contractpin_sha256_update(&mut state, b"a".as_ptr(), 1),
            contractpin_status::InvalidArgument
        );
        assert_eq!(
            contractpin_sha256_final(&mut state, out.as_mut_ptr()),
            contractpin_status::InvalidArgument
        );
        assert_eq!(out, [0; 32]);
        assert_eq!(contractpin_sha256_init(&mut state), contractpin_status::Ok);
        assert_eq!(
            contractpin_sha256_update(&mut state, b"a".as_ptr(), 1),
            contractpin_status::Ok
        );
        assert_eq!(
            contractpin_sha256_update(&mut state, ptr::null(), 0),
            contractpin_status::Ok
        );
        // A byte copy forks the state.
        let mut fork = state;
        assert_eq!(
            contractpin_sha256_update(&mut state, b"bc".as_ptr(), 2),
            contractpin_status::Ok
        );
        assert_eq!(
            contractpin_sha256_final(&mut state, out.as_mut_ptr()),
            contractpin_status::Ok
        );
        assert_eq!(hex(&out), SHA_ABC);
        // final resets: the next digest is of the empty message.
        assert_eq!(
            contractpin_sha256_final(&mut state, out.as_mut_ptr()),
            contractpin_status::Ok
        );
        assert_eq!(hex(&out), SHA_EMPTY);
        assert_eq!(
            contractpin_sha256_update(&mut fork, b"bc".as_ptr(), 2),
            contractpin_status::Ok
        );
        assert_eq!(
            contractpin_sha256_final(&mut fork, out.as_mut_ptr()),
            contractpin_status::Ok
        );
        assert_eq!(hex(&out), SHA_ABC);
        assert_eq!(
            contractpin_sha256_update(&mut state, ptr::null(), 1),
            contractpin_status::NullArgument
        );
        assert_eq!(
            contractpin_sha256_init(ptr::null_mut()),
            contractpin_status::NullArgument
        );
        assert_eq!(
            contractpin_sha256_update(ptr::null_mut(), b"a".as_ptr(), 1),
            contractpin_status::NullArgument
        );
        assert_eq!(
            contractpin_sha256_final(&mut state, ptr::null_mut()),
            contractpin_status::NullArgument
        );
        assert_eq!(
            contractpin_sha256_digest(b"abc".as_ptr(), 3, out.as_mut_ptr()),
            contractpin_status::Ok
        );
        assert_eq!(hex(&out), SHA_ABC);
        assert_eq!(
            contractpin_sha256_digest(ptr::null(), 0, out.as_mut_ptr()),
            contractpin_status::Ok
        );
        assert_eq!(hex(&out), SHA_EMPTY);
    }
    assert_eq!(
        std::mem::size_of::<contractpin_sha256>(),
        CONTRACTPIN_SHA256_STATE_SIZE
    );
    assert_eq!(std::mem::align_of::<contractpin_sha256>(), 8);
    assert!(["sha-ni", "portable"].contains(&cstr(contractpin_sha256_backend())));
}

#[test]
#[cfg_attr(miri, ignore = "one million bytes is too slow under Miri")]
fn sha256_long_message_in_odd_pieces() {
    // One million 'a' (FIPS 180-4), fed in pieces of 1..=97 bytes.
    let data = vec![b'a'; 1_000_000];
    let mut state = contractpin_sha256::default();
    let mut out = [0u8; 32];
    // SAFETY: valid state and buffers.
    unsafe {
        assert_eq!(contractpin_sha256_init(&mut state), contractpin_status::Ok);
        let (mut at, mut step) = (0, 1);
        while at < data.len() {
            let n = step.min(data.len() - at);
            assert_eq!(
                contractpin_sha256_update(&mut state, data[at..].as_ptr(), n),
                contractpin_status::Ok
            );
            at += n;
            step = step % 97 + 1;
        }
        assert_eq!(
            contractpin_sha256_final(&mut state, out.as_mut_ptr()),
            contractpin_status::Ok
        );
    }
    assert_eq!(
        hex(&out),
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    );
}

// ------------------------------------------------------------------ sha256 state checks

/// The 128 bytes of a state.
fn state_bytes(state: &contractpin_sha256) -> [u8; 128] {
    // SAFETY: a state is 128 bytes; every byte has been written (zeroed by
    // `default`, or written by the library).
    unsafe { ptr::read((state as *const contractpin_sha256).cast::<[u8; 128]>()) }
}

/// A state holding exactly `bytes`.
fn state_of(bytes: &[u8; 128]) -> contractpin_sha256 {
    let mut state = contractpin_sha256::default();
    // SAFETY: both are 128 bytes; the state is a local.
    unsafe {
        ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            (&mut state as *mut contractpin_sha256).cast(),
            128,
        )
    };
    state
}

/// An initialised state that has absorbed `message`.
fn live_state(message: &[u8]) -> contractpin_sha256 {
    let mut state = contractpin_sha256::default();
    // SAFETY: valid state and input.
    unsafe {
        assert_eq!(contractpin_sha256_init(&mut state), contractpin_status::Ok);
        assert_eq!(
            contractpin_sha256_update(&mut state, message.as_ptr(), message.len()),
            contractpin_status::Ok
        );
    }
    state
}

/// Feeds `b"tail"` to the state, then finalises it: the statuses and the
/// digest (`None` when refused, in which case nothing was changed: the state
/// keeps its bytes, `out` is not written).
fn update_then_final(state: &mut contractpin_sha256) -> Option<[u8; 32]> {
    let before = state_bytes(state);
    let mut out = [0x11u8; 32];
    // SAFETY: valid state and buffers.
    let (updated, finalised) = unsafe {
        (
            contractpin_sha256_update(state, b"tail".as_ptr(), 4),
            contractpin_sha256_final(state, out.as_mut_ptr()),
        )
    };
    match (updated, finalised) {
        (contractpin_status::Ok, contractpin_status::Ok) => Some(out),
        (contractpin_status::InvalidArgument, contractpin_status::InvalidArgument) => {
            assert_eq!(state_bytes(state), before, "a refused state was changed");
            assert_eq!(out, [0x11; 32], "a refused final wrote its output");
            None
        }
        other => panic!("update/final statuses {other:?}"),
    }
}

fn message(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(37) ^ 0xa5).collect()
}

fn expected_digest(message: &[u8]) -> [u8; 32] {
    let mut whole = message.to_vec();
    whole.extend_from_slice(b"tail");
    contractpin::sha256::digest(&whole)
}

/// Any change to one byte of a live state, at any offset and to any value
/// tried, is refused by update and by final (the check word catches every
/// change confined to one 8-byte word), and a refused call changes nothing.
#[test]
fn sha256_every_overwritten_byte_is_refused() {
    let lengths: &[usize] = if cfg!(miri) {
        &[3, 64]
    } else {
        &[0, 1, 3, 55, 56, 63, 64, 65, 200]
    };
    for &n in lengths {
        let m = message(n);
        let live = live_state(&m);
        assert_eq!(
            update_then_final(&mut live.clone()),
            Some(expected_digest(&m))
        );
        let bytes = state_bytes(&live);
        for offset in 0..128 {
            let was = bytes[offset];
            let values = [
                0x00,
                0xff,
                was ^ 0x01,
                was ^ 0x80,
                was ^ 0x10,
                was.wrapping_add(1),
            ];
            // Miri: every offset still, three values each.
            for &value in &values[..if cfg!(miri) { 3 } else { values.len() }] {
                if value == was {
                    continue;
                }
                let mut bad = bytes;
                bad[offset] = value;
                assert_eq!(
                    update_then_final(&mut state_of(&bad)),
                    None,
                    "length {n}: byte {offset} {was:#04x} -> {value:#04x} accepted"
                );
            }
        }
    }
}

/// Whole words and random runs of bytes overwritten: refused, or (when the
/// bytes written happen to be the ones already there) the correct digest;
/// never a wrong digest with `OK`.
#[test]
fn sha256_overwritten_words_and_runs_are_refused() {
    let m = message(70);
    let live = live_state(&m);
    let bytes = state_bytes(&live);
    let good = expected_digest(&m);
    let check = |bad: [u8; 128], what: &str| {
        let got = update_then_final(&mut state_of(&bad));
        assert!(
            got.is_none() || (bad == bytes && got == Some(good)),
            "{what}: a changed state gave a digest"
        );
    };
    for fill in [0x00u8, 0xff, 0x5a] {
        check([fill; 128], &format!("every byte {fill:#04x}"));
        for word in 0..16 {
            let mut bad = bytes;
            bad[word * 8..word * 8 + 8].fill(fill);
            check(bad, &format!("word {word} = {fill:#04x}"));
        }
    }
    // Runs of random bytes at random offsets (xorshift64*, fixed seed).
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let rounds = if cfg!(miri) { 40 } else { 20_000 };
    for round in 0..rounds {
        let mut bad = bytes;
        let start = (next() % 128) as usize;
        let len = 1 + (next() % (128 - start as u64)) as usize;
        for b in &mut bad[start..start + len] {
            *b = next() as u8;
        }
        let got = update_then_final(&mut state_of(&bad));
        assert!(
            got.is_none() || (bad == bytes && got == Some(good)),
            "round {round}: bytes {start}..{} overwritten and accepted",
            start + len
        );
    }
}

/// `data` may point into the state itself, and `out` may overlap it: no
/// aliasing problem (Miri checks), the right digest, and a state overwritten
/// by its own digest is refused afterwards.
#[test]
fn sha256_state_overlapping_its_arguments() {
    let mut state = live_state(b"abc");
    let own = state_bytes(&state);
    let p: *mut contractpin_sha256 = &mut state;
    let mut out = [0u8; 32];
    // SAFETY: `p` is a valid state; `data` and `out` point into it, which
    // the functions allow.
    unsafe {
        assert_eq!(
            contractpin_sha256_update(p, p.cast::<u8>().cast_const(), 128),
            contractpin_status::Ok
        );
        assert_eq!(
            contractpin_sha256_final(p, out.as_mut_ptr()),
            contractpin_status::Ok
        );
        let mut whole = b"abc".to_vec();
        whole.extend_from_slice(&own);
        assert_eq!(out, contractpin::sha256::digest(&whole));
        assert_eq!(
            contractpin_sha256_final(p, p.cast::<u8>()),
            contractpin_status::Ok
        );
        let mut after = [0u8; 32];
        assert_eq!(
            contractpin_sha256_final(p, after.as_mut_ptr()),
            contractpin_status::InvalidArgument
        );
    }
    assert_eq!(
        state_bytes(&state)[..32],
        contractpin::sha256::digest(b"")[..]
    );
}

/// A state pointer not aligned like `uint64_t` is refused before anything
/// is read or written.
#[test]
fn sha256_misaligned_state_is_refused() {
    let mut buf = [0u64; 17];
    let p = buf
        .as_mut_ptr()
        .cast::<u8>()
        .wrapping_add(4)
        .cast::<contractpin_sha256>();
    let mut out = [0u8; 32];
    // SAFETY: `p` points to 128 writable bytes inside `buf` (misaligned on
    // purpose: the functions check alignment before any access).
    unsafe {
        assert_eq!(
            contractpin_sha256_init(p),
            contractpin_status::InvalidArgument
        );
        assert_eq!(
            contractpin_sha256_update(p, b"a".as_ptr(), 1),
            contractpin_status::InvalidArgument
        );
        assert_eq!(
            contractpin_sha256_final(p, out.as_mut_ptr()),
            contractpin_status::InvalidArgument
        );
    }
    assert_eq!(buf, [0; 17]);
    assert_eq!(out, [0; 32]);
}

#[test]
fn field_names() {
    let names = [
        "annotations",
        "description",
        "inputSchema",
        "name",
        "outputSchema",
    ];
    for (i, n) in names.iter().enumerate() {
        assert_eq!(cstr(contractpin_field_name(i as u32)), *n);
    }
    assert!(contractpin_field_name(CONTRACTPIN_FIELD_COUNT).is_null());
    assert!(contractpin_field_name(u32::MAX).is_null());
    assert_eq!(contractpin_field::InputSchema as u32, 2);
}
