//! Criterion benches of SHA-256: the portable back end and this CPU's
//! hardware one (SHA-NI, or the Armv8 instructions), when it has one, over
//! short and long messages; the bench id names the back end. The
//! comparison with the `sha2` crate is in `scripts/bench-table.sh`.
//!
//! `sha256-2way`: two independent messages of `len` bytes each (throughput counts both),
//! hashed one after the other with two `Sha256` (`1-way`), with the two-stream
//! compression `compress2` (`2-way`), and with `Sha256Pair` fed the same bytes into both
//! streams out of phase in 37-byte pieces (`pair`), as the pipeline feeds a tool and its
//! field, against two `Sha256` fed the same pieces (`tee`, what the pipeline did before).
//!
//! `sha256-many`: 256 messages of 4 KiB hashed one after the other, in pairs
//! (`Sha256Pair`), and all at once (`digest_many`: sixteen AVX-512 lanes,
//! SHA-NI's four streams or pairs, as `digest_many_lanes` reports).
//!
//! `pipeline-ascii`: the digest pipeline (`pipeline`: tool + field + server digests;
//! `verify`: tool + server digests) on the ASCII-plain list (payload A of `common/payloads.rs`), whose
//! long unescaped descriptions reach the hashers as whole blocks.

#[path = "common/payloads.rs"]
mod payloads;

use std::hint::black_box;
use std::time::Duration;

use contractpin::sha256::{compress2, detected_backend, Backend, Sha256, Sha256Pair};
use contractpin::{Context, ListOptions};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// The portable back end, and the detected one when it is another.
fn backends() -> Vec<Backend> {
    let mut v = vec![Backend::Portable, detected_backend()];
    v.dedup();
    v
}

fn benches(c: &mut Criterion) {
    let data: Vec<u8> = (0..1 << 20).map(|i| (i * 31 + 7) as u8).collect();
    let mut group = c.benchmark_group("sha256");
    for backend in backends() {
        let actual = Sha256::with_backend(backend).backend();
        for len in [64usize, 1024, 1 << 20] {
            group.throughput(Throughput::Bytes(len as u64));
            let id = BenchmarkId::new(format!("{actual:?}"), len);
            group.bench_with_input(id, &data[..len], |b, msg| {
                b.iter(|| {
                    let mut h = Sha256::with_backend(backend);
                    h.update(black_box(msg));
                    h.finalize()
                })
            });
        }
    }
    group.finish();

    let mut group = c.benchmark_group("sha256-2way");
    for backend in backends() {
        let actual = Sha256::with_backend(backend).backend();
        for len in [1024usize, 64 << 10] {
            let (a, b) = (&data[..len], &data[len..2 * len]);
            group.throughput(Throughput::Bytes(2 * len as u64));
            let id = BenchmarkId::new(format!("{actual:?}/1-way"), len);
            group.bench_function(id, |bench| {
                bench.iter(|| {
                    let (mut x, mut y) =
                        (Sha256::with_backend(backend), Sha256::with_backend(backend));
                    x.update(black_box(a));
                    y.update(black_box(b));
                    (x.finalize(), y.finalize())
                })
            });
            let id = BenchmarkId::new(format!("{actual:?}/2-way"), len);
            group.bench_function(id, |bench| {
                bench.iter(|| {
                    let (mut x, mut y) = ([0u32; 8], [1u32; 8]);
                    compress2(backend, &mut x, black_box(a), &mut y, black_box(b));
                    (x, y)
                })
            });
            let id = BenchmarkId::new(format!("{actual:?}/tee"), len);
            group.bench_function(id, |bench| {
                bench.iter(|| {
                    let mut x = Sha256::with_backend(backend);
                    let mut y = Sha256::with_backend(backend);
                    x.update(b"{\"inputSchema\":");
                    for piece in black_box(a).chunks(37) {
                        x.update(piece);
                        y.update(piece);
                    }
                    (y.finalize(), x.finalize())
                })
            });
            let id = BenchmarkId::new(format!("{actual:?}/pair"), len);
            group.bench_function(id, |bench| {
                bench.iter(|| {
                    let mut p = Sha256Pair::with_backend(backend);
                    p.update_a(b"{\"inputSchema\":");
                    for piece in black_box(a).chunks(37) {
                        p.update_both(piece);
                    }
                    (p.finalize_reset_b(), p.finalize_reset_a())
                })
            });
        }
    }
    group.finish();

    // Many messages at once: 256 of 4 KiB (a tools/list's contracts), one
    // after the other with `Sha256`, in pairs with `compress2`, and with
    // `digest_many` (sixteen AVX-512 lanes, or SHA-NI's four streams).
    let msgs: Vec<&[u8]> = data.chunks(4096).take(256).collect();
    let mut out = vec![[0u8; 32]; msgs.len()];
    let mut group = c.benchmark_group("sha256-many");
    group.throughput(Throughput::Bytes((msgs.len() * 4096) as u64));
    group.bench_function("1-way", |b| {
        b.iter(|| {
            for (m, d) in msgs.iter().zip(out.iter_mut()) {
                *d = contractpin::sha256::digest(m);
            }
        })
    });
    group.bench_function("pairs", |b| {
        b.iter(|| {
            let mut pair = Sha256Pair::new();
            for (two, d) in msgs.chunks(2).zip(out.chunks_mut(2)) {
                pair.update2(two[0], two[1]);
                d[0] = pair.finalize_reset_a();
                d[1] = pair.finalize_reset_b();
            }
        })
    });
    group.bench_function("digest_many", |b| {
        b.iter(|| contractpin::sha256::digest_many(&msgs[..], &mut out))
    });
    group.finish();

    let input = payloads::ascii_tools_list();
    let mut ctx = Context::new();
    let mut group = c.benchmark_group("pipeline-ascii");
    group.throughput(Throughput::Bytes(input.len() as u64));
    for (name, field_digests) in [("pipeline", true), ("verify", false)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                ctx.digest_tools_list(&input, ListOptions { field_digests }, |t| {
                    black_box(t);
                })
                .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = sha256;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    targets = benches
}
criterion_main!(sha256);
