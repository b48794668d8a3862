//! Criterion benches of the digest core on the seeded payloads
//! (`benches/common/payloads.rs`): parse, canonicalize, the full pipeline
//! (tool + field + server digests) and the verify path (tool digests only).
//!
//! `cargo bench --bench core`; the side-by-side table with the peers and the
//! SHA-256 floor is `scripts/bench-table.sh` (see docs/PERFORMANCE.md).

#[path = "common/payloads.rs"]
mod payloads;

use std::hint::black_box;
use std::time::Duration;

use contractpin::json::{self, Node};
use contractpin::{Context, Limits, ListOptions};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
}

fn benches(c: &mut Criterion) {
    let all = payloads::standard();
    let mut ctx = Context::new();

    let mut group = c.benchmark_group("parse");
    for p in &all {
        let mut nodes = vec![Node::EMPTY; json::scratch_needed(&p.bytes)];
        group.throughput(Throughput::Bytes(p.bytes.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(&p.name),
            &p.bytes,
            |b, input| {
                b.iter(|| {
                    black_box(
                        json::parse(input, &mut nodes, &Limits::DEFAULT)
                            .unwrap()
                            .len(),
                    );
                })
            },
        );
    }
    group.finish();

    let mut group = c.benchmark_group("canonicalize");
    for p in &all {
        group.throughput(Throughput::Bytes(p.bytes.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(&p.name),
            &p.bytes,
            |b, input| b.iter(|| black_box(ctx.canonicalize(input).unwrap().len())),
        );
    }
    group.finish();

    for (name, field_digests) in [("pipeline", true), ("verify", false)] {
        let mut group = c.benchmark_group(name);
        for p in &all {
            group.throughput(Throughput::Bytes(p.bytes.len() as u64));
            group.bench_with_input(
                BenchmarkId::from_parameter(&p.name),
                &p.bytes,
                |b, input| {
                    b.iter(|| {
                        ctx.digest_tools_list(input, ListOptions { field_digests }, |t| {
                            black_box(t);
                        })
                        .unwrap()
                    })
                },
            );
        }
        group.finish();
    }

    let mut group = c.benchmark_group("one-shot");
    for p in all.iter().filter(|p| p.name == "M") {
        group.throughput(Throughput::Bytes(p.bytes.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(&p.name),
            &p.bytes,
            |b, input| b.iter(|| contractpin::digest_tools_list(input).unwrap()),
        );
    }
    group.finish();
}

criterion_group! {
    name = core;
    config = config();
    targets = benches
}
criterion_main!(core);
