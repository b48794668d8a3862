//! Criterion benches of SHA-256: the portable and the SHA-NI back ends over
//! short and long messages. (`Backend::ShaNi` falls back to portable on CPUs
//! without SHA-NI; the bench id says which back end actually ran.) The
//! comparison with the `sha2` crate is in `scripts/bench-table.sh`.

use std::hint::black_box;
use std::time::Duration;

use contractpin::sha256::{Backend, Sha256};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn benches(c: &mut Criterion) {
    let data: Vec<u8> = (0..1 << 20).map(|i| (i * 31 + 7) as u8).collect();
    let mut group = c.benchmark_group("sha256");
    for backend in [Backend::Portable, Backend::ShaNi] {
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
