//! The bench table (`bench-table` with no arguments): one function per
//! section, in the order printed:
//!
//! 1. the peers timed on M and L ([`peers_on`], printed later by
//!    [`peer_table`], after our pipeline has been timed a second time);
//! 2. our pipeline and verify path on every payload against the SHA-256
//!    floors ([`floor_table`]);
//! 3. where the time goes on M ([`breakdown`]);
//! 4. the building blocks against their peers ([`building_blocks`]);
//! 5. the CLI as a whole process on L ([`cli_process`]);
//! 6. every target, met or missed ([`Targets::print`]).

use std::collections::HashMap;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use contractpin::json::{self, Node};
use contractpin::sha256::{self, Backend, Sha256};
use contractpin::{Context, Limits, ListOptions};
use sha2::Digest as _;
use sha2_soft::Digest as _;

use crate::floor;
use crate::payloads::{self, Payload};
use crate::peers::{self, Jcs, Output};
use crate::timing::{time, time_auto, time_pair, Timing};
use crate::{external, Config};

/// The tool, field and server digests: what the pipeline computes.
const FULL: ListOptions = ListOptions {
    field_digests: true,
};
/// The tool and server digests only: what `verify` computes first.
const VERIFY: ListOptions = ListOptions {
    field_digests: false,
};

/// Runs every section and prints the table.
pub fn run(cfg: &Config) {
    std::fs::create_dir_all(&cfg.dir).expect("payload dir");
    print_header(cfg.budget);
    let all = payloads::standard();
    let mut ctx = Context::new();
    let mut targets = Targets(Vec::new());
    let mut peer_rows: Vec<(String, Vec<Row>)> = all
        .iter()
        .filter(|p| p.name == "M" || p.name == "L")
        .map(|p| (p.name.clone(), peers_on(cfg, &mut ctx, p)))
        .collect();
    let breakdown_m = floor_table(cfg.budget, &mut ctx, &all, &mut peer_rows, &mut targets);
    peer_table(&all, &peer_rows, &mut targets);
    if let (Some(m), Some(floors)) = (all.iter().find(|p| p.name == "M"), breakdown_m) {
        breakdown(cfg.budget, &mut ctx, m, floors);
    }
    building_blocks(cfg.budget, &mut targets);
    if let (Some(cli), Some(l)) = (&cfg.cli, all.iter().find(|p| p.name == "L")) {
        cli_process(cfg, cli, &mut ctx, l, &mut targets);
    }
    targets.print();
}

/// The CLI section alone (`bench-table cli`), and its target.
pub fn run_cli(cfg: &Config) {
    std::fs::create_dir_all(&cfg.dir).expect("payload dir");
    let Some(cli) = &cfg.cli else {
        eprintln!("bench-table cli: set BENCH_CLI to the contractpin binary");
        std::process::exit(2);
    };
    let l = payloads::standard()
        .into_iter()
        .find(|p| p.name == "L")
        .expect("payload L");
    std::fs::write(cfg.dir.join("L.json"), &l.bytes).expect("write L.json");
    let mut targets = Targets(Vec::new());
    cli_process(cfg, cli, &mut Context::new(), &l, &mut targets);
    targets.print();
}

fn print_header(budget: Duration) {
    println!("# contractpin bench table");
    println!();
    println!("machine: {}", machine());
    println!(
        "budget per case: {} ms (fastest run of each case: the machine may be shared, and the minimum is the least disturbed figure)",
        budget.as_millis()
    );
    println!("MB = 10^6 bytes of tools/list input; speed-up = peer time / our time");
    println!();
}

fn mbps(bytes: usize, t: &Timing) -> f64 {
    bytes as f64 / t.min / 1e6
}

/// Our result in the peers' shape (decoded names, text digests), in canonical order.
fn ours(input: &[u8]) -> Output {
    let s = contractpin::digest_tools_list(input).expect("our pipeline");
    Output {
        server: s.digest.to_string(),
        tools: s
            .tools
            .iter()
            .map(|t| (t.name.clone(), t.digest.to_string()))
            .collect(),
    }
}

/// `None` when the peer agrees; otherwise what is wrong.
fn disagreement(reference: &Output, peer: &Output) -> Option<String> {
    if reference.server == peer.server {
        return None;
    }
    let theirs: HashMap<&str, &str> = peer
        .tools
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_str()))
        .collect();
    for (name, digest) in &reference.tools {
        match theirs.get(name.as_str()) {
            None => return Some(format!("WRONG: tool {name:?} missing")),
            Some(d) if d != digest => return Some(format!("WRONG: first differing tool {name:?}")),
            Some(_) => {}
        }
    }
    Some("WRONG: server digest differs (tool digests agree)".into())
}

/// One implementation on one payload.
struct Row {
    name: String,
    timing: Option<Timing>,
    verdict: String,
}

/// Our pipeline (reused and one-shot) and every peer on one payload; the
/// first row is our reused pipeline.
fn peers_on(cfg: &Config, ctx: &mut Context, p: &Payload) -> Vec<Row> {
    let budget = cfg.budget;
    let file = cfg.dir.join(format!("{}.json", p.name));
    std::fs::write(&file, &p.bytes).expect("write payload");
    let reference = ours(&p.bytes);
    let pipeline = time_auto(budget, || digest_list(ctx, &p.bytes, FULL));
    let one_shot = time_auto(budget, || {
        black_box(contractpin::digest_tools_list(black_box(&p.bytes)).expect("one-shot"));
    });
    let mut rows = vec![
        Row {
            name: "contractpin (reused Context)".into(),
            timing: Some(pipeline),
            verdict: "reference".into(),
        },
        Row {
            name: "contractpin one-shot (owned result)".into(),
            timing: Some(one_shot),
            verdict: "ok".into(),
        },
        rust_peer(Jcs::Canonicalizer, p, &reference, budget),
        rust_peer(Jcs::SerdeJcs, p, &reference, budget),
    ];
    rows.extend(external_peers(cfg, &file, &reference));
    rows
}

fn rust_peer(jcs: Jcs, p: &Payload, reference: &Output, budget: Duration) -> Row {
    let name = match jcs {
        Jcs::Canonicalizer => "serde_json + serde_json_canonicalizer 0.4 + sha2",
        Jcs::SerdeJcs => "serde_json + serde_jcs 0.2 + sha2",
    };
    let out = peers::pipeline(jcs, &p.bytes, true);
    let verdict = disagreement(reference, &out).unwrap_or_else(|| "ok".into());
    let timing = time_auto(budget, || {
        black_box(peers::pipeline(jcs, black_box(&p.bytes), true));
    });
    Row {
        name: name.into(),
        timing: Some(timing),
        verdict,
    }
}

/// The Python and Node peers that the configuration names, on `file`.
fn external_peers(cfg: &Config, file: &Path, reference: &Output) -> Vec<Row> {
    let mut rows = Vec::new();
    if let Some(py) = &cfg.python {
        let script = cfg.scripts.join("bench-peer-python.py");
        let script = script.to_string_lossy();
        rows.push(external_peer(
            "Python json + rfc8785 0.1.4 + hashlib",
            py,
            &[&script],
            file,
            reference,
            cfg.budget,
        ));
    }
    if let Some(node) = &cfg.node {
        let script = cfg.scripts.join("bench-peer-node.mjs");
        let script = script.to_string_lossy().into_owned();
        let mut cmd_args = vec![script.as_str()];
        let path_arg;
        if let Some(np) = &cfg.node_path {
            path_arg = format!("--modules={np}");
            cmd_args.push(&path_arg);
        }
        rows.push(external_peer(
            "Node JSON.parse + canonicalize 5.1.0 + crypto",
            node,
            &cmd_args,
            file,
            reference,
            cfg.budget,
        ));
    }
    rows
}

fn external_peer(
    name: &str,
    program: &str,
    args: &[&str],
    file: &Path,
    reference: &Output,
    budget: Duration,
) -> Row {
    match external::run(program, args, file, budget.as_secs_f64().max(1.0)) {
        Ok(e) => Row {
            name: name.into(),
            verdict: disagreement(reference, &e.output).unwrap_or_else(|| "ok".into()),
            timing: Some(e.timing),
        },
        Err(err) => Row {
            name: name.into(),
            timing: None,
            verdict: format!("not run: {err}"),
        },
    }
}

fn hash_all_ours<'a>(msgs: impl Iterator<Item = &'a [u8]>, backend: Backend) {
    for m in msgs {
        let mut h = Sha256::with_backend(backend);
        h.update(m);
        black_box(h.finalize());
    }
}

/// The multi-buffer floor: every message at once through
/// `sha256::digest_many` (sixteen AVX-512 lanes, SHA-NI's four streams or
/// two streams, as the CPU calls for), one digest each into `out` (allocated once,
/// outside the timed loop).
fn hash_many(msgs: &[&[u8]], out: &mut [[u8; 32]]) {
    sha256::digest_many(msgs, out);
    black_box(out);
}

/// Checks that [`hash_many`] hashes exactly the messages given (each digest
/// against the one-message hasher), so its floor is a floor of the same work.
fn check_many(msgs: &[&[u8]]) {
    let mut out = vec![[0u8; 32]; msgs.len()];
    sha256::digest_many(msgs, &mut out);
    let want: Vec<_> = msgs.iter().map(|m| sha256::digest(m)).collect();
    assert_eq!(out, want, "multi-buffer floor");
}

fn hash_all_sha2<'a>(msgs: impl Iterator<Item = &'a [u8]>) {
    for m in msgs {
        black_box(sha2::Sha256::digest(m));
    }
}

fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(str::trim)
        .unwrap_or("unknown CPU");
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!(
        "{model}, {cpus} CPUs, SHA-256 backend {:?}",
        sha256::detected_backend()
    )
}

/// Every target of the run: what, met or not, and the figure.
struct Targets(Vec<(String, bool, String)>);

impl Targets {
    fn add(&mut self, what: &str, ok: bool, detail: String) {
        self.0.push((what.into(), ok, detail));
    }

    fn print(&self) {
        println!("## Targets (issue 5), this run");
        println!();
        println!("| target | result | measured |");
        println!("|---|---|---|");
        for (what, ok, detail) in &self.0 {
            println!(
                "| {what} | {} | {detail} |",
                if *ok { "met" } else { "MISSED" }
            );
        }
        println!(
            "| zero heap allocations with a reused Context | see `cargo test --test alloc_count` | |"
        );
        println!(
            "| one-shot digest peak heap <= 2x input | see `cargo test --test alloc_count` | |"
        );
    }
}

/// The pipeline, the verify path and the floors of one payload: one row of
/// [`floor_table`].
#[derive(Clone, Copy)]
struct Floors {
    pipeline: Timing,
    verify: Timing,
    /// Our SHA-256 over the pipeline's messages, one after the other.
    floor: Timing,
    /// The `sha2` crate over the same messages.
    sha2: Timing,
    /// Our SHA-256 over the verify path's messages.
    verify_floor: Timing,
    /// The pipeline's and the verify path's messages through `digest_many`.
    many: Timing,
    verify_many: Timing,
    /// Bytes of the pipeline's messages.
    hashed: usize,
}

/// Digests the list at `bytes` with a reused context (the timed step).
fn digest_list(ctx: &mut Context, bytes: &[u8], options: ListOptions) {
    ctx.digest_tools_list(black_box(bytes), options, |r| {
        black_box(r);
    })
    .expect("our pipeline");
}

/// Times every step of one payload's row of [`floor_table`].
fn floors_of(budget: Duration, ctx: &mut Context, p: &Payload) -> Floors {
    let msgs = floor::messages(&p.bytes);
    let pipeline = time_auto(budget, || digest_list(ctx, &p.bytes, FULL));
    let verify = time_auto(budget, || digest_list(ctx, &p.bytes, VERIFY));
    let backend = sha256::detected_backend();
    let floor = time_auto(budget, || hash_all_ours(msgs.pipeline(), backend));
    let sha2 = time_auto(budget, || hash_all_sha2(msgs.pipeline()));
    let verify_floor = time_auto(budget, || hash_all_ours(msgs.verify(), backend));
    let all_msgs: Vec<&[u8]> = msgs.pipeline().collect();
    let verify_msgs: Vec<&[u8]> = msgs.verify().collect();
    check_many(&all_msgs);
    let mut out = vec![[0u8; 32]; all_msgs.len()];
    let many = time_auto(budget, || hash_many(&all_msgs, &mut out));
    let verify_many = time_auto(budget, || hash_many(&verify_msgs, &mut out));
    Floors {
        pipeline,
        verify,
        floor,
        sha2,
        verify_floor,
        many,
        verify_many,
        hashed: msgs.pipeline_bytes(),
    }
}

/// Our pipeline and verify path on every payload against their floors; the
/// R1 and verify targets on M and L. Our pipeline on M and L was timed with
/// the peers as well: each of `peer_rows` keeps the faster run. Returns M's
/// timings for [`breakdown`].
fn floor_table(
    budget: Duration,
    ctx: &mut Context,
    all: &[Payload],
    peer_rows: &mut [(String, Vec<Row>)],
    targets: &mut Targets,
) -> Option<Floors> {
    println!("## contractpin on every payload, against the SHA-256 floor");
    println!();
    let many = match sha256::digest_many_lanes() {
        16 => "sixteen AVX-512 lanes",
        4 => "SHA-NI's four streams",
        _ => "two-stream pairs",
    };
    println!("floor = our SHA-256 over exactly the messages the pipeline hashes (each contract, each field value, the server object), one digest each, one after the other; R = pipeline time / floor time; multi-buffer floor = the same messages all at once through sha256::digest_many ({many} on this CPU), Rm = time / multi-buffer floor");
    println!();
    println!("| payload | size MB | tools | hashed MB | pipeline MB/s | tools/s | floor (ours) MB/s | floor (sha2) MB/s | R1 | multi-buffer floor MB/s | Rm | verify MB/s | verify floor MB/s | R verify | verify multi-buffer floor MB/s | Rm verify |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut breakdown_m = None;
    for p in all {
        let n = p.bytes.len();
        let f = floors_of(budget, ctx, p);
        let (tp, tv, fo, fv) = (f.pipeline, f.verify, f.floor, f.verify_floor);
        let (fs, f2, fv2, hashed) = (f.sha2, f.many, f.verify_many, f.hashed);
        if let Some((_, rows)) = peer_rows.iter_mut().find(|(n, _)| *n == p.name) {
            // Keep the faster (less disturbed) of our two pipeline runs.
            if rows[0].timing.is_some_and(|t| tp.min < t.min) {
                rows[0].timing = Some(tp);
            }
        }
        let r1 = tp.min / fo.min;
        let rv = tv.min / fv.min;
        println!(
            "| {} | {:.3} | {} | {:.3} | {:.1} | {:.0} | {:.1} | {:.1} | {:.2} | {:.1} | {:.2} | {:.1} | {:.1} | {:.2} | {:.1} | {:.2} |",
            p.name,
            n as f64 / 1e6,
            p.tools,
            hashed as f64 / 1e6,
            mbps(n, &tp),
            p.tools as f64 / tp.min,
            mbps(n, &fo),
            mbps(n, &fs),
            r1,
            mbps(n, &f2),
            tp.min / f2.min,
            mbps(n, &tv),
            mbps(n, &fv),
            rv,
            mbps(n, &fv2),
            tv.min / fv2.min
        );
        if p.name == "M" || p.name == "L" {
            targets.add(
                &format!("R1 = pipeline / floor <= 2.0 ({})", p.name),
                r1 <= 2.0,
                format!("{r1:.2}"),
            );
            targets.add(
                &format!("verify path <= 2.0x its floor ({})", p.name),
                rv <= 2.0,
                format!("{rv:.2}"),
            );
        }
        if p.name == "M" {
            breakdown_m = Some(f);
        }
    }
    println!();
    breakdown_m
}

/// The pipeline against every peer on M and L, and the 12× target.
fn peer_table(all: &[Payload], peer_rows: &[(String, Vec<Row>)], targets: &mut Targets) {
    let sizes: HashMap<&str, (usize, usize)> = all
        .iter()
        .map(|p| (p.name.as_str(), (p.bytes.len(), p.tools)))
        .collect();
    println!("## Full pipeline (tool + field + server digests) against the peers");
    println!();
    let header: Vec<String> = peer_rows
        .iter()
        .map(|(n, _)| {
            let (b, t) = sizes[n.as_str()];
            format!(
                "{n} ({:.2} MB, {t} tools): MB/s | tools/s | our speed-up",
                b as f64 / 1e6
            )
        })
        .collect();
    println!("| implementation | {} | digests |", header.join(" | "));
    println!("|---|{}---|", "---|---|---|".repeat(peer_rows.len()));
    for i in 0..peer_rows[0].1.len() {
        let cells: Vec<String> = peer_rows
            .iter()
            .map(|(pname, rows)| peer_cells(sizes[pname.as_str()], rows, i))
            .collect();
        println!(
            "| {} | {} | {} |",
            peer_rows[0].1[i].name,
            cells.join(" | "),
            peer_rows
                .iter()
                .map(|(_, r)| r[i].verdict.clone())
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    println!();
    for (name, rows) in peer_rows {
        let ours_t = rows[0].timing.expect("ours");
        if let Some(t) = rows[2].timing {
            let x = t.min / ours_t.min;
            targets.add(
                &format!("pipeline >= 12x serde_json_canonicalizer + sha2 ({name})"),
                x >= 12.0 && rows[2].verdict == "ok",
                format!("{x:.1}x (peer digests: {})", rows[2].verdict),
            );
        }
    }
}

/// Row `i`'s cells on one payload of `(bytes, tools)`: MB/s, tools/s and
/// our speed-up over it (row 0 is ours).
fn peer_cells((bytes, tools): (usize, usize), rows: &[Row], i: usize) -> String {
    let ours_t = rows[0].timing.expect("ours");
    match rows[i].timing {
        Some(t) => format!(
            "{:.1} | {:.0} | {}",
            mbps(bytes, &t),
            tools as f64 / t.min,
            if i == 0 {
                "1.0x".to_string()
            } else {
                format!("{:.1}x", t.min / ours_t.min)
            }
        ),
        None => "- | - | -".into(),
    }
}

/// Where the time goes on M: each step alone, against the pipeline.
fn breakdown(budget: Duration, ctx: &mut Context, m: &Payload, f: Floors) {
    let n = m.bytes.len();
    let mut nodes: Vec<Node> = vec![Node::EMPTY; json::scratch_needed(&m.bytes)];
    let t_parse = time_auto(budget, || {
        black_box(json::parse(black_box(&m.bytes), &mut nodes, &Limits::DEFAULT).expect("parse"));
    });
    let t_scratch = time_auto(budget, || {
        black_box(json::scratch_needed(black_box(&m.bytes)));
    });
    let t_canon = time_auto(budget, || {
        black_box(ctx.canonicalize(black_box(&m.bytes)).expect("canon").len());
    });
    let canon_len = ctx.canonicalize(&m.bytes).expect("canon").len();
    let t_canon_hash = time_auto(budget, || {
        let mut h = Sha256::new();
        ctx.canonicalize_to(black_box(&m.bytes), &mut h)
            .expect("canon");
        black_box(h.finalize());
    });
    let tp = f.pipeline;
    println!("## Where the time goes (M, {:.2} MB)", n as f64 / 1e6);
    println!();
    println!("| step | ms | MB/s | share of pipeline |");
    println!("|---|---|---|---|");
    let row = |name: &str, t: &Timing| {
        println!(
            "| {name} | {:.3} | {:.1} | {:.0}% |",
            t.min * 1e3,
            mbps(n, t),
            100.0 * t.min / tp.min
        )
    };
    row("parse to tape (json::parse, reused scratch)", &t_parse);
    row(
        "scratch_needed pre-pass (one-shot scratch API only)",
        &t_scratch,
    );
    row(
        &format!("canonicalize whole document to a reused Vec ({canon_len} bytes out)"),
        &t_canon,
    );
    row("canonicalize whole document into SHA-256", &t_canon_hash);
    row("floor: SHA-256 of the pipeline's messages", &f.floor);
    row(
        "floor: SHA-256 of the verify path's messages",
        &f.verify_floor,
    );
    row("verify path (tool + server digests)", &f.verify);
    row("full pipeline (tool + field + server digests)", &tp);
    println!();
    println!(
        "estimate: parse {:.0}%, hashing {:.0}%, projection + canonical writing {:.0}% of the pipeline",
        100.0 * t_parse.min / tp.min,
        100.0 * f.floor.min / tp.min,
        100.0 * (tp.min - t_parse.min - f.floor.min).max(0.0) / tp.min
    );
    println!();
}

/// The number formatter against ryu-js, and both SHA-256 back ends against
/// the `sha2` crate.
fn building_blocks(budget: Duration, targets: &mut Targets) {
    println!("## Building blocks");
    println!();
    println!("| what | ours | peer | ours / peer |");
    println!("|---|---|---|---|");
    number_formatting(budget, targets);
    sha256_back_ends(budget, targets);
    println!();
}

fn number_formatting(budget: Duration, targets: &mut Targets) {
    let doubles = payloads::random_doubles(10_000);
    let mut mismatches = 0;
    let mut rbuf = ryu_js::Buffer::new();
    for &x in &doubles {
        let mut buf = [0u8; contractpin::number::MAX_LEN];
        let n = contractpin::number::format_f64(x, &mut buf).expect("finite");
        if &buf[..n] != rbuf.format_finite(x).as_bytes() {
            mismatches += 1;
        }
    }
    let (t_ours, t_ryu) = time_pair(
        budget,
        || {
            let mut buf = [0u8; contractpin::number::MAX_LEN];
            for &x in &doubles {
                black_box(contractpin::number::format_f64(black_box(x), &mut buf));
            }
        },
        || {
            let mut b = ryu_js::Buffer::new();
            for &x in &doubles {
                black_box(b.format_finite(black_box(x)).len());
            }
        },
    );
    let per = |t: &Timing| t.min / doubles.len() as f64 * 1e9;
    println!(
        "| number formatting, random finite double (ns; {} of {} differ from ryu-js) | {:.1} ns | ryu-js 1.x: {:.1} ns | {:.2} |",
        mismatches,
        doubles.len(),
        per(&t_ours),
        per(&t_ryu),
        t_ours.min / t_ryu.min
    );
    targets.add(
        "number formatting no slower than ryu-js",
        t_ours.min <= t_ryu.min * 1.02 && mismatches == 0,
        format!("{:.1} ns vs {:.1} ns", per(&t_ours), per(&t_ryu)),
    );
}

fn sha256_back_ends(budget: Duration, targets: &mut Targets) {
    let bulk: Vec<u8> = (0..1 << 20).map(|i| (i * 31 + 7) as u8).collect();
    let ours = |backend: Backend| {
        let mut h = Sha256::with_backend(backend);
        h.update(black_box(&bulk));
        black_box(h.finalize());
    };
    let (t_port, t_soft) = time_pair(
        budget,
        || ours(Backend::Portable),
        || {
            black_box(sha2_soft::Sha256::digest(black_box(&bulk)));
        },
    );
    // This CPU's hardware back end (SHA-NI, the Armv8 instructions), or the
    // portable one again where it has none.
    let hardware = sha256::detected_backend();
    let (t_ni, t_sha2) = time_pair(
        budget,
        || ours(hardware),
        || {
            black_box(sha2::Sha256::digest(black_box(&bulk)));
        },
    );
    let mb = |t: &Timing| bulk.len() as f64 / t.min / 1e6;
    println!(
        "| SHA-256 portable, 1 MiB (MB/s) | {:.0} | sha2 0.10 force-soft: {:.0} | {:.2} (time ratio {:.2}) |",
        mb(&t_port),
        mb(&t_soft),
        mb(&t_port) / mb(&t_soft),
        t_port.min / t_soft.min
    );
    println!(
        "| SHA-256 {:?}, 1 MiB (MB/s) | {:.0} | sha2 0.11 (auto): {:.0} | {:.2} (time ratio {:.2}) |",
        hardware,
        mb(&t_ni),
        mb(&t_sha2),
        mb(&t_ni) / mb(&t_sha2),
        t_ni.min / t_sha2.min
    );
    targets.add(
        "portable SHA-256 within 1.2x of sha2 soft",
        t_port.min <= 1.2 * t_soft.min,
        format!("time ratio {:.2}", t_port.min / t_soft.min),
    );
}

/// `contractpin digest L.json` as a whole process against the in-process
/// pipeline with a reused `Context`, as issue 13 words the target; and each
/// form of the command against the same job in process, because the two
/// differ: the text listing computes the tool and server digests only (as
/// `VERIFY`), `--json` the field digests too (as `FULL`, the pipeline). A
/// process that does less than the figure it is divided by flatters itself,
/// so both rows are printed and both are targets. Both in-process jobs are
/// timed here, next to the processes (the pipeline on L again, although
/// the peer section timed it), so that each ratio's two sides see the same
/// machine, and so that `bench-table cli` runs alone.
fn cli_process(cfg: &Config, cli: &str, ctx: &mut Context, l: &Payload, targets: &mut Targets) {
    let file = cfg.dir.join("L.json");
    let run = |json: bool| {
        let mut cmd = std::process::Command::new(cli);
        cmd.arg("digest");
        if json {
            cmd.arg("--json");
        }
        cmd.arg(&file)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
    };
    match run(false) {
        Ok(s) if s.success() => {}
        other => {
            println!("CLI row skipped: `{cli} digest` did not succeed ({other:?})\n");
            return;
        }
    }
    // At least 100 processes: a fresh process is noisier than a warm
    // in-process loop, so its minimum needs more samples.
    let process = |json: bool| {
        time(cfg.budget.max(Duration::from_secs(2)), 100, || {
            run(json).expect("cli");
        })
    };
    let (text, json) = (process(false), process(true));
    let verify = time_auto(cfg.budget, || digest_list(ctx, &l.bytes, VERIFY));
    let full = time_auto(cfg.budget, || digest_list(ctx, &l.bytes, FULL));
    println!(
        "## The CLI as a whole process (L, {:.2} MB)",
        l.bytes.len() as f64 / 1e6
    );
    println!();
    println!("| process: fastest (median), ms | in process, reused Context: fastest, ms | ratio |");
    println!("|---|---|---|");
    let row = |cmd: &str, t: Timing, job: &str, inproc: Timing| {
        let ratio = t.min / inproc.min;
        println!(
            "| `contractpin digest {cmd}L.json` {:.2} ({:.2}; {} runs) | {job} {:.2} | {ratio:.2}x |",
            t.min * 1e3,
            t.median * 1e3,
            t.runs,
            inproc.min * 1e3
        );
        (
            ratio,
            format!(
                "{ratio:.2}x ({:.2} ms vs {:.2} ms)",
                t.min * 1e3,
                inproc.min * 1e3
            ),
        )
    };
    let worded = row("", text, "pipeline (tool, field and server digests)", full);
    let same_text = row("", text, "the same job (tool and server digests)", verify);
    let same_json = row("--json ", json, "the same job (the pipeline)", full);
    println!();
    targets.add(
        "contractpin digest on L <= 1.3x in-process pipeline",
        worded.0 <= 1.3,
        worded.1,
    );
    targets.add(
        "contractpin digest on L <= 1.3x the same job in process (text; --json)",
        same_text.0.max(same_json.0) <= 1.3,
        format!("{}; {}", same_text.1, same_json.1),
    );
}
