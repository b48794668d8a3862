//! The hardening invariants, shared by the seeded property tests
//! (`tests/properties.rs`, stable toolchain, normal `cargo test`) and the
//! cargo-fuzz targets (`fuzz/fuzz_targets/*.rs`): ONE copy, included with
//! `#[path]` from both. Each `check_*` takes arbitrary bytes and panics with
//! a description when an invariant fails; it must never hang.
//!
//! The including crate must also declare `mod reference_jcs;` (from
//! `tests/support/reference_jcs.rs`) at its root.
//!
//! Invariants:
//!
//! - parser: no panic; an error has an offset inside the input; an accepted
//!   document's canonical form is valid UTF-8 and a fixed point
//!   (`canon(canon(x)) == canon(x)`); the caller-scratch entry point and a
//!   reused [`Context`] agree with the one-shot call; `scratch_needed` is
//!   exact for accepted documents;
//! - canonical writer: differential against `reference_jcs` (same bytes, or
//!   the same error kind);
//! - numbers: `format_f64` output reads back as the same double (`-0` as
//!   `0`), matches the reference, is its own canonical form, and every other
//!   spelling of the same double canonicalizes to it;
//! - the C ABI: random buffers, lengths, NULLs and indexes give the
//!   documented statuses, write outputs only as documented, and agree with
//!   the Rust API;
//! - lock reader: no panic; what it accepts survives `to_pretty` -> `parse`
//!   unchanged, and the pretty form is stable;
//! - tools/list reader: differential against the reference (server digest,
//!   tool digests, field digests, or the same error kind), and accepted
//!   documents give the same digests in every equivalent shape.
#![allow(dead_code)]

use contractpin::json::{self, Node};
use contractpin::{ErrorKind, Limits, ListOptions};

use crate::reference_jcs as reference;

// ------------------------------------------------------------------ helpers

/// The seeded generator (SplitMix64), from its one home next to this file.
#[path = "rng.rs"]
mod rng;
#[allow(unused_imports)] // for gen.rs; not every includer uses it
pub use rng::Rng;

/// A parsed `contractpin_lock` freed on drop, from its one home next to
/// this file (the C ABI guard tests use it too).
#[cfg(feature = "ffi")]
#[path = "ffi_lock.rs"]
mod ffi_lock;

/// Reads fuzz bytes as a stream of small decisions (zeros when exhausted).
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    /// Wraps `data`.
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data }
    }
    /// One byte.
    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }
    /// A little-endian u32.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    /// A little-endian u64.
    pub fn u64(&mut self) -> u64 {
        (self.u32() as u64) | ((self.u32() as u64) << 32)
    }
    /// Up to `n` bytes.
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.data.len());
        let (head, rest) = self.data.split_at(n);
        self.data = rest;
        head
    }
    /// A length-prefixed (u16) chunk.
    pub fn chunk(&mut self) -> &'a [u8] {
        let n = u16::from_le_bytes([self.u8(), self.u8()]) as usize;
        self.take(n)
    }
    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        core::mem::take(&mut self.data)
    }
}

fn ref_limits(l: &Limits) -> reference::RefLimits {
    reference::RefLimits {
        max_depth: l.max_depth as usize,
        max_input: l.max_input.min(contractpin::MAX_INPUT),
        max_tools: l.max_tools,
    }
}

fn show(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if text.chars().count() > 400 {
        let head: String = text.chars().take(400).collect();
        format!("{head:?}... ({} bytes)", bytes.len())
    } else {
        format!("{text:?}")
    }
}

std::thread_local! {
    /// A context reused across calls, to catch state leaking between calls.
    static CONTEXT: std::cell::RefCell<contractpin::Context> =
        std::cell::RefCell::new(contractpin::Context::new());
}

// ------------------------------------------------------------------ parser

/// Parser invariants on arbitrary bytes (default limits).
pub fn check_parser(input: &[u8]) {
    let one_shot = contractpin::canonicalize(input);
    let reused = CONTEXT.with(|c| {
        let mut c = c.borrow_mut();
        c.set_limits(Limits::DEFAULT);
        c.canonicalize(input).map(<[u8]>::to_vec)
    });
    assert_eq!(
        one_shot,
        reused,
        "reused Context differs on {}",
        show(input)
    );

    // The allocation-free entry point with exactly `scratch_needed` nodes.
    let needed = json::scratch_needed(input);
    let mut scratch = vec![Node::EMPTY; needed];
    let mut out = vec![0u8; one_shot.as_ref().map_or(0, Vec::len)];
    let with = contractpin::canonicalize_into(input, &mut scratch, &Limits::DEFAULT, &mut out)
        .map(|n| out[..n].to_vec());
    assert_eq!(
        one_shot,
        with,
        "canonicalize_into differs on {}",
        show(input)
    );

    match one_shot {
        Err(e) => {
            assert!(
                e.offset() <= input.len(),
                "{e} beyond the input ({} bytes): {}",
                input.len(),
                show(input)
            );
            assert!(!matches!(
                e.kind(),
                ErrorKind::ScratchTooSmall | ErrorKind::OutputTooSmall
            ));
            let text = e.to_string();
            assert!(text.starts_with(e.kind().name()), "{text}");
        }
        Ok(canonical) => {
            assert!(
                std::str::from_utf8(&canonical).is_ok(),
                "canonical output is not UTF-8: {}",
                show(input)
            );
            let again = contractpin::canonicalize(&canonical).unwrap_or_else(|e| {
                panic!("canonical output rejected ({e}): {}", show(&canonical))
            });
            assert_eq!(
                again,
                canonical,
                "canon(canon(x)) != canon(x) for {}",
                show(input)
            );
            // scratch_needed is exact for valid JSON: one node less must fail.
            let mut short = vec![Node::EMPTY; needed - 1];
            let mut big = vec![0u8; canonical.len()];
            match contractpin::canonicalize_into(input, &mut short, &Limits::DEFAULT, &mut big) {
                Err(e) if e.kind() == ErrorKind::ScratchTooSmall => {
                    assert!(e.needed() >= needed, "needed {} < {needed}", e.needed())
                }
                other => panic!(
                    "{} nodes (scratch_needed - 1) gave {other:?} for {}",
                    needed - 1,
                    show(input)
                ),
            }
            // Output one byte short: output-too-small with the exact size.
            if !canonical.is_empty() {
                let mut small = vec![0u8; canonical.len() - 1];
                let e = contractpin::canonicalize_into(
                    input,
                    &mut scratch,
                    &Limits::DEFAULT,
                    &mut small,
                )
                .unwrap_err();
                assert_eq!(
                    (e.kind(), e.needed()),
                    (ErrorKind::OutputTooSmall, canonical.len())
                );
            }
        }
    }
}

// ------------------------------------------------------------------ writer

/// Differential: the library against the reference canonicalizer.
pub fn check_writer(input: &[u8], limits: Limits) {
    let lib = CONTEXT.with(|c| {
        let mut c = c.borrow_mut();
        c.set_limits(limits);
        c.canonicalize(input).map(<[u8]>::to_vec)
    });
    let refr = reference::canonicalize(input, &ref_limits(&limits));
    same_as_the_tape(input, &lib, |scratch, out| {
        contractpin::canonicalize_into(input, scratch, &limits, out).map(|n| out[..n].to_vec())
    });
    match (&lib, &refr) {
        (Ok(a), Ok(b)) => assert!(
            a == b.as_bytes(),
            "canonical bytes differ for {}\n library:   {}\n reference: {}",
            show(input),
            show(a),
            show(b.as_bytes())
        ),
        (Err(a), Err(b)) => assert_eq!(
            a.kind().name(),
            b.0,
            "error kinds differ for {} (library: {a})",
            show(input)
        ),
        _ => panic!(
            "library and reference disagree on {} with {limits:?}\n library:   {:?}\n reference: {:?}",
            show(input),
            lib.map(|b| String::from_utf8_lossy(&b).into_owned()),
            refr
        ),
    }
}

/// The reused `Context` (whose one-pass route collapses most containers)
/// against the caller-scratch API (the plain tape): the same result,
/// errors included, kind and offset.
fn same_as_the_tape<T: PartialEq + std::fmt::Debug>(
    input: &[u8],
    context: &Result<T, contractpin::Error>,
    tape: impl FnOnce(&mut [Node], &mut [u8]) -> Result<T, contractpin::Error>,
) {
    let mut scratch = vec![Node::EMPTY; json::scratch_needed(input)];
    // Canonical text is at most about 5.3 times its input (`1e20`).
    let mut out = vec![0u8; input.len() * 6 + 64];
    let plain = tape(&mut scratch, &mut out);
    match (context, &plain) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "context and tape differ on {}", show(input)),
        (Err(a), Err(b)) => assert_eq!(
            (a.kind(), a.offset()),
            (b.kind(), b.offset()),
            "context and tape fail differently on {}",
            show(input)
        ),
        _ => panic!(
            "context and tape disagree on {}: {context:?} against {plain:?}",
            show(input)
        ),
    }
}

// ------------------------------------------------------------------ numbers

/// Number formatting invariants for one bit pattern.
pub fn check_number(bits: u64) {
    use contractpin::number::{format_f64, shortest_digits, MAX_LEN};
    let x = f64::from_bits(bits);
    let mut buf = [0u8; MAX_LEN];
    let Some(n) = format_f64(x, &mut buf) else {
        assert!(!x.is_finite(), "format_f64({x:e}) gave None");
        assert_eq!(reference::es_number(x), None);
        return;
    };
    assert!(x.is_finite(), "format_f64 formatted {bits:#x}");
    assert!(n <= MAX_LEN);
    let text = std::str::from_utf8(&buf[..n]).expect("ASCII");
    // Round trip: reads back as the same double (-0 is written as 0).
    let back: f64 = text
        .parse()
        .unwrap_or_else(|_| panic!("unparsable {text:?}"));
    let want = if x == 0.0 { 0.0f64.to_bits() } else { bits };
    assert_eq!(
        back.to_bits(),
        want,
        "{text:?} does not read back as {bits:#018x}"
    );
    // The reference layout of Rust's shortest digits.
    let expected = reference::es_number(x).unwrap();
    assert_eq!(text, expected, "format_f64({bits:#018x})");
    // shortest_digits agrees with the text: s × 10^(n−k).
    let (d, e, k) = shortest_digits(x);
    let digits: String = expected
        .trim_start_matches('-')
        .split('e')
        .next()
        .unwrap()
        .chars()
        .filter(char::is_ascii_digit)
        .collect::<String>();
    let digits = digits.trim_start_matches('0').trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    assert_eq!(
        d.to_string(),
        digits,
        "shortest_digits({x:e}) = ({d}, {e}, {k})"
    );
    assert_eq!(k, digits.len());
    if x != 0.0 {
        let sci = format!("{:e}", x.abs());
        let exp: i32 = sci.split_once('e').unwrap().1.parse().unwrap();
        assert_eq!(e, exp + 1, "shortest_digits({x:e}) exponent");
    }
    // The output is its own canonical form, and any other spelling of the
    // same double canonicalizes to it.
    let canonical = |s: &str| {
        contractpin::canonicalize(s.as_bytes()).unwrap_or_else(|e| panic!("{s:?} rejected: {e}"))
    };
    assert_eq!(canonical(text), text.as_bytes());
    // The shortest digits with zeros after them (the digits route of
    // `number::format_token` where they are few).
    let (mantissa, exp) = format!("{x:e}")
        .split_once('e')
        .map(|(m, e)| (m.to_string(), e.to_string()))
        .unwrap();
    let point = if mantissa.contains('.') { "" } else { "." };
    for spelling in [
        format!("{x:e}"),
        format!("{mantissa}{point}000e{exp}"),
        format!("{x:.16e}"),
        format!("{x:.18e}"),
        format!("{x:.20e}"),
        format!("{x:E}"),
        format!("{x}"),
        format!("[{x:.25e} ]"),
    ] {
        let got = canonical(&spelling);
        let want = if spelling.starts_with('[') {
            format!("[{text}]").into_bytes()
        } else {
            text.as_bytes().to_vec()
        };
        assert_eq!(got, want, "{spelling:?} canonicalized to {}", show(&got));
    }
}

// ------------------------------------------------------------------ lock reader

/// Lock reader invariants on arbitrary bytes.
#[cfg(feature = "alloc")]
pub fn check_lock(input: &[u8]) {
    use contractpin::lock::Lock;
    let parsed = Lock::parse(input);
    match parsed {
        Err(e) => {
            let _ = (
                e.to_string(),
                e.kind(),
                e.path(),
                e.detail(),
                e.json_error(),
            );
            if let Some(j) = e.json_error() {
                assert!(j.offset() <= input.len(), "{e}");
            }
        }
        Ok(lock) => {
            // Anything the strict JSON parser rejects, the lock reader rejects.
            assert!(
                contractpin::canonicalize(input).is_ok(),
                "lock reader accepted invalid JSON: {}",
                show(input)
            );
            for (name, server) in &lock.servers {
                assert_eq!(server.tool_count, server.tools.len(), "{name}");
                assert_eq!(server.computed_digest(), server.digest, "{name}");
                assert!(server.source().is_some(), "{name}: no source");
            }
            let pretty = lock.to_pretty();
            let again = Lock::parse(&pretty).unwrap_or_else(|e| {
                panic!(
                    "pretty form rejected ({e}):\n{}",
                    String::from_utf8_lossy(&pretty)
                )
            });
            assert_eq!(again, lock, "lock changed through to_pretty/parse");
            assert_eq!(again.to_pretty(), pretty, "pretty form is not stable");
            assert!(pretty.ends_with(b"}\n") && !pretty.contains(&b'\r'));
        }
    }
}

// ------------------------------------------------------------------ tools/list reader

fn sha256(bytes: &[u8]) -> [u8; 32] {
    contractpin::sha256::digest(bytes)
}

/// tools/list invariants: differential against the reference, and shape
/// independence of accepted documents.
#[cfg(feature = "alloc")]
pub fn check_tools_list(input: &[u8], limits: Limits) {
    let lib = CONTEXT.with(|c| {
        let mut c = c.borrow_mut();
        c.set_limits(limits);
        c.digest_tools_list_owned(
            input,
            ListOptions {
                field_digests: true,
            },
        )
    });
    let refr = reference::tools_list(input, &ref_limits(&limits), sha256);
    let tools_of = |s: &contractpin::ServerDigest| {
        let tools = s.tools.iter().map(|t| (t.name.clone(), t.digest, t.fields));
        (s.digest, tools.collect::<Vec<_>>())
    };
    same_as_the_tape(
        input,
        &lib.as_ref().map(tools_of).map_err(|e| *e),
        |scratch, _| {
            let mut tools = Vec::new();
            let options = ListOptions {
                field_digests: true,
            };
            let summary =
                contractpin::digest_tools_list_with(input, scratch, &limits, options, |t| {
                    tools.push((t.name.to_owned_string(), t.digest, t.fields))
                })?;
            Ok((summary.digest, tools))
        },
    );
    let (lib, (_, ref_digest, ref_tools)) = match (lib, refr) {
        (Err(a), Err(b)) => {
            assert_eq!(
                a.kind().name(),
                b.0,
                "error kinds differ for {} (library: {a})",
                show(input)
            );
            assert!(a.offset() <= input.len(), "{a}");
            return;
        }
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => panic!(
            "library and reference disagree on {} with {limits:?}\n library:   {:?}\n reference: {:?}",
            show(input),
            a.map(|s| s.digest.to_string()),
            b.map(|r| r.1)
        ),
    };
    assert_eq!(
        lib.digest.to_string(),
        ref_digest,
        "server digest of {}",
        show(input)
    );
    assert_eq!(lib.tools.len(), ref_tools.len());
    for (l, r) in lib.tools.iter().zip(&ref_tools) {
        assert_eq!(l.name, r.name, "tool order of {}", show(input));
        assert_eq!(l.digest.to_string(), r.digest, "tool {:?}", r.name);
        let fields: Vec<(&str, String)> = l
            .fields
            .iter()
            .map(|(f, d)| (f.name(), d.to_string()))
            .collect();
        assert_eq!(fields, r.fields, "field digests of {:?}", r.name);
        // The contract of one tool, through the single-tool entry points.
        let contract = contractpin::tool_contract(r.contract.as_bytes()).unwrap();
        assert_eq!(
            contract,
            r.contract.as_bytes(),
            "tool_contract is not idempotent"
        );
        assert_eq!(
            contractpin::tool_digest(r.contract.as_bytes()).unwrap(),
            l.digest
        );
    }
    // Without field digests: same server digest; allocation-free: same too.
    let (plain, count) = contractpin::Context::with_limits(limits)
        .digest_tools_list(input, ListOptions::default(), |_| {})
        .unwrap();
    assert_eq!((plain, count), (lib.digest, lib.tools.len()));
    let mut scratch = vec![Node::EMPTY; json::scratch_needed(input)];
    let summary = contractpin::digest_tools_list_with(
        input,
        &mut scratch,
        &limits,
        ListOptions::default(),
        |_| {},
    )
    .unwrap();
    assert_eq!(summary.digest, lib.digest);

    // Shape independence (SPEC.md 6): wrap the same document in the other
    // shapes; the wrappers may add up to three nesting levels.
    let doc = reference::parse(input, &ref_limits(&limits)).unwrap();
    let wide = Limits {
        max_depth: limits.max_depth.saturating_add(3),
        max_input: usize::MAX,
        ..limits
    };
    let mut variants: Vec<Vec<u8>> = Vec::new();
    let cat = |parts: &[&[u8]]| parts.concat();
    let is_page = |v: &reference::RefValue| {
        matches!(v, reference::RefValue::Object(_))
            && v.get("name").is_none()
            && ["tools", "result", "error"]
                .iter()
                .any(|k| v.get(k).is_some())
    };
    match &doc {
        reference::RefValue::Object(_) if doc.get("result").is_none() => {
            variants.push(cat(&[
                b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":",
                input,
                b"}",
            ]));
            if doc.get("name").is_none() {
                variants.push(cat(&[b"[", input, b"]"]));
                variants.push(cat(&[b"[", input, b",{\"tools\":[]}]"]));
            }
        }
        reference::RefValue::Object(_) => {
            variants.push(cat(&[b"[{\"tools\":[]},", input, b"]"]));
        }
        reference::RefValue::Array(items) if items.is_empty() || !is_page(&items[0]) => {
            variants.push(cat(&[b"{\"tools\":", input, b"}"]));
            variants.push(cat(&[b"[{\"result\":{\"tools\":", input, b"}}]"]));
        }
        _ => {}
    }
    for v in variants {
        let got = contractpin::Context::with_limits(wide)
            .digest_tools_list(&v, ListOptions::default(), |_| {})
            .unwrap_or_else(|e| panic!("{e} for the reshaped {}", show(&v)));
        assert_eq!(
            got.0,
            lib.digest,
            "reshaped {} digests differently",
            show(&v)
        );
    }
}

// ------------------------------------------------------------------ C ABI

#[cfg(feature = "ffi")]
#[allow(unused_imports)]
pub use ffi_checks::check_ffi;

#[cfg(feature = "ffi")]
mod ffi_checks {
    use super::ffi_lock::Lock;
    use super::{show, Bytes};
    use contractpin::ffi::*;
    use contractpin::guard::{
        guard_instructions as guard_instructions_rs, guard_page, GuardDecision, GuardMode,
        InstructionsDecision,
    };
    use contractpin::{Context, Limits, ListOptions};
    use core::ptr;
    use std::ffi::CStr;

    const SENTINEL: u8 = 0xA5;
    const OFFSET_SENTINEL: usize = usize::MAX - 7;
    const EXAMPLE_LOCK: &[u8] = include_bytes!("../../examples/contractpin.lock");
    const EXAMPLE_LIST: &[u8] = include_bytes!("../../examples/tools-list.json");
    const DRIFTED_LIST: &[u8] = include_bytes!("../../examples/drifted-tools-list.json");
    const INSTRUCTIONS_LOCK: &[u8] = include_bytes!("../../bindings/c/testdata/instructions.lock");
    const INITIALIZE: &[u8] = include_bytes!("../../bindings/c/testdata/initialize.json");
    const INITIALIZE_DRIFTED: &[u8] =
        include_bytes!("../../bindings/c/testdata/initialize-drifted.json");
    /// A valid tools/list (other tools than INSTRUCTIONS_LOCK pins: removed
    /// and added ones).
    const VALID_TOOLS: &[u8] = include_bytes!("../../bindings/c/testdata/tools-page.json");

    fn code(s: contractpin_status) -> u32 {
        s as u32
    }

    /// An input buffer as the ABI sees it: a pointer (maybe NULL) and a length.
    struct In<'a> {
        ptr: *const u8,
        len: usize,
        /// The bytes the library may read (None: the call must be refused).
        bytes: Option<&'a [u8]>,
    }

    fn input<'a>(b: &mut Bytes<'_>, data: &'a [u8]) -> In<'a> {
        match b.u8() % 8 {
            // NULL with length 0: the empty input.
            0 => In {
                ptr: ptr::null(),
                len: 0,
                bytes: Some(&[]),
            },
            // NULL with a non-zero length: NULL_ARGUMENT.
            1 => In {
                ptr: ptr::null(),
                len: (b.u32() as usize).max(1),
                bytes: None,
            },
            // A prefix of the data.
            2 => {
                let n = if data.is_empty() {
                    0
                } else {
                    b.u32() as usize % (data.len() + 1)
                };
                In {
                    ptr: data.as_ptr(),
                    len: n,
                    bytes: Some(&data[..n]),
                }
            }
            // A dangling-but-aligned pointer with length 0: the empty input.
            3 => In {
                ptr: ptr::NonNull::<u8>::dangling().as_ptr(),
                len: 0,
                bytes: Some(&[]),
            },
            _ => In {
                ptr: data.as_ptr(),
                len: data.len(),
                bytes: Some(data),
            },
        }
    }

    fn limits(b: &mut Bytes<'_>) -> (Option<contractpin_limits>, Limits) {
        if !b.u8().is_multiple_of(4) {
            return (None, Limits::DEFAULT);
        }
        let l = contractpin_limits {
            max_depth: b.u8() as u32 % 40,
            max_input: match b.u8() % 3 {
                0 => b.u32() as usize % 4096,
                1 => usize::MAX,
                _ => 64 << 20,
            },
            max_tools: b.u8() as usize % 8,
        };
        (Some(l), Limits::from(l))
    }

    /// The `limits` argument of a call: NULL (the defaults) or the given ones.
    fn limits_ptr(lim: &Option<contractpin_limits>) -> *const contractpin_limits {
        lim.as_ref()
            .map_or(ptr::null(), |l| l as *const contractpin_limits)
    }

    fn opt_ptr<T>(v: &mut Option<T>) -> *mut T {
        v.as_mut().map_or(ptr::null_mut(), |r| r as *mut T)
    }

    fn expect_status(got: contractpin_status, want: u32, what: &str, data: &[u8]) {
        assert_eq!(code(got), want, "{what}: status {got:?} for {}", show(data));
    }

    /// Random calls of the C ABI, each checked against the Rust API.
    pub fn check_ffi(data: &[u8]) {
        let mut b = Bytes::new(data);
        let op = b.u8();
        let params = b.take(24).to_vec();
        let payload = b.rest();
        let mut b = Bytes::new(&params);
        match op % 13 {
            0 => canonicalize(&mut b, payload),
            1 => tool_contract(&mut b, payload),
            2 => tool_digest(&mut b, payload),
            3 => server(&mut b, payload),
            4 => sha256(&mut b, payload),
            5 => statics(&mut b, payload),
            6 => verify(&mut b, payload),
            7 => digest_text(&mut b, payload),
            8 => guard(&mut b, payload),
            9 => guard_instructions(&mut b, payload),
            10 => lock(&mut b, payload),
            11 => enforcer(&mut b, payload),
            _ => verify_server(&mut b, payload),
        }
    }

    fn out_buffer(b: &mut Bytes<'_>, needed: usize) -> (Vec<u8>, usize, bool) {
        // (buffer, capacity passed, pass NULL)
        match b.u8() % 5 {
            0 => (Vec::new(), 0, true),
            1 => (Vec::new(), 1 + b.u8() as usize, true), // NULL with capacity: refused
            2 => {
                let cap = needed.saturating_sub(1 + b.u8() as usize % 3);
                (vec![SENTINEL; cap + 8], cap, false)
            }
            _ => {
                let cap = needed + b.u8() as usize % 4;
                (vec![SENTINEL; cap + 8], cap, false)
            }
        }
    }

    fn canonicalize(b: &mut Bytes<'_>, payload: &[u8]) {
        let inp = input(b, payload);
        let (lim, rust_limits) = limits(b);
        let expected = inp.bytes.map(|doc| {
            Context::with_limits(rust_limits)
                .canonicalize(doc)
                .map(<[u8]>::to_vec)
        });
        let needed = match &expected {
            Some(Ok(c)) => c.len(),
            _ => 16,
        };
        let (mut out, cap, out_null) = out_buffer(b, needed);
        let mut out_len = (!b.u8().is_multiple_of(8)).then_some(usize::MAX);
        let mut err_off = b.u8().is_multiple_of(2).then_some(OFFSET_SENTINEL);
        let lim_ptr = limits_ptr(&lim);
        // SAFETY: every pointer is NULL or valid for its documented length.
        let status = unsafe {
            contractpin_canonicalize_with_limits(
                inp.ptr,
                inp.len,
                lim_ptr,
                if out_null {
                    ptr::null_mut()
                } else {
                    out.as_mut_ptr()
                },
                cap,
                opt_ptr(&mut out_len),
                opt_ptr(&mut err_off),
            )
        };
        // Bytes past the capacity are never touched.
        assert!(
            out.iter().skip(cap).all(|&c| c == SENTINEL),
            "wrote past out_cap"
        );
        let untouched = |out: &[u8]| out.iter().all(|&c| c == SENTINEL);
        if out_len.is_none() || (out_null && cap != 0) || inp.bytes.is_none() {
            expect_status(status, 100, "NULL argument", payload);
            assert!(untouched(&out));
            assert!(err_off.is_none_or(|o| o == OFFSET_SENTINEL));
            return;
        }
        match expected.unwrap() {
            Ok(c) if c.len() <= cap => {
                expect_status(status, 0, "canonicalize", payload);
                assert_eq!(out_len, Some(c.len()));
                assert_eq!(&out[..c.len()], &c[..]);
                assert!(out[c.len()..].iter().all(|&x| x == SENTINEL));
                assert!(err_off.is_none_or(|o| o == OFFSET_SENTINEL));
            }
            Ok(c) => {
                expect_status(status, 15, "output too small", payload);
                assert_eq!(out_len, Some(c.len()), "needed size");
                assert!(untouched(&out), "output written on OUTPUT_TOO_SMALL");
            }
            Err(e) => {
                expect_status(status, e.kind() as u32, "rejected input", payload);
                assert_eq!(out_len, Some(usize::MAX), "out_len written on an error");
                assert!(untouched(&out));
                if let Some(o) = err_off {
                    assert_eq!(o, e.offset(), "error offset");
                }
            }
        }
    }

    /// One tool object (from bindings/c/testdata/tools.json), for the
    /// single-tool calls: random payloads are rarely a valid tool.
    const TOOL: &[u8] = br#"{"name":"echo","description":"Echo the text back","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]},"annotations":{"readOnlyHint":true},"title":"Echo"}"#;

    /// The payload, or half of the time the shipped tool object.
    fn tool_or<'a>(b: &mut Bytes<'_>, payload: &'a [u8]) -> &'a [u8] {
        if b.u8().is_multiple_of(2) {
            TOOL
        } else {
            payload
        }
    }

    fn tool_contract(b: &mut Bytes<'_>, payload: &[u8]) {
        let data = tool_or(b, payload);
        let inp = input(b, data);
        let expected = inp.bytes.map(contractpin::tool_contract);
        let needed = match &expected {
            Some(Ok(c)) => c.len(),
            _ => 16,
        };
        let (mut out, cap, out_null) = out_buffer(b, needed);
        let mut out_len = Some(usize::MAX);
        let mut err_off = b.u8().is_multiple_of(2).then_some(OFFSET_SENTINEL);
        // SAFETY: every pointer is NULL or valid for its documented length.
        let status = unsafe {
            contractpin_tool_contract(
                inp.ptr,
                inp.len,
                if out_null {
                    ptr::null_mut()
                } else {
                    out.as_mut_ptr()
                },
                cap,
                opt_ptr(&mut out_len),
                opt_ptr(&mut err_off),
            )
        };
        assert!(
            out.iter().skip(cap).all(|&c| c == SENTINEL),
            "wrote past out_cap"
        );
        if (out_null && cap != 0) || inp.bytes.is_none() {
            expect_status(status, 100, "NULL argument", payload);
            return;
        }
        match expected.unwrap() {
            Ok(c) if c.len() <= cap => {
                expect_status(status, 0, "tool_contract", payload);
                assert_eq!(&out[..c.len()], &c[..]);
            }
            Ok(c) => {
                expect_status(status, 15, "output too small", payload);
                assert_eq!(out_len, Some(c.len()));
            }
            Err(e) => {
                expect_status(status, e.kind() as u32, "rejected tool", payload);
                if let Some(o) = err_off {
                    assert_eq!(o, e.offset());
                }
            }
        }
    }

    fn tool_digest(b: &mut Bytes<'_>, payload: &[u8]) {
        let data = tool_or(b, payload);
        let inp = input(b, data);
        let expected = inp.bytes.map(contractpin::tool_digest);
        let null_out = b.u8().is_multiple_of(6);
        let mut text = [SENTINEL; 80];
        let mut raw = [SENTINEL; 40];
        let mut err_off = Some(OFFSET_SENTINEL);
        // SAFETY: buffers of 80 and 40 bytes (>= 72 and 32), or NULL.
        let (s1, s2) = unsafe {
            (
                contractpin_tool_digest(
                    inp.ptr,
                    inp.len,
                    if null_out {
                        ptr::null_mut()
                    } else {
                        text.as_mut_ptr().cast()
                    },
                    opt_ptr(&mut err_off),
                ),
                contractpin_tool_digest_bytes(
                    inp.ptr,
                    inp.len,
                    if null_out {
                        ptr::null_mut()
                    } else {
                        raw.as_mut_ptr()
                    },
                    ptr::null_mut(),
                ),
            )
        };
        assert_eq!(code(s1), code(s2));
        assert!(
            text[72..].iter().all(|&c| c == SENTINEL) && raw[32..].iter().all(|&c| c == SENTINEL)
        );
        if null_out || inp.bytes.is_none() {
            expect_status(s1, 100, "NULL argument", payload);
            return;
        }
        match expected.unwrap() {
            Ok(d) => {
                expect_status(s1, 0, "tool_digest", payload);
                assert_eq!(&text[..71], d.to_string().as_bytes());
                assert_eq!(text[71], 0);
                assert_eq!(&raw[..32], d.as_bytes());
            }
            Err(e) => {
                expect_status(s1, e.kind() as u32, "rejected tool", payload);
                assert_eq!(err_off, Some(e.offset()));
                assert!(text.iter().all(|&c| c == SENTINEL));
            }
        }
    }

    fn server(b: &mut Bytes<'_>, payload: &[u8]) {
        let inp = input(b, payload);
        let (lim, rust_limits) = limits(b);
        let expected = inp.bytes.map(|doc| {
            Context::with_limits(rust_limits).digest_tools_list_owned(
                doc,
                ListOptions {
                    field_digests: true,
                },
            )
        });
        let null_out = b.u8().is_multiple_of(8);
        let mut out: *mut contractpin_server = ptr::null_mut();
        let mut err_off = Some(OFFSET_SENTINEL);
        let lim_ptr = limits_ptr(&lim);
        // SAFETY: pointers NULL or valid.
        let status = unsafe {
            contractpin_digest_tools_list_with_limits(
                inp.ptr,
                inp.len,
                lim_ptr,
                if null_out { ptr::null_mut() } else { &mut out },
                opt_ptr(&mut err_off),
            )
        };
        if null_out || inp.bytes.is_none() {
            expect_status(status, 100, "NULL argument", payload);
            assert!(out.is_null());
            return;
        }
        let want = match expected.unwrap() {
            Err(e) => {
                expect_status(status, e.kind() as u32, "rejected list", payload);
                assert!(out.is_null(), "out written on failure");
                assert_eq!(err_off, Some(e.offset()));
                return;
            }
            Ok(w) => w,
        };
        expect_status(status, 0, "digest_tools_list", payload);
        assert!(!out.is_null());
        let s = out as *const contractpin_server;
        // SAFETY: `s` is a live server until the free below; every out
        // pointer is a local of the right type or NULL.
        unsafe {
            let mut d = [SENTINEL; 32];
            assert_eq!(code(contractpin_server_digest(s, d.as_mut_ptr())), 0);
            assert_eq!(&d, want.digest.as_bytes());
            assert_eq!(contractpin_server_tool_count(s), want.tools.len());
            assert_eq!(contractpin_server_tool_count(ptr::null()), 0);
            for _ in 0..4 {
                let index = match b.u8() % 3 {
                    0 => b.u32() as usize,
                    1 => usize::MAX,
                    _ => b.u8() as usize % (want.tools.len() + 1),
                };
                let tool = want.tools.get(index);
                let mut name: *const u8 = ptr::null();
                let mut name_len = usize::MAX;
                let st = contractpin_server_tool_name(s, index, &mut name, &mut name_len);
                let mut digest = [SENTINEL; 32];
                let st2 = contractpin_server_tool_digest(s, index, digest.as_mut_ptr());
                let mut mask = u32::MAX;
                let st3 = contractpin_server_tool_fields(s, index, &mut mask);
                let field = b.u8() as u32 % 7;
                let mut fd = [SENTINEL; 32];
                let st4 = contractpin_server_tool_field_digest(s, index, field, fd.as_mut_ptr());
                let Some(tool) = tool else {
                    for st in [st, st2, st3, st4] {
                        assert_eq!(code(st), 103, "index {index} of {}", want.tools.len());
                    }
                    assert!(name.is_null() && name_len == usize::MAX && mask == u32::MAX);
                    continue;
                };
                assert_eq!((code(st), code(st2), code(st3)), (0, 0, 0));
                let got = std::slice::from_raw_parts(name, name_len);
                assert_eq!(got, tool.name.as_bytes());
                assert_eq!(*name.add(name_len), 0, "name is NUL-terminated");
                assert_eq!(&digest, tool.digest.as_bytes());
                let want_mask = tool.fields.iter().fold(0u32, |m, (f, _)| {
                    m | 1 << contractpin_field::from_field(f) as u32
                });
                assert_eq!(mask, want_mask);
                match contractpin_field::from_id(field) {
                    None => assert_eq!(code(st4), 101),
                    Some(f) => match tool.fields.get(f.field()) {
                        Some(want_fd) => {
                            assert_eq!(code(st4), 0);
                            assert_eq!(&fd, want_fd.as_bytes());
                        }
                        None => assert_eq!(code(st4), 104),
                    },
                }
                // Finding by name gives the first index with that name (names are unique).
                let mut found = usize::MAX;
                let st = contractpin_server_find_tool(s, name, name_len, &mut found);
                assert_eq!((code(st), found), (0, index));
            }
            // Random names: found only if some tool has exactly these bytes.
            let probe = b.take(6);
            let mut found = usize::MAX;
            let st = contractpin_server_find_tool(s, probe.as_ptr(), probe.len(), &mut found);
            match want.tools.iter().position(|t| t.name.as_bytes() == probe) {
                Some(i) => assert_eq!((code(st), found), (0, i)),
                None => assert_eq!((code(st), found), (105, usize::MAX)),
            }
            // NULL arguments.
            assert_eq!(code(contractpin_server_digest(s, ptr::null_mut())), 100);
            assert_eq!(
                code(contractpin_server_digest(ptr::null(), d.as_mut_ptr())),
                100
            );
            assert_eq!(
                code(contractpin_server_find_tool(s, ptr::null(), 3, &mut found)),
                100
            );
            contractpin_server_free(out);
            contractpin_server_free(ptr::null_mut());
        }
    }

    fn sha256(b: &mut Bytes<'_>, payload: &[u8]) {
        // SAFETY: the state is plain data (integers); all-zero bytes are a
        // valid, never-initialised state.
        let mut st: contractpin_sha256 = unsafe { core::mem::zeroed() };
        let mut out = [SENTINEL; 32];
        // SAFETY: `st` is a valid state; buffers are valid for their lengths.
        unsafe {
            // A zeroed state was never initialised.
            assert_eq!(
                code(contractpin_sha256_update(
                    &mut st,
                    payload.as_ptr(),
                    payload.len()
                )),
                101
            );
            assert_eq!(
                code(contractpin_sha256_final(&mut st, out.as_mut_ptr())),
                101
            );
            assert!(out.iter().all(|&c| c == SENTINEL));
            assert_eq!(code(contractpin_sha256_init(ptr::null_mut())), 100);
            assert_eq!(code(contractpin_sha256_init(&mut st)), 0);
            // Random split points; NULL with length 0 is a no-op.
            let mut rest = payload;
            while !rest.is_empty() {
                let n = (b.u8() as usize * 7 + 1).min(rest.len());
                assert_eq!(
                    code(contractpin_sha256_update(&mut st, rest.as_ptr(), n)),
                    0
                );
                assert_eq!(code(contractpin_sha256_update(&mut st, ptr::null(), 0)), 0);
                rest = &rest[n..];
            }
            assert_eq!(
                code(contractpin_sha256_update(&mut st, ptr::null(), 1)),
                100
            );
            // A byte copy of the state is an independent state.
            let mut copy = st;
            assert_eq!(
                code(contractpin_sha256_final(&mut st, ptr::null_mut())),
                100
            );
            assert_eq!(code(contractpin_sha256_final(&mut st, out.as_mut_ptr())), 0);
            assert_eq!(out, contractpin::sha256::digest(payload));
            let mut out2 = [0u8; 32];
            assert_eq!(
                code(contractpin_sha256_final(&mut copy, out2.as_mut_ptr())),
                0
            );
            assert_eq!(out2, out);
            // After final the state is empty again.
            assert_eq!(
                code(contractpin_sha256_final(&mut st, out2.as_mut_ptr())),
                0
            );
            assert_eq!(out2, contractpin::sha256::digest(b""));
            let mut one = [0u8; 32];
            assert_eq!(
                code(contractpin_sha256_digest(
                    payload.as_ptr(),
                    payload.len(),
                    one.as_mut_ptr()
                )),
                0
            );
            assert_eq!(one, out);
            assert_eq!(
                code(contractpin_sha256_digest(ptr::null(), 0, one.as_mut_ptr())),
                0
            );
            assert_eq!(one, contractpin::sha256::digest(b""));
            assert_eq!(
                code(contractpin_sha256_digest(ptr::null(), 5, one.as_mut_ptr())),
                100
            );
        }
    }

    fn statics(b: &mut Bytes<'_>, _payload: &[u8]) {
        for _ in 0..4 {
            let v = match b.u8() % 3 {
                0 => b.u8() as u32,
                1 => b.u32(),
                _ => b.u8() as u32 % 8,
            };
            // SAFETY: these return NULL or a static NUL-terminated string.
            unsafe {
                for p in [contractpin_status_name(v), contractpin_status_message(v)] {
                    if !p.is_null() {
                        let s = CStr::from_ptr(p).to_str().expect("UTF-8");
                        assert!(!s.is_empty());
                    }
                }
                let name = contractpin_status_name(v);
                if let Some(kind) = contractpin::ErrorKind::from_code(v) {
                    assert_eq!(CStr::from_ptr(name).to_str().unwrap(), kind.name());
                }
                let f = contractpin_field_name(v);
                assert_eq!(f.is_null(), v >= CONTRACTPIN_FIELD_COUNT);
            }
        }
        // SAFETY: static strings.
        unsafe {
            assert!(!CStr::from_ptr(contractpin_version()).to_bytes().is_empty());
            assert!(!CStr::from_ptr(contractpin_sha256_backend())
                .to_bytes()
                .is_empty());
        }
        let d = contractpin_limits_default();
        assert_eq!(Limits::from(d), Limits::DEFAULT);
    }

    fn digest_text(b: &mut Bytes<'_>, payload: &[u8]) {
        let mut raw = [0u8; 32];
        let src = b.take(32);
        raw[..src.len()].copy_from_slice(src);
        let mut text = [SENTINEL; 80];
        // SAFETY: 32 readable bytes, 80 writable bytes, or NULL.
        unsafe {
            assert_eq!(
                code(contractpin_digest_to_text(
                    ptr::null(),
                    text.as_mut_ptr().cast()
                )),
                100
            );
            assert_eq!(
                code(contractpin_digest_to_text(raw.as_ptr(), ptr::null_mut())),
                100
            );
            assert!(text.iter().all(|&c| c == SENTINEL));
            assert_eq!(
                code(contractpin_digest_to_text(
                    raw.as_ptr(),
                    text.as_mut_ptr().cast()
                )),
                0
            );
        }
        assert_eq!(&text[..71], contractpin::Digest(raw).to_string().as_bytes());
        assert_eq!(text[71], 0);
        assert!(text[72..].iter().all(|&c| c == SENTINEL));
        let _ = payload;
    }

    fn verify(b: &mut Bytes<'_>, payload: &[u8]) {
        // The lock: the shipped example or bytes from the payload.
        let split = b.u32() as usize % (payload.len() + 1);
        let (lock, list): (&[u8], &[u8]) = match b.u8() % 4 {
            0 => (&payload[..split], &payload[split..]),
            1 => (EXAMPLE_LOCK, EXAMPLE_LIST),
            2 => (EXAMPLE_LOCK, DRIFTED_LIST),
            _ => (EXAMPLE_LOCK, payload),
        };
        let names: [&[u8]; 4] = [b"example", b"nope", b"", b"\xff"];
        let name = names[b.u8() as usize % 4];
        let flags = match b.u8() % 4 {
            0 => 1,
            1 => b.u32(),
            _ => 0,
        };
        let (lim, rust_limits) = limits(b);
        let lim_ptr = limits_ptr(&lim);
        let mut out: *mut contractpin_report = ptr::null_mut();
        let mut err_off = Some(OFFSET_SENTINEL);
        // SAFETY: each pointer valid for its length.
        let status = unsafe {
            contractpin_verify_with_limits(
                lock.as_ptr(),
                lock.len(),
                name.as_ptr(),
                name.len(),
                list.as_ptr(),
                list.len(),
                flags,
                lim_ptr,
                &mut out,
                opt_ptr(&mut err_off),
            )
        };
        // The expected status, in the documented order of checks.
        // Bits 1 (ALLOW_NEW) and 2 (IGNORE_INSTRUCTIONS, no effect here) are known.
        let expected: u32 = if flags & !3 != 0 || std::str::from_utf8(name).is_err() {
            101
        } else {
            match contractpin::lock::Lock::parse(lock) {
                Err(_) => 64, // any lock status 64..=68
                Ok(l) if !l.servers.contains_key(std::str::from_utf8(name).unwrap()) => 69,
                Ok(_) => match Context::with_limits(rust_limits)
                    .digest_tools_list_owned(list, ListOptions::default())
                {
                    Err(e) => e.kind() as u32,
                    Ok(_) => 0,
                },
            }
        };
        if expected == 64 {
            assert!((64..=68).contains(&code(status)), "lock status {status:?}");
        } else {
            assert_eq!(code(status), expected, "verify of {}", show(list));
        }
        if code(status) != 0 {
            assert!(out.is_null());
            return;
        }
        assert!(!out.is_null());
        let r = out as *const contractpin_report;
        // SAFETY: `r` is live until freed below; out-pointers are locals.
        unsafe {
            let code_exit = contractpin_report_exit_code(r);
            assert!(code_exit == 0 || code_exit == 1, "exit code {code_exit}");
            let n = contractpin_report_tool_count(r);
            let (mut u, mut d, mut a, mut rm) = (0usize, 0usize, 0usize, 0usize);
            assert_eq!(
                code(contractpin_report_counts(
                    r, &mut u, &mut d, &mut a, &mut rm
                )),
                0
            );
            assert_eq!(u + d + a + rm, n);
            assert_eq!(code_exit == 0, d + rm == 0 && (a == 0 || flags & 1 != 0));
            for _ in 0..3 {
                let index = b.u8() as usize % (n + 2);
                let mut name: *const u8 = ptr::null();
                let mut len = 0usize;
                let mut status = u32::MAX;
                let mut changed = u32::MAX;
                let st = contractpin_report_tool(
                    r,
                    index,
                    &mut name,
                    &mut len,
                    &mut status,
                    &mut changed,
                );
                if index >= n {
                    assert_eq!(code(st), 103);
                    continue;
                }
                assert_eq!(code(st), 0);
                assert!(std::str::from_utf8(std::slice::from_raw_parts(name, len)).is_ok());
                let mut dg = [0u8; 32];
                let _ = contractpin_report_tool_pinned_digest(r, index, dg.as_mut_ptr());
                let _ = contractpin_report_tool_live_digest(r, index, dg.as_mut_ptr());
                let mut other = 0usize;
                let _ = contractpin_report_tool_rename(r, index, &mut other, &mut name, &mut len);
            }
            let mut len = 0usize;
            let st = contractpin_report_json(r, ptr::null_mut(), 0, &mut len);
            assert!(code(st) == 15 || (code(st) == 0 && len == 0));
            let mut buf = vec![0u8; len];
            assert_eq!(
                code(contractpin_report_json(r, buf.as_mut_ptr(), len, &mut len)),
                0
            );
            assert!(
                contractpin::canonicalize(&buf).is_ok(),
                "report JSON is not JSON"
            );
            contractpin_report_free(out);
        }
    }

    /// The mode `flags` ask for (when they are valid).
    fn guard_mode(flags: u32) -> GuardMode {
        if flags == CONTRACTPIN_GUARD_OBSERVE {
            GuardMode::Observe
        } else {
            GuardMode::Enforce
        }
    }

    /// The signature both guard functions share.
    type GuardFn<R> = unsafe extern "C" fn(
        *const contractpin_lock,
        *const u8,
        usize,
        *const u8,
        usize,
        u32,
        *const contractpin_limits,
        *mut *mut R,
        *mut usize,
    ) -> contractpin_status;

    /// The arguments both guard calls take, and what the library decides
    /// for them.
    struct GuardCall<'a> {
        input: &'a [u8],
        name: &'static [u8],
        flags: u32,
        lim: Option<contractpin_limits>,
        limits: Limits,
    }

    impl<'a> GuardCall<'a> {
        /// One of two shipped inputs or the payload; one of the two servers
        /// `known`, one the lock does not have or a name that is not UTF-8;
        /// observe, enforce or random flags; limits.
        fn pick(
            b: &mut Bytes<'_>,
            payload: &'a [u8],
            shipped: [&'static [u8]; 2],
            known: [&'static [u8]; 2],
        ) -> GuardCall<'a> {
            let input = match b.u8() % 4 {
                i @ (0 | 1) => shipped[i as usize],
                _ => payload,
            };
            let name = [known[0], known[1], b"nope", b"\xff"][b.u8() as usize % 4];
            let flags = match b.u8() % 4 {
                0 => CONTRACTPIN_GUARD_OBSERVE,
                1 => b.u32(),
                _ => 0,
            };
            let (lim, limits) = limits(b);
            GuardCall {
                input,
                name,
                flags,
                lim,
                limits,
            }
        }

        /// Calls `f` (either guard function) with a lock the ABI parsed from
        /// `lock_text`, freed before the result is read (the result must not
        /// depend on it): the status, the result and the error offset.
        fn run<R>(
            &self,
            lock_text: &[u8],
            f: GuardFn<R>,
        ) -> (contractpin_status, *mut R, Option<usize>) {
            let lock = Lock::parse(lock_text);
            let mut out: *mut R = ptr::null_mut();
            let mut err_off = Some(OFFSET_SENTINEL);
            // SAFETY: each pointer valid for its length; the lock is live.
            let status = unsafe {
                f(
                    lock.0,
                    self.name.as_ptr(),
                    self.name.len(),
                    self.input.as_ptr(),
                    self.input.len(),
                    self.flags,
                    self.lim_ptr(),
                    &mut out,
                    opt_ptr(&mut err_off),
                )
            };
            drop(lock);
            (status, out, err_off)
        }

        fn lim_ptr(&self) -> *const contractpin_limits {
            limits_ptr(&self.lim)
        }

        /// The documented order of checks: flags and the name's UTF-8 (101),
        /// the server (69), then `decide` on the pinned server, whose error
        /// offset must be the one the ABI wrote (`err_off`).
        fn expected<T>(
            &self,
            lock: &[u8],
            err_off: Option<usize>,
            decide: impl FnOnce(&contractpin::lock::LockServer) -> Result<T, contractpin::Error>,
        ) -> Result<T, u32> {
            let name = std::str::from_utf8(self.name).map_err(|_| 101u32)?;
            if self.flags & !CONTRACTPIN_GUARD_OBSERVE != 0 {
                return Err(101);
            }
            let lock = contractpin::lock::Lock::parse(lock).unwrap();
            let pinned = lock.servers.get(name).ok_or(69u32)?;
            decide(pinned).map_err(|e| {
                assert_eq!(
                    err_off,
                    Some(e.offset()),
                    "error offset, {}",
                    show(self.input)
                );
                e.kind() as u32
            })
        }

        /// The decision to compare the result with, once the status agrees
        /// with `expected` and the result was written exactly on success.
        fn decided<T>(
            &self,
            expected: Result<T, u32>,
            status: contractpin_status,
            out_null: bool,
        ) -> Option<T> {
            let want = expected.as_ref().err().copied().unwrap_or(0);
            assert_eq!(code(status), want, "guard call on {}", show(self.input));
            assert_eq!(
                out_null,
                want != 0,
                "the result is written exactly on success"
            );
            expected.ok()
        }
    }

    /// `contractpin_guard_page` and its accessors, against the library's
    /// `guard::guard_page`: status and error offset in the documented order
    /// of checks, then the result bytes, the passing tools, the events, their
    /// JSON lines and the callable set, entry by entry, with indexes past the
    /// end refused.
    fn guard(b: &mut Bytes<'_>, payload: &[u8]) {
        let call = GuardCall::pick(
            b,
            payload,
            [EXAMPLE_LIST, DRIFTED_LIST],
            [b"example", b"example"],
        );
        let (status, out, err_off) = call.run(EXAMPLE_LOCK, contractpin_guard_page);
        let mode = guard_mode(call.flags);
        let expected = call.expected(EXAMPLE_LOCK, err_off, |pinned| {
            guard_page(pinned, call.input, mode, &call.limits)
        });
        let Some(decision) = call.decided(expected, status, out.is_null()) else {
            return;
        };
        // SAFETY: `out` is live until freed just after; out-pointers are locals.
        unsafe {
            guard_result_matches(out, &decision, mode, b);
            gate_matches(out, &decision, b);
            contractpin_guard_result_free(out);
        }
    }

    /// A `contractpin_enforcer` with random flags, given the example's
    /// drifted listing and then the payload's messages (split at newlines;
    /// a message's first byte says which side sent it), decides each
    /// exactly as a library `guard::session::Session` with the same policy:
    /// action, replacement, reply and event lines, through every accessor.
    fn enforcer(b: &mut Bytes<'_>, payload: &[u8]) {
        use contractpin::guard::session::{Dropped, Forward, OnDrift, Policy, Session};
        let flags = b.u8() as u32 % 9;
        let lock = Lock::parse(EXAMPLE_LOCK);
        let mut e = ptr::null_mut();
        // SAFETY: a live lock, a readable name, a local out-pointer.
        let st = unsafe {
            contractpin_enforcer_new(lock.0, b"example".as_ptr(), 7, flags, ptr::null(), &mut e)
        };
        drop(lock);
        let observe_block = CONTRACTPIN_GUARD_OBSERVE | CONTRACTPIN_ENFORCER_BLOCK;
        if flags > 7 || flags & observe_block == observe_block {
            assert_eq!(code(st), 101, "flags {flags}");
            assert!(e.is_null(), "not written on failure");
            return;
        }
        assert_eq!(code(st), 0);
        let pinned = contractpin::lock::Lock::parse(EXAMPLE_LOCK)
            .unwrap()
            .servers["example"]
            .clone();
        let mut model = Session::new(Policy {
            server: "example".into(),
            pinned,
            mode: guard_mode(flags & CONTRACTPIN_GUARD_OBSERVE),
            on_drift: if flags & CONTRACTPIN_ENFORCER_BLOCK != 0 {
                OnDrift::Block
            } else {
                OnDrift::Hide
            },
            limits: Limits::DEFAULT,
            check_instructions: flags & CONTRACTPIN_ENFORCER_IGNORE_INSTRUCTIONS == 0,
            max_message: Limits::DEFAULT.input_cap(),
        });
        let mut answer = br#"{"jsonrpc":"2.0","id":1,"result":"#.to_vec();
        answer.extend_from_slice(DRIFTED_LIST);
        answer.push(b'}');
        let start: [(bool, &[u8]); 2] = [
            (true, br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            (false, &answer),
        ];
        let rest = payload
            .split(|&c| c == b'\n')
            .filter_map(|m| m.split_first())
            .map(|(side, m)| (side % 2 == 0, m));
        for (client, message) in start.into_iter().chain(rest).take(16) {
            let want = if client {
                model.client(message)
            } else {
                model.server(message)
            };
            let side = if client {
                contractpin_enforcer_client
            } else {
                contractpin_enforcer_server
            };
            let mut d = ptr::null_mut();
            // SAFETY: a live enforcer, a readable message, a local out-pointer.
            let st = unsafe { side(e, message.as_ptr(), message.len(), &mut d) };
            assert_eq!(code(st), 0);
            // SAFETY: `d` is live until freed just after.
            unsafe {
                decision_matches(d, &want.forward, want.reply.as_deref(), &want.events);
                contractpin_decision_free(d);
            }
        }
        // The summary (a batch of junk elements passes the first 100).
        let want: Vec<_> = Dropped::ALL
            .into_iter()
            .filter_map(|kind| model.summary(kind))
            .collect();
        let mut d = ptr::null_mut();
        // SAFETY: a live enforcer, a local out-pointer.
        assert_eq!(code(unsafe { contractpin_enforcer_summary(e, &mut d) }), 0);
        // SAFETY: `d` is live until freed just after.
        unsafe {
            decision_matches(d, &Forward::Nothing, None, &want);
            contractpin_decision_free(d);
        }
        // SAFETY: from contractpin_enforcer_new, freed once.
        unsafe { contractpin_enforcer_free(e) };
    }

    /// The accessors of a live decision agree with the library's.
    ///
    /// # Safety
    /// `d` is a live decision.
    unsafe fn decision_matches(
        d: *const contractpin_decision,
        forward: &contractpin::guard::session::Forward,
        reply: Option<&[u8]>,
        events: &[contractpin::guard::session::Event],
    ) {
        use contractpin::guard::session::Forward;
        type Accessor = unsafe extern "C" fn(
            *const contractpin_decision,
            *mut *const u8,
            *mut usize,
        ) -> contractpin_status;
        let read = |f: Accessor| -> Option<Vec<u8>> {
            let (mut p, mut n) = (ptr::null(), usize::MAX);
            // SAFETY: `d` is live; local out-pointers.
            match code(unsafe { f(d, &mut p, &mut n) }) {
                0 => {
                    // SAFETY: the library lends `n + 1` bytes, a NUL last.
                    let all = unsafe { std::slice::from_raw_parts(p, n + 1) };
                    assert_eq!(all[n], 0);
                    Some(all[..n].to_vec())
                }
                105 => None,
                other => panic!("status {other}"),
            }
        };
        let (action, bytes) = match forward {
            Forward::Same => (contractpin_action::Forward, None),
            Forward::Replaced(b) => (contractpin_action::Replace, Some(b.clone())),
            Forward::Nothing => (contractpin_action::Drop, None),
        };
        // SAFETY: `d` is live.
        assert_eq!(unsafe { contractpin_decision_action(d) }, action);
        assert_eq!(read(contractpin_decision_bytes), bytes);
        assert_eq!(read(contractpin_decision_reply).as_deref(), reply);
        // SAFETY: `d` is live.
        assert_eq!(unsafe { contractpin_decision_event_count(d) }, events.len());
        for (i, want) in events.iter().enumerate() {
            let (mut p, mut n) = (ptr::null(), 0);
            // SAFETY: `d` is live; local out-pointers.
            let st = unsafe { contractpin_decision_event_json(d, i, &mut p, &mut n) };
            assert_eq!(code(st), 0);
            // SAFETY: the library lends `n` bytes at `p`.
            assert_eq!(unsafe { std::slice::from_raw_parts(p, n) }, want.json());
        }
        let (mut p, mut n) = (ptr::null(), 0);
        // SAFETY: `d` is live; local out-pointers.
        let past = unsafe { contractpin_decision_event_json(d, events.len(), &mut p, &mut n) };
        assert_eq!(code(past), 103, "an index past the events");
    }

    /// A `contractpin_gate` given `r` and other events in a random order
    /// (page kinds past the last refused, and refusing the gate) agrees
    /// with the library's `guard::gate::Gate` on every status and on each
    /// tool's verdict.
    ///
    /// # Safety
    /// `r` is a live result of `contractpin_guard_page`.
    unsafe fn gate_matches(
        r: *const contractpin_guard_result,
        decision: &GuardDecision,
        b: &mut Bytes<'_>,
    ) {
        use contractpin::guard::gate::{Gate, Page};
        let page = |k: u8| {
            [Page::First, Page::Next, Page::Unmatched]
                .get(k as usize)
                .copied()
        };
        let mut gate = ptr::null_mut();
        // SAFETY: a local out-pointer.
        assert_eq!(code(unsafe { contractpin_gate_new(&mut gate) }), 0);
        let mut model = Gate::new();
        for _ in 0..1 + b.u8() % 6 {
            let (op, kind) = (b.u8() % 3, b.u8() % 4);
            let want = page(kind).map_or(101, |_| 0);
            // SAFETY: `gate` and `r` are live.
            let st = unsafe {
                match op {
                    0 => contractpin_gate_page(gate, r, kind as u32),
                    1 => contractpin_gate_refused(gate, kind as u32),
                    _ => contractpin_gate_list_changed(gate),
                }
            };
            // A failure with a gate refuses (an unknown kind as a first page).
            match (op, page(kind)) {
                (0, Some(p)) => model.decided(p, decision),
                (0 | 1, p) => model.refused(p.unwrap_or(Page::First)),
                _ => model.list_changed(),
            }
            assert_eq!(
                code(st),
                if op == 2 { 0 } else { want },
                "gate op {op} {kind}"
            );
        }
        let tried = decision
            .passed
            .iter()
            .chain(decision.events.iter().map(|e| &e.tool));
        for tool in tried.map(String::as_str).chain(["", "nope"]) {
            // SAFETY: `gate` is live; `tool` is readable for its length.
            let got = unsafe { contractpin_gate_check(gate, tool.as_ptr(), tool.len()) };
            // SAFETY: a static string of the library.
            let word = unsafe { CStr::from_ptr(contractpin_refusal_name(got as u32)) };
            let expected = model
                .check(Some(tool))
                .map_or_else(|why| why.code(), |()| "callable");
            assert_eq!(word.to_str().unwrap(), expected, "check {tool:?}");
        }
        // SAFETY: from contractpin_gate_new, freed once.
        unsafe { contractpin_gate_free(gate) };
    }

    /// The accessors of a live guard result agree with `decision`.
    ///
    /// # Safety
    /// `r` is a live result of `contractpin_guard_page`.
    unsafe fn guard_result_matches(
        r: *const contractpin_guard_result,
        decision: &GuardDecision,
        mode: GuardMode,
        b: &mut Bytes<'_>,
    ) {
        let span = |st: contractpin_status, p: *const u8, len: usize| -> Option<Vec<u8>> {
            // SAFETY: on success the library wrote a span it owns, live with `r`.
            (code(st) == 0).then(|| unsafe { std::slice::from_raw_parts(p, len) }.to_vec())
        };
        let (mut p, mut len): (*const u8, usize) = (ptr::null(), 0);
        // SAFETY: `r` is live by the caller's contract, the out-pointers are
        // locals (the same holds for each call below).
        let st = unsafe { contractpin_guard_result_bytes(r, &mut p, &mut len) };
        assert_eq!(
            span(st, p, len).as_deref(),
            Some(decision.result.as_slice())
        );
        // SAFETY: as above.
        let passed = unsafe { contractpin_guard_result_passed_count(r) };
        assert_eq!(passed, decision.passed.len());
        // SAFETY: as above.
        let events = unsafe { contractpin_guard_result_event_count(r) };
        assert_eq!(events, decision.events.len());
        for _ in 0..3 {
            let i = b.u8() as usize % (passed + 2);
            // SAFETY: as above.
            let st = unsafe { contractpin_guard_result_passed_name(r, i, &mut p, &mut len) };
            let want = decision.passed.get(i).map(|s| s.as_bytes().to_vec());
            assert_eq!(span(st, p, len), want, "passed name {i}");
            assert!(want.is_some() || code(st) == 103);
            let i = b.u8() as usize % (events + 2);
            // SAFETY: as above.
            let st = unsafe { contractpin_guard_result_event_json(r, i, &mut p, &mut len) };
            let want = decision.events.get(i).map(|e| e.to_json("example"));
            assert_eq!(span(st, p, len), want, "event line {i}");
            assert!(want.is_some() || code(st) == 103);
        }
        let callable: Vec<&str> = decision.callable(mode).collect();
        let tried = decision
            .passed
            .iter()
            .chain(decision.events.iter().map(|e| &e.tool));
        for tool in tried.map(String::as_str).chain(["", "nope", "search_web"]) {
            // SAFETY: as above; `tool` is readable for its length.
            let got = unsafe { contractpin_guard_result_callable(r, tool.as_ptr(), tool.len()) };
            assert_eq!(got == 1, callable.contains(&tool), "callable {tool:?}");
        }
    }

    /// `contractpin_guard_instructions` and its accessors, against the
    /// library's `guard::guard_instructions`, on handshake results for a
    /// server with pinned instructions and one without.
    fn guard_instructions(b: &mut Bytes<'_>, payload: &[u8]) {
        let call = GuardCall::pick(
            b,
            payload,
            [INITIALIZE, INITIALIZE_DRIFTED],
            [b"acme", b"bare"],
        );
        let (status, out, err_off) = call.run(INSTRUCTIONS_LOCK, contractpin_guard_instructions);
        let mode = guard_mode(call.flags);
        let expected = call.expected(INSTRUCTIONS_LOCK, err_off, |pinned| {
            guard_instructions_rs(pinned, call.input, mode, &call.limits)
        });
        let Some(decision) = call.decided(expected, status, out.is_null()) else {
            return;
        };
        // SAFETY: `out` is live until freed just after; out-pointers are locals.
        unsafe {
            instructions_result_matches(out, &decision);
            contractpin_guard_instructions_result_free(out);
        }
    }

    /// The accessors of a live instructions result agree with `decision`.
    ///
    /// # Safety
    /// `r` is a live result of `contractpin_guard_instructions`.
    unsafe fn instructions_result_matches(
        r: *const contractpin_guard_instructions_result,
        decision: &InstructionsDecision,
    ) {
        let (mut status, mut has_live, mut removed) =
            (contractpin_instructions_status::NotChecked, -1, -1);
        let mut live = [SENTINEL; 32];
        // SAFETY: `r` is live by the caller's contract, the out-pointers are
        // locals (the same holds for each call below).
        let st = unsafe {
            contractpin_guard_instructions_result_verdict(
                r,
                &mut status,
                &mut has_live,
                live.as_mut_ptr(),
                &mut removed,
            )
        };
        assert_eq!(code(st), 0);
        let verdict = decision.verdict;
        assert_eq!(
            status,
            contractpin_instructions_status::from(verdict.map(|v| v.status))
        );
        let want_live = verdict.and_then(|v| v.live);
        assert_eq!(has_live == 1, want_live.is_some());
        assert_eq!(
            want_live.map_or([SENTINEL; 32], |d| d.0),
            live,
            "live digest"
        );
        assert_eq!(removed == 1, decision.removed);
        let (mut p, mut len): (*const u8, usize) = (ptr::null(), 0);
        // SAFETY: as above.
        let st = unsafe { contractpin_guard_instructions_result_bytes(r, &mut p, &mut len) };
        assert_eq!(code(st), 0);
        // SAFETY: on success the library wrote a span it owns, live with `r`.
        let bytes = unsafe { std::slice::from_raw_parts(p, len) };
        assert_eq!(bytes, decision.result.as_slice(), "result bytes");
        // SAFETY: as above.
        let st = unsafe { contractpin_guard_instructions_result_event_json(r, &mut p, &mut len) };
        let event = matches!(
            status,
            contractpin_instructions_status::Drifted
                | contractpin_instructions_status::Added
                | contractpin_instructions_status::Removed
        );
        if !event {
            assert_eq!(code(st), 105, "no event line without an event");
            return;
        }
        assert_eq!(code(st), 0);
        // SAFETY: on success the library wrote a span it owns, live with `r`.
        let line = unsafe { std::slice::from_raw_parts(p, len) };
        assert!(
            contractpin::canonicalize(line).is_ok(),
            "event line is not JSON: {}",
            show(line)
        );
    }

    /// `contractpin_lock_parse` and the lock and lock-error accessors against
    /// `lock::Lock::parse`, on shipped locks with one byte changed (every kind
    /// of lock error) or payload bytes; then `contractpin_lock_verify` on the
    /// parsed lock against `contractpin_verify` on the same bytes.
    fn lock(b: &mut Bytes<'_>, payload: &[u8]) {
        let split = b.u32() as usize % (payload.len() + 1);
        let mut text = match b.u8() % 4 {
            0 => EXAMPLE_LOCK.to_vec(),
            1 => INSTRUCTIONS_LOCK.to_vec(),
            _ => payload[..split].to_vec(),
        };
        if !text.is_empty() && !b.u8().is_multiple_of(3) {
            let at = b.u32() as usize % text.len();
            text[at] = b.u8();
        }
        let list = match b.u8() % 3 {
            0 => EXAMPLE_LIST,
            1 => DRIFTED_LIST,
            _ => &payload[split..],
        };
        let mut lock: *mut contractpin_lock = ptr::null_mut();
        let mut error: *mut contractpin_lock_error = ptr::null_mut();
        let mut err_off = Some(OFFSET_SENTINEL);
        // SAFETY: `text` is readable; the out-pointers are locals.
        let st = unsafe {
            contractpin_lock_parse(
                text.as_ptr(),
                text.len(),
                &mut lock,
                &mut error,
                opt_ptr(&mut err_off),
            )
        };
        match contractpin::lock::Lock::parse(&text) {
            Err(e) => {
                assert!((64..=68).contains(&code(st)), "lock status {st:?}");
                assert!(lock.is_null() && !error.is_null());
                // SAFETY: `error` is live until freed just after.
                unsafe {
                    lock_error_matches(error, st, &e);
                    contractpin_lock_error_free(error);
                }
            }
            Ok(parsed) => {
                assert_eq!(code(st), 0, "lock parse of {}", show(&text));
                assert!(!lock.is_null() && error.is_null());
                // SAFETY: `lock` is live until freed just after.
                unsafe {
                    lock_matches(lock, (&parsed, &text), list, b);
                    contractpin_lock_free(lock);
                }
            }
        }
    }

    /// The accessors of a lock error agree with the library's error.
    ///
    /// # Safety
    /// `error` is a live result of `contractpin_lock_parse`.
    unsafe fn lock_error_matches(
        error: *const contractpin_lock_error,
        st: contractpin_status,
        e: &contractpin::lock::LockError,
    ) {
        // SAFETY: `error` is live by the caller's contract, the out-pointers
        // are locals (the same holds for each call below).
        assert_eq!(unsafe { contractpin_lock_error_status(error) }, st);
        let mut at = usize::MAX;
        // SAFETY: as above.
        let got = unsafe { contractpin_lock_error_offset(error, &mut at) };
        match e.json_error() {
            Some(j) => assert_eq!((code(got), at), (0, j.offset())),
            None => assert_eq!((code(got), at), (105, usize::MAX)),
        }
        let (mut p, mut len): (*const u8, usize) = (ptr::null(), 0);
        // SAFETY: as above.
        let st = unsafe { contractpin_lock_error_path(error, &mut p, &mut len) };
        assert_eq!(code(st), 0);
        // SAFETY: on success the library wrote a span it owns, live with `error`.
        let path = unsafe { std::slice::from_raw_parts(p, len) };
        assert_eq!(path, e.path().as_bytes());
        // SAFETY: as above.
        let st = unsafe { contractpin_lock_error_detail(error, &mut p, &mut len) };
        assert_eq!(code(st), 0);
        // SAFETY: as above.
        let detail = unsafe { std::slice::from_raw_parts(p, len) };
        assert_eq!(detail, e.detail().as_bytes());
    }

    /// The accessors of a parsed lock agree with the library's lock, and
    /// verifying `list` against it agrees with `contractpin_verify` on its
    /// bytes `text`.
    ///
    /// # Safety
    /// `lock` is a live result of `contractpin_lock_parse`.
    unsafe fn lock_matches(
        lock: *const contractpin_lock,
        (parsed, text): (&contractpin::lock::Lock, &[u8]),
        list: &[u8],
        b: &mut Bytes<'_>,
    ) {
        // SAFETY: `lock` is live by the caller's contract, the out-pointers
        // are locals (the same holds for each call below).
        let n = unsafe { contractpin_lock_server_count(lock) };
        assert_eq!(n, parsed.servers.len());
        let mut names = Vec::new();
        for i in 0..n + 1 {
            let (mut p, mut len): (*const u8, usize) = (ptr::null(), 0);
            // SAFETY: as above.
            let st = unsafe { contractpin_lock_server_name(lock, i, &mut p, &mut len) };
            if i == n {
                assert_eq!(code(st), 103);
                break;
            }
            assert_eq!(code(st), 0);
            // SAFETY: on success the library wrote a span it owns, live with `lock`.
            names.push(
                String::from_utf8(unsafe { std::slice::from_raw_parts(p, len) }.to_vec()).unwrap(),
            );
        }
        let mut want: Vec<String> = parsed.servers.keys().cloned().collect();
        want.sort_by(|a, c| a.encode_utf16().cmp(c.encode_utf16()));
        assert_eq!(names, want, "server names in UTF-16 order");
        let name = names
            .get(b.u8() as usize % (n + 1))
            .map_or("nope", String::as_str);
        let flags = (b.u8() % 4) as u32;
        let mut from_handle: *mut contractpin_report = ptr::null_mut();
        let mut from_bytes: *mut contractpin_report = ptr::null_mut();
        // SAFETY: as above; `name` and `list` are readable for their lengths.
        let (s1, s2) = unsafe {
            (
                contractpin_lock_verify(
                    lock,
                    name.as_ptr(),
                    name.len(),
                    list.as_ptr(),
                    list.len(),
                    flags,
                    ptr::null(),
                    &mut from_handle,
                    ptr::null_mut(),
                ),
                contractpin_verify(
                    text.as_ptr(),
                    text.len(),
                    name.as_ptr(),
                    name.len(),
                    list.as_ptr(),
                    list.len(),
                    flags,
                    &mut from_bytes,
                    ptr::null_mut(),
                ),
            )
        };
        assert_eq!(s1, s2, "lock_verify and verify differ on {}", show(list));
        if code(s1) == 0 {
            // SAFETY: both reports are live until freed just after.
            unsafe {
                assert_eq!(report_json(from_handle), report_json(from_bytes));
                contractpin_report_free(from_handle);
                contractpin_report_free(from_bytes);
            }
        }
    }

    /// The JSON of a report.
    ///
    /// # Safety
    /// `r` is a live report.
    unsafe fn report_json(r: *const contractpin_report) -> Vec<u8> {
        let mut len = 0usize;
        // SAFETY: `r` is live by the caller's contract; a NULL buffer with
        // capacity 0 asks for the length.
        let _ = unsafe { contractpin_report_json(r, ptr::null_mut(), 0, &mut len) };
        let mut buf = vec![0u8; len];
        // SAFETY: as above; `buf` is writable for `len` bytes.
        let st = unsafe { contractpin_report_json(r, buf.as_mut_ptr(), len, &mut len) };
        assert_eq!(code(st), 0);
        buf
    }

    /// `contractpin_verify_server_with_limits` (lock bytes) and
    /// `contractpin_lock_verify_server` (parsed lock): the same status, error
    /// offset and input, report and JSON; the status in the documented order
    /// of checks (flags, name, lock, server, handshake, list) against the
    /// library; the instructions verdict and exit code consistent.
    fn verify_server(b: &mut Bytes<'_>, payload: &[u8]) {
        let split = b.u32() as usize % (payload.len() + 1);
        let init: &[u8] = match b.u8() % 3 {
            0 => INITIALIZE,
            1 => INITIALIZE_DRIFTED,
            _ => &payload[..split],
        };
        let list: &[u8] = match b.u8() % 2 {
            0 => VALID_TOOLS,
            _ => &payload[split..],
        };
        let names: [&[u8]; 4] = [b"acme", b"bare", b"nope", b"\xff"];
        let name = names[b.u8() as usize % 4];
        let flags = match b.u8() % 5 {
            0 => b.u32(),
            f => (f - 1) as u32,
        };
        let (lim, rust_limits) = limits(b);
        let lim_ptr = limits_ptr(&lim);
        let handle = Lock::parse(INSTRUCTIONS_LOCK);
        let mut reports = [ptr::null_mut::<contractpin_report>(); 2];
        let mut offsets = [OFFSET_SENTINEL; 2];
        let mut inputs = [contractpin_input::Lock; 2];
        // SAFETY: each pointer valid for its length; `handle` is live; the
        // out-pointers are locals.
        let statuses = unsafe {
            let [r0, r1] = &mut reports;
            let [o0, o1] = &mut offsets;
            let [i0, i1] = &mut inputs;
            [
                contractpin_verify_server_with_limits(
                    INSTRUCTIONS_LOCK.as_ptr(),
                    INSTRUCTIONS_LOCK.len(),
                    name.as_ptr(),
                    name.len(),
                    init.as_ptr(),
                    init.len(),
                    list.as_ptr(),
                    list.len(),
                    flags,
                    lim_ptr,
                    r0,
                    o0,
                    i0,
                ),
                contractpin_lock_verify_server(
                    handle.0,
                    name.as_ptr(),
                    name.len(),
                    init.as_ptr(),
                    init.len(),
                    list.as_ptr(),
                    list.len(),
                    flags,
                    lim_ptr,
                    r1,
                    o1,
                    i1,
                ),
            ]
        };
        // Freed before the reports are read: they do not depend on it.
        drop(handle);
        assert_eq!(statuses[0], statuses[1], "bytes and handle differ");
        assert_eq!(offsets[0], offsets[1]);
        let expected = if flags & !3 != 0 || std::str::from_utf8(name).is_err() {
            Err((101, None))
        } else if !["acme", "bare"].contains(&std::str::from_utf8(name).unwrap()) {
            Err((69, None))
        } else if let Err(e) = contractpin::guard::handshake_facts(init, &rust_limits) {
            Err((
                e.kind() as u32,
                Some((e.offset(), contractpin_input::InitializeResult)),
            ))
        } else if let Err(e) =
            Context::with_limits(rust_limits).digest_tools_list_owned(list, ListOptions::default())
        {
            Err((
                e.kind() as u32,
                Some((e.offset(), contractpin_input::ToolsList)),
            ))
        } else {
            Ok(())
        };
        match expected {
            Err((want, at)) => {
                assert_eq!(
                    code(statuses[0]),
                    want,
                    "verify_server of {} / {}",
                    show(init),
                    show(list)
                );
                assert!(
                    reports.iter().all(|r| r.is_null()),
                    "out written on failure"
                );
                if let Some((offset, input)) = at {
                    assert_eq!((offsets[0], inputs[0]), (offset, input));
                    assert_eq!(inputs[1], input);
                }
            }
            Ok(()) => {
                assert_eq!(
                    code(statuses[0]),
                    0,
                    "verify_server of {} / {}",
                    show(init),
                    show(list)
                );
                // SAFETY: both reports are live until freed just after.
                unsafe {
                    assert_eq!(report_json(reports[0]), report_json(reports[1]));
                    server_report_consistent(reports[0], flags);
                    reports.iter().for_each(|&r| contractpin_report_free(r));
                }
            }
        }
    }

    /// A report with a handshake: its instructions verdict is not checked
    /// exactly when asked to ignore them, and its exit code is 1 exactly
    /// when a tool or the instructions fail it.
    ///
    /// # Safety
    /// `r` is a live report of a `*_verify_server` call.
    unsafe fn server_report_consistent(r: *const contractpin_report, flags: u32) {
        use contractpin_instructions_status as I;
        let mut status = I::None;
        // SAFETY: `r` is live by the caller's contract, the out-pointers are
        // locals (the same holds for each call below).
        let st = unsafe { contractpin_report_instructions(r, &mut status) };
        assert_eq!(code(st), 0);
        assert_eq!(
            status == I::NotChecked,
            flags & CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS != 0
        );
        let (mut u, mut d, mut a, mut rm) = (0usize, 0usize, 0usize, 0usize);
        // SAFETY: as above.
        let st = unsafe { contractpin_report_counts(r, &mut u, &mut d, &mut a, &mut rm) };
        assert_eq!(code(st), 0);
        let allow_new = flags & CONTRACTPIN_VERIFY_ALLOW_NEW != 0;
        let instructions_fail = match status {
            I::Drifted | I::Removed => true,
            I::Added => !allow_new,
            _ => false,
        };
        let fails = d + rm > 0 || (a > 0 && !allow_new) || instructions_fail;
        // SAFETY: as above.
        assert_eq!(unsafe { contractpin_report_exit_code(r) }, i32::from(fails));
        let mut digest = [SENTINEL; 32];
        // SAFETY: as above; `digest` is writable for 32 bytes.
        let st = unsafe { contractpin_report_instructions_live_digest(r, digest.as_mut_ptr()) };
        assert!(
            code(st) == 0 || digest == [SENTINEL; 32],
            "digest written on failure"
        );
    }
}
