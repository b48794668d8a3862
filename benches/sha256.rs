//! Placeholder while the sha256 benches are written.
fn main() {}
