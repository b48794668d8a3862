//! Placeholder while the number benches are written.
fn main() {}
