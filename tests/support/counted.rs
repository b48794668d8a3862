//! A key type that counts how often it is compared (equality and order),
//! for tests that hold an algorithm to O(n log n) comparisons without
//! timing it. Counts are per thread (tests run on threads of their own).

use core::cell::Cell;
use core::cmp::Ordering;

std::thread_local! {
    static COMPARISONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    COMPARISONS.with(|c| c.set(c.get() + 1));
}

/// Starts counting from zero on this thread.
pub fn reset() {
    COMPARISONS.with(|c| c.set(0));
}

/// The comparisons made on this thread since [`reset`].
pub fn made() -> usize {
    COMPARISONS.with(Cell::get)
}

/// A key that counts the comparisons made of it (equality too).
#[derive(Debug)]
pub struct Counted(pub u32);

impl PartialEq for Counted {
    fn eq(&self, other: &Self) -> bool {
        count();
        self.0 == other.0
    }
}

impl Eq for Counted {}

impl PartialOrd for Counted {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Counted {
    fn cmp(&self, other: &Self) -> Ordering {
        count();
        self.0.cmp(&other.0)
    }
}
