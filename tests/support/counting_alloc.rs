//! A global allocator that counts, for tests that bound heap use: every
//! call goes to the system allocator, and while [`measure`] runs `f` on a
//! thread, the allocations and the peak of live bytes of that thread are
//! counted. Counting is global state: tests take turns through [`SERIAL`].
//! Included (`#[path]`) by the test crates that need it, each of which gets
//! it as its `#[global_allocator]`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

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

fn shrink(by: usize) {
    LIVE.fetch_sub(by.min(LIVE.load(Ordering::Relaxed)), Ordering::Relaxed);
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
            shrink(layout.size());
        }
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counting() {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            // While moving, the old and the new block both exist.
            grow(new_size);
            shrink(layout.size());
        }
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap use of `f` on this thread: (allocations, peak bytes live above the
/// start, its result).
pub fn measure<R>(f: impl FnOnce() -> R) -> (usize, usize, R) {
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
pub static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
