//! A/B timing of the digest pipeline for noisy, shared machines: for each
//! payload (M, M-numbers from `benches/common/payloads.rs`, and the
//! ASCII-plain list A) and each mode (`pipeline`:
//! tool, field and server digests; `verify`: tool and server digests), it
//! times N calls with a reused `Context` and prints the fastest and the
//! median call. Uses only the public API, so the same file builds against an
//! older commit: build both, then run them in alternating rounds and keep
//! each side's fastest figure (docs/PERFORMANCE.md, "Hashing").
//!
//! `cargo run --release --example digest_timing -- [N]` (default 200);
//! `... -- N count PAYLOAD MODE` runs one case N times and prints nothing
//! (for `valgrind --tool=callgrind`).

#[path = "../benches/common/payloads.rs"]
mod payloads;

use std::hint::black_box;
use std::time::Instant;

use contractpin::{Context, ListOptions};

fn run(ctx: &mut Context, input: &[u8], field_digests: bool) {
    let r = ctx
        .digest_tools_list(input, ListOptions { field_digests }, |t| {
            black_box(t);
        })
        .unwrap();
    black_box(r);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(200);
    let all: Vec<(String, Vec<u8>)> = payloads::standard()
        .into_iter()
        .filter(|p| ["M", "M-numbers", "A"].contains(&p.name.as_str()))
        .map(|p| (p.name, p.bytes))
        .collect();
    let mut ctx = Context::new();
    if args.get(2).map(String::as_str) == Some("count") {
        let input = &all.iter().find(|p| p.0 == args[3]).expect("payload").1;
        for _ in 0..n {
            run(&mut ctx, input, args[4] == "pipeline");
        }
        return;
    }
    for (name, input) in &all {
        for (mode, field_digests) in [("pipeline", true), ("verify", false)] {
            let mut t: Vec<f64> = (0..n)
                .map(|_| {
                    let start = Instant::now();
                    run(&mut ctx, input, field_digests);
                    start.elapsed().as_secs_f64() * 1e3
                })
                .collect();
            t.sort_by(f64::total_cmp);
            println!(
                "{mode} {name} ({} bytes) min {:.3} ms  p50 {:.3} ms",
                input.len(),
                t[0],
                t[n / 2]
            );
        }
    }
}
