//! A small, honest timer: warm up, then time single runs until a budget is
//! spent, and report the median (the machine is shared and noisy).

use std::time::{Duration, Instant};

/// Seconds per run: median and minimum.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Median seconds per run.
    pub median: f64,
    /// Fastest run.
    pub min: f64,
    /// Runs timed.
    pub runs: usize,
}

/// Times `f` for about `budget` (at least `min_runs` runs) after one warm-up run.
pub fn time<F: FnMut()>(budget: Duration, min_runs: usize, mut f: F) -> Timing {
    f();
    let start = Instant::now();
    let mut samples = Vec::new();
    while samples.len() < min_runs || start.elapsed() < budget {
        let t = Instant::now();
        f();
        samples.push(t.elapsed().as_secs_f64());
        if samples.len() >= 100_000 {
            break;
        }
    }
    samples.sort_by(f64::total_cmp);
    Timing {
        median: samples[samples.len() / 2],
        min: samples[0],
        runs: samples.len(),
    }
}

/// Times `f` when one run is too short to time alone: each sample is a batch
/// of `batch` runs; the result is per run.
pub fn time_batched<F: FnMut()>(budget: Duration, batch: usize, mut f: F) -> Timing {
    let t = time(budget, 5, || {
        for _ in 0..batch {
            f();
        }
    });
    Timing {
        median: t.median / batch as f64,
        min: t.min / batch as f64,
        runs: t.runs * batch,
    }
}

/// Times `f`, batching runs so that one sample takes at least a millisecond.
pub fn time_auto<F: FnMut()>(budget: Duration, mut f: F) -> Timing {
    let t = Instant::now();
    f();
    let once = t.elapsed().as_secs_f64().max(1e-9);
    if once >= 1e-3 {
        time(budget, 5, f)
    } else {
        time_batched(budget, (1e-3 / once).ceil() as usize, f)
    }
}

/// Times `f` and `g` in alternating rounds (so both see the same machine
/// conditions) and keeps each one's fastest run.
pub fn time_pair<F: FnMut(), G: FnMut()>(budget: Duration, mut f: F, mut g: G) -> (Timing, Timing) {
    let rounds = 6;
    let slice = budget / rounds;
    let (mut a, mut b) = (time(slice, 3, &mut f), time(slice, 3, &mut g));
    for _ in 1..rounds {
        let (x, y) = (time(slice, 3, &mut f), time(slice, 3, &mut g));
        a.min = a.min.min(x.min);
        a.runs += x.runs;
        b.min = b.min.min(y.min);
        b.runs += y.runs;
    }
    (a, b)
}
