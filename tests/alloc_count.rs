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

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use contractpin::{Context, ListOptions};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
}

fn counting() -> bool {
    ON.try_with(Cell::get).unwrap_or(false)
}

fn grow(by: usize) {
    let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// bookkeeping around it only touches atomics and a const-initialised
// thread-local, neither of which allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counting() {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            grow(layout.size());
        }
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if counting() {
            LIVE.fetch_sub(
                layout.size().min(LIVE.load(Ordering::Relaxed)),
                Ordering::Relaxed,
            );
        }
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counting() {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            // While moving, the old and the new block both exist.
            grow(new_size);
            LIVE.fetch_sub(
                layout.size().min(LIVE.load(Ordering::Relaxed)),
                Ordering::Relaxed,
            );
        }
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap use of `f` on this thread: (allocations, peak bytes live above the start).
fn measure<R>(f: impl FnOnce() -> R) -> (usize, usize, R) {
    ALLOCATIONS.store(0, Ordering::Relaxed);
    LIVE.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    ON.with(|on| on.set(true));
    let r = f();
    ON.with(|on| on.set(false));
    (
        ALLOCATIONS.load(Ordering::Relaxed),
        PEAK.load(Ordering::Relaxed),
        r,
    )
}

/// Counting is global state: the tests take turns.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

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
