//! `bench-table`: contractpin against its peers and the SHA-256 floor, in one
//! run, on the seeded payloads of `benches/common/payloads.rs`.
//!
//! Run it through `scripts/bench-table.sh`, which builds it in release mode,
//! installs the pinned Python and Node peers and finds the CLI. Settings come
//! from the environment:
//!
//! - `BENCH_BUDGET_MS`: time spent on each measured case (default 400);
//! - `BENCH_PYTHON`: a Python with `rfc8785` (the Python peer is skipped if unset);
//! - `BENCH_NODE` and `BENCH_NODE_PATH`: node and a `node_modules` holding
//!   `canonicalize` (the Node peer is skipped if unset);
//! - `BENCH_CLI`: the `contractpin` binary (the process row is skipped if unset);
//! - `BENCH_DIR`: where payload files are written (default: a temp dir).
//!
//! MB is 10^6 bytes. Every throughput is input bytes per second.

#[path = "../../benches/common/payloads.rs"]
mod payloads;

mod external;
mod floor;
mod peers;
mod table;
mod timing;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use contractpin::json::{self, Node};
use contractpin::{Context, Limits, ListOptions};

use peers::Jcs;

/// The table's settings, from the environment (see the module doc).
struct Config {
    budget: Duration,
    python: Option<String>,
    node: Option<String>,
    node_path: Option<String>,
    cli: Option<String>,
    dir: PathBuf,
    scripts: PathBuf,
}

impl Config {
    fn from_env() -> Config {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let ms = var("BENCH_BUDGET_MS")
            .and_then(|v| v.parse().ok())
            .unwrap_or(400);
        Config {
            budget: Duration::from_millis(ms),
            python: var("BENCH_PYTHON"),
            node: var("BENCH_NODE"),
            node_path: var("BENCH_NODE_PATH"),
            cli: var("BENCH_CLI"),
            dir: var("BENCH_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| std::env::temp_dir().join("contractpin-bench")),
            scripts: Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts"),
        }
    }
}

/// `bench-table profile WHAT PAYLOAD SECONDS`: loops one step for a profiler
/// (PAYLOAD: see [`payload_named`]).
/// (`bench-table cli`, with `BENCH_CLI` set: the CLI section of the table
/// alone, with its target.)
fn profile(args: &[String]) {
    let what = args.first().map_or("pipeline", String::as_str);
    let name = args.get(1).map_or("M", String::as_str);
    // SECONDS, or a fixed run count such as `200x` (for `perf stat`).
    let limit = args.get(2).map_or("5", String::as_str);
    let (secs, max_runs) = match limit.strip_suffix('x') {
        Some(n) => (f64::INFINITY, n.parse().unwrap_or(100u64)),
        None => (limit.parse().unwrap_or(5.0), u64::MAX),
    };
    let p = payload_named(name);
    let mut ctx = Context::new();
    let mut nodes = vec![Node::EMPTY; json::scratch_needed(&p.bytes)];
    let start = std::time::Instant::now();
    let mut runs = 0u64;
    let mut fastest = f64::INFINITY;
    while runs < max_runs && start.elapsed().as_secs_f64() < secs {
        let t = std::time::Instant::now();
        match what {
            "parse" => {
                black_box(json::parse(&p.bytes, &mut nodes, &Limits::DEFAULT).expect("parse"));
            }
            "canonicalize" => {
                black_box(ctx.canonicalize(&p.bytes).expect("canon").len());
            }
            "verify" => {
                let opts = ListOptions {
                    field_digests: false,
                };
                black_box(
                    ctx.digest_tools_list(&p.bytes, opts, |_| {})
                        .expect("verify"),
                );
            }
            "serde" => {
                black_box(peers::pipeline(Jcs::Canonicalizer, &p.bytes, true));
            }
            _ => {
                let opts = ListOptions {
                    field_digests: true,
                };
                black_box(
                    ctx.digest_tools_list(&p.bytes, opts, |_| {})
                        .expect("pipeline"),
                );
            }
        }
        fastest = fastest.min(t.elapsed().as_secs_f64());
        runs += 1;
    }
    let per = start.elapsed().as_secs_f64() / runs as f64;
    // Microseconds show for lists of a few tools.
    let ms = |secs: f64| format!("{:.*}", if secs < 1e-3 { 6 } else { 3 }, secs * 1e3);
    println!(
        "{what} on {name}: {runs} runs, {} ms/run, {:.1} MB/s, fastest {} ms",
        ms(per),
        p.bytes.len() as f64 / per / 1e6,
        ms(fastest)
    );
}

/// A payload by name: one of the standard set, or `Tn`, a compact list of
/// `n` tools (`T5`: five tools, about 20 KB, the size of a typical
/// server's list).
fn payload_named(name: &str) -> payloads::Payload {
    if let Some(tools) = name.strip_prefix('T').and_then(|n| n.parse().ok()) {
        let bytes = payloads::tools_list(tools, payloads::Style::Compact, payloads::SEED);
        return payloads::Payload {
            name: name.into(),
            tools,
            bytes,
        };
    }
    payloads::standard()
        .into_iter()
        .find(|p| p.name == name)
        .expect("payload name: S, M, L, M-pretty, M-numbers, A, or Tn (n tools)")
}

/// `bench-table payloads DIR`: writes every payload as `DIR/NAME.json` (for
/// timing the CLI by hand, e.g. `hyperfine -N 'contractpin digest DIR/L.json'`).
fn write_payloads(dir: &str) {
    std::fs::create_dir_all(dir).expect("payload dir");
    for p in payloads::standard() {
        let file = Path::new(dir).join(format!("{}.json", p.name));
        std::fs::write(&file, &p.bytes).expect("write payload");
        println!("{} ({} bytes)", file.display(), p.bytes.len());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("profile") => profile(&args[1..]),
        Some("payloads") => write_payloads(args.get(1).map_or(".", String::as_str)),
        Some("cli") => table::run_cli(&Config::from_env()),
        _ => table::run(&Config::from_env()),
    }
}
