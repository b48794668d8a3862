//! Placeholder while the core benches are written.
fn main() {}
