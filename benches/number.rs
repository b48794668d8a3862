//! Criterion bench of ECMAScript number formatting (`number::format_f64`) on
//! random finite doubles, and of the number-heavy payload's canonicalization.
//! The comparison with ryu-js is in `scripts/bench-table.sh`.

#[path = "common/payloads.rs"]
mod payloads;

use std::hint::black_box;
use std::time::Duration;

use contractpin::number::{format_f64, MAX_LEN};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn benches(c: &mut Criterion) {
    let xs = payloads::random_doubles(4096);
    let mut group = c.benchmark_group("number");
    group.throughput(Throughput::Elements(xs.len() as u64));
    group.bench_function("format_f64/random-bits", |b| {
        b.iter(|| {
            let mut buf = [0u8; MAX_LEN];
            let mut total = 0;
            for &x in &xs {
                total += format_f64(black_box(x), &mut buf).unwrap();
            }
            total
        })
    });
    let ints: Vec<f64> = (0..4096).map(|i| (i * 7919) as f64).collect();
    group.bench_function("format_f64/integers", |b| {
        b.iter(|| {
            let mut buf = [0u8; MAX_LEN];
            let mut total = 0;
            for &x in &ints {
                total += format_f64(black_box(x), &mut buf).unwrap();
            }
            total
        })
    });
    group.finish();

    let p = payloads::tools_list(
        payloads::M_TOOLS,
        payloads::Style::NumberHeavy,
        payloads::SEED,
    );
    let mut ctx = contractpin::Context::new();
    let mut group = c.benchmark_group("number-heavy");
    group.throughput(Throughput::Bytes(p.len() as u64));
    group.bench_function("canonicalize/M-numbers", |b| {
        b.iter(|| black_box(ctx.canonicalize(&p).unwrap().len()))
    });
    group.finish();
}

criterion_group! {
    name = number;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    targets = benches
}
criterion_main!(number);
