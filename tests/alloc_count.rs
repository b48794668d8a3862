//! Heap use of the digest entry points, measured by a counting global
//! allocator (issue 5 targets):
//!
//! - with a reused [`Context`], digests make **zero** heap allocations once
//!   the context has warmed up;
//! - a one-shot digest of a tools/list peaks at no more than **2x the input
//!   size** in heap.
//!
//! Only allocations made by the test's own thread while counting is switched
//! on are counted, so the harness's other threads do not disturb the numbers.

#[path = "../benches/common/payloads.rs"]
mod payloads;

use contractpin::{Context, ListOptions};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{measure, SERIAL};

#[test]
fn the_counter_sees_allocations() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (n, peak, v) = measure(|| vec![0u8; 1000]);
    assert_eq!(n, 1);
    assert!(peak >= 1000);
    drop(v);
}

#[test]
fn reused_context_allocates_nothing_after_warm_up() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let payloads = payloads::standard();
    let tool = br#"{"name":"echo","description":"Echo \u00e9","inputSchema":{"type":"object","properties":{"b":{"type":"number","maximum":1.5e3},"a":{"type":"string"}}},"annotations":{"readOnlyHint":true}}"#;
    let mut ctx = Context::new();
    let full = ListOptions {
        field_digests: true,
    };
    let verify = ListOptions {
        field_digests: false,
    };
    // Warm up on the largest payload first, then everything once.
    // (The verify path pairs tools in two buffers that grow to the longest
    // contract; the pipeline needs none.)
    for p in payloads.iter().rev() {
        ctx.digest_tools_list(&p.bytes, full, |_| {}).unwrap();
        ctx.digest_tools_list(&p.bytes, verify, |_| {}).unwrap();
        ctx.canonicalize(&p.bytes).unwrap();
    }
    ctx.tool_digest(tool).unwrap();
    for p in &payloads {
        let mut seen = 0usize;
        let (n, _, _) = measure(|| {
            ctx.digest_tools_list(&p.bytes, full, |t| seen += t.fields.iter().count())
                .unwrap()
        });
        assert_eq!(n, 0, "pipeline on {} allocated {n} times", p.name);
        assert!(seen >= 3 * p.tools);
        let (n, _, _) = measure(|| ctx.digest_tools_list(&p.bytes, verify, |_| {}).unwrap());
        assert_eq!(n, 0, "verify path on {} allocated {n} times", p.name);
        let (n, _, _) = measure(|| ctx.canonicalize(&p.bytes).unwrap().len());
        assert_eq!(n, 0, "canonicalize on {} allocated {n} times", p.name);
    }
    let (n, _, _) = measure(|| ctx.tool_digest(tool).unwrap());
    assert_eq!(n, 0, "tool digest allocated {n} times");
}

#[test]
fn one_shot_digest_peaks_below_twice_the_input() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut over = Vec::new();
    for p in payloads::standard() {
        let (_, peak, result) = measure(|| contractpin::digest_tools_list(&p.bytes).unwrap());
        assert_eq!(result.tools.len(), p.tools);
        let ratio = peak as f64 / p.bytes.len() as f64;
        println!(
            "{}: {} bytes in, peak heap {peak} bytes ({ratio:.2}x)",
            p.name,
            p.bytes.len()
        );
        if peak > 2 * p.bytes.len() {
            over.push(format!("{} ({ratio:.2}x)", p.name));
        }
        drop(result);
    }
    assert!(
        over.is_empty(),
        "one-shot digest peaked above 2x the input: {over:?}"
    );
}

/// An input over the size limit fails on its size before any memory is
/// sized from it, and a handshake or lock that fails early costs what was
/// parsed before the error, not a scratch sized from the whole input (an
/// adversarial review of the C ABI found a 1 GiB page under a 1 MiB
/// `max_input` aborting the process on a failed 2 GiB allocation, and a
/// 64 MiB handshake of `[` taking 1 GiB before its depth error).
#[test]
fn inputs_over_the_limits_cost_no_memory_in_proportion() {
    use contractpin::guard::{guard_instructions, guard_page, GuardMode};
    use contractpin::lock::{Lock, LockServer, Source};
    use contractpin::{ErrorKind, Limits};

    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let small = Limits {
        max_input: 1 << 20,
        ..Limits::DEFAULT
    };
    let big = vec![b'['; 16 << 20];
    let over_default = vec![b'['; Limits::DEFAULT.max_input + 1];
    let pinned = LockServer::from_server_digest(
        Source::File { path: "x".into() },
        &contractpin::digest_tools_list(br#"{"tools":[]}"#).unwrap(),
    );
    let bound = 256 << 10;
    let check = |what: &str, kind: Option<ErrorKind>, f: &mut dyn FnMut() -> Option<ErrorKind>| {
        let (_, peak, got) = measure(f);
        assert_eq!(got, kind, "{what}");
        assert!(peak <= bound, "{what}: peak heap {peak} bytes");
    };
    let size = Some(ErrorKind::SizeLimit);
    check("Context::canonicalize", size, &mut || {
        Context::with_limits(small)
            .canonicalize(&big)
            .err()
            .map(|e| e.kind())
    });
    check("Context::tool_digest", size, &mut || {
        Context::with_limits(small)
            .tool_digest(&big)
            .err()
            .map(|e| e.kind())
    });
    check("Context::digest_tools_list", size, &mut || {
        let mut ctx = Context::with_limits(small);
        let r = ctx.digest_tools_list(&big, ListOptions::default(), |_| {});
        r.err().map(|e| e.kind())
    });
    check("guard_page", size, &mut || {
        guard_page(&pinned, &big, GuardMode::Enforce, &small)
            .err()
            .map(|e| e.kind())
    });
    check("guard_instructions", size, &mut || {
        guard_instructions(&pinned, &big, GuardMode::Enforce, &small)
            .err()
            .map(|e| e.kind())
    });
    check("canonicalize (default limits)", size, &mut || {
        contractpin::canonicalize(&over_default)
            .err()
            .map(|e| e.kind())
    });
    check("digest_tools_list (default limits)", size, &mut || {
        contractpin::digest_tools_list(&over_default)
            .err()
            .map(|e| e.kind())
    });
    check("Lock::parse", None, &mut || {
        assert!(Lock::parse(&over_default).is_err());
        None
    });
    // Within the limits, failing early: the depth limit after 256 levels.
    let depth = Some(ErrorKind::DepthLimit);
    check("guard_instructions, depth", depth, &mut || {
        guard_instructions(&pinned, &big[..1 << 20], GuardMode::Enforce, &small)
            .err()
            .map(|e| e.kind())
    });
    check("Lock::parse, depth", None, &mut || {
        assert!(Lock::parse(&big).is_err());
        None
    });
}
