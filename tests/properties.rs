//! Seeded property tests: the invariants of the fuzz targets (`fuzz/`), on
//! the stable toolchain, in the normal `cargo test`.
//!
//! The invariants live in `tests/support/checks.rs` and the reference
//! canonicalizer in `tests/support/reference_jcs.rs`; the fuzz crate
//! includes the very same files, so a property here and a fuzz target there
//! check the same thing. Inputs come from `tests/support/gen.rs` (a seeded
//! generator: every run checks the same cases) and from the committed fuzz
//! seed corpora `fuzz/corpus/<target>/`, so every file a fuzzer ever kept or
//! crashed on is re-checked on stable.
//!
//! More cases: `CONTRACTPIN_PROPERTY_CASES=200000 cargo test --release --test properties`.
//! Another seed: `CONTRACTPIN_PROPERTY_SEED=7`.
#![cfg(all(feature = "alloc", feature = "ffi"))]

#[path = "support/checks.rs"]
mod checks;
#[path = "support/gen.rs"]
mod gen;
#[path = "support/reference_jcs.rs"]
mod reference_jcs;

use std::path::{Path, PathBuf};

use checks::Rng;
use contractpin::Limits;

/// Cases per property (default 3000; `CONTRACTPIN_PROPERTY_CASES` overrides).
fn cases() -> u64 {
    std::env::var("CONTRACTPIN_PROPERTY_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000)
}

fn rng(property: u64) -> Rng {
    let seed: u64 = std::env::var("CONTRACTPIN_PROPERTY_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    Rng(seed.wrapping_mul(0x1000_0000_01b3) ^ property.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file of a directory (sorted), as bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    out.sort();
    out
}

/// Every committed seed of a fuzz target (and fails if there are none).
fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let seeds = files(&root().join("fuzz/corpus").join(target));
    assert!(
        seeds.len() >= 10,
        "fuzz/corpus/{target} has only {} seeds",
        seeds.len()
    );
    seeds
}

/// Runs `check` and names the input on failure.
fn each(name: &str, input: &[u8], check: impl FnOnce(&[u8])) {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(input)));
    if let Err(e) = r {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        panic!("{name}: {msg}\ninput: {:?}", String::from_utf8_lossy(input));
    }
}

// ------------------------------------------------------------------ the reference itself

/// The reference must be right before it can judge: RFC 8785's own test
/// data (input -> output, byte-exact).
#[test]
fn reference_reproduces_rfc8785_testdata() {
    let dir = root().join("vectors/rfc8785-testdata");
    let inputs = files(&dir.join("input"));
    assert!(inputs.len() >= 6);
    for (path, input) in inputs {
        let expected = std::fs::read(dir.join("output").join(path.file_name().unwrap())).unwrap();
        let got = reference_jcs::canonicalize(&input, &Default::default())
            .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        assert_eq!(got.as_bytes(), &expected[..], "{}", path.display());
    }
}

/// JSONTestSuite verdicts: every `n_` file is rejected; every `y_` file is
/// accepted except the ones our I-JSON rules reject on purpose (duplicate
/// keys, SPEC.md 4).
#[test]
fn reference_follows_jsontestsuite_verdicts() {
    let all = files(&root().join("vectors/JSONTestSuite/test_parsing"));
    assert!(all.len() > 300);
    let mut checked = 0;
    for (path, input) in &all {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let r = reference_jcs::canonicalize(input, &Default::default());
        if name.starts_with("n_") {
            assert!(r.is_err(), "{name} accepted: {r:?}");
            checked += 1;
        } else if name.starts_with("y_") {
            if name.contains("duplicated_key") {
                assert_eq!(r, Err(reference_jcs::RefError("duplicate-key")), "{name}");
            } else {
                assert!(r.is_ok(), "{name} rejected: {r:?}");
            }
            checked += 1;
        }
    }
    assert!(checked > 250);
}

/// The reference number layout on the examples SPEC.md 3.6 gives.
#[test]
fn reference_number_layout_matches_the_spec_examples() {
    for (x, text) in [
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1.5, "1.5"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (-0.0, "0"),
        (9007199254740993.0, "9007199254740992"),
        (0.1 + 0.2, "0.30000000000000004"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (-1.2345678901234567e-6, "-0.0000012345678901234567"),
        (123e-20, "1.23e-18"),
        // Exact ties between two shortest candidates go to the even one.
        (f64::from_bits(0x42bd_8422_6f29_c010), "32453350599104.062"), // exactly ...104.0625
        (0.5, "0.5"),
        (2.5e-323, "2.5e-323"),
    ] {
        assert_eq!(reference_jcs::es_number(x).as_deref(), Some(text), "{x:e}");
    }
}

// ------------------------------------------------------------------ parser

#[test]
fn parser_generated_documents() {
    let mut r = rng(1);
    for i in 0..cases() {
        let mut doc = gen::document(&mut r);
        each(&format!("case {i}"), &doc, checks::check_parser);
        gen::mutate(&mut r, &mut doc);
        each(&format!("case {i} (mutated)"), &doc, checks::check_parser);
    }
}

#[test]
fn parser_corpus_and_conformance_files() {
    for (path, input) in corpus("parser")
        .into_iter()
        .chain(files(&root().join("vectors/JSONTestSuite/test_parsing")))
    {
        each(&path.display().to_string(), &input, checks::check_parser);
    }
}

#[test]
fn parser_deep_nesting_never_overflows() {
    // Far beyond the depth limit, and far beyond any stack if it recursed.
    for depth in [255usize, 256, 257, 100_000] {
        let mut doc = "[".repeat(depth).into_bytes();
        doc.extend("]".repeat(depth).bytes());
        each(&format!("depth {depth}"), &doc, checks::check_parser);
        let mut doc = "{\"a\":".repeat(depth).into_bytes();
        doc.extend("}".repeat(depth).bytes());
        each(&format!("object depth {depth}"), &doc, checks::check_parser);
    }
}

// ------------------------------------------------------------------ writer

fn random_limits(r: &mut Rng) -> Limits {
    if r.one_in(3) {
        Limits {
            max_depth: r.below(8) as u32,
            max_input: r.below(400),
            max_tools: r.below(6),
        }
    } else {
        Limits::DEFAULT
    }
}

#[test]
fn writer_matches_the_reference_on_generated_documents() {
    let mut r = rng(2);
    for i in 0..cases() {
        let mut doc = gen::document(&mut r);
        let limits = random_limits(&mut r);
        each(&format!("case {i}"), &doc, |d| {
            checks::check_writer(d, limits)
        });
        gen::mutate(&mut r, &mut doc);
        each(&format!("case {i} (mutated)"), &doc, |d| {
            checks::check_writer(d, Limits::DEFAULT)
        });
    }
}

#[test]
fn writer_matches_the_reference_on_corpus_and_conformance_files() {
    let dir = root().join("vectors");
    for (path, input) in corpus("writer")
        .into_iter()
        .chain(files(&dir.join("JSONTestSuite/test_parsing")))
        .chain(files(&dir.join("rfc8785-testdata/input")))
    {
        each(&path.display().to_string(), &input, |d| {
            checks::check_writer(d, Limits::DEFAULT)
        });
    }
}

// ------------------------------------------------------------------ numbers

#[test]
fn numbers_round_trip_and_match_the_reference() {
    let mut r = rng(3);
    for &x in gen::SPECIAL_F64 {
        checks::check_number(x.to_bits());
        checks::check_number((-x).to_bits());
    }
    for bits in [
        0x7ff0_0000_0000_0000u64,
        0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0001,
        1,
        u64::MAX,
    ] {
        checks::check_number(bits);
    }
    for _ in 0..cases() * 10 {
        checks::check_number(gen::f64_bits(&mut r));
    }
    for (_, seed) in corpus("numbers") {
        let mut b = [0u8; 8];
        let n = seed.len().min(8);
        b[..n].copy_from_slice(&seed[..n]);
        checks::check_number(u64::from_le_bytes(b));
    }
}

// ------------------------------------------------------------------ lock reader

#[test]
fn lock_reader_on_damaged_locks() {
    let mut r = rng(4);
    let seeds = corpus("lock");
    for i in 0..cases() {
        let (_, seed) = r.pick(&seeds);
        let mut lock = seed.clone();
        if !r.one_in(4) {
            gen::mutate(&mut r, &mut lock);
        }
        each(&format!("case {i}"), &lock, checks::check_lock);
    }
    for (path, seed) in seeds {
        each(&path.display().to_string(), &seed, checks::check_lock);
    }
}

#[test]
fn lock_reader_on_generated_locks() {
    use contractpin::lock::{Lock, LockServer, Source};
    let mut r = rng(5);
    for i in 0..cases() / 4 {
        let list = gen::tools_list(&mut r);
        let Ok(digests) = contractpin::digest_tools_list(&list) else {
            continue;
        };
        let mut lock = Lock::new("2026-01-02T03:04:05Z");
        let source = match r.below(3) {
            0 => Source::File {
                path: "tools \"list\".json".into(),
            },
            1 => Source::Http {
                url: "https://user:secret@example.com/mcp".into(),
                headers: [
                    (
                        "Authorization".to_string(),
                        "Bearer literal-secret".to_string(),
                    ),
                    ("X-Key".to_string(), "${KEY}".to_string()),
                ]
                .into(),
            },
            _ => Source::Stdio {
                command: vec!["node".into(), "server.js".into()],
                env: [("TOKEN".to_string(), "literal-secret".to_string())].into(),
                cwd: Some("/srv".into()),
            },
        };
        let name = format!("server-{}", r.pick(&["a", "\u{e000}", "😀", "é"]));
        lock.servers
            .insert(name, LockServer::from_server_digest(source, &digests));
        let pretty = lock.to_pretty();
        let text = String::from_utf8_lossy(&pretty);
        assert!(
            !text.contains("secret@") && !text.contains("literal-secret"),
            "{text}"
        );
        each(&format!("case {i}"), &pretty, checks::check_lock);
        assert_eq!(Lock::parse(&pretty).unwrap(), lock);
    }
}

// ------------------------------------------------------------------ tools/list reader

#[test]
fn tools_list_matches_the_reference_on_generated_lists() {
    let mut r = rng(6);
    for i in 0..cases() {
        let mut list = gen::tools_list(&mut r);
        let limits = random_limits(&mut r);
        each(&format!("case {i}"), &list, |d| {
            checks::check_tools_list(d, limits)
        });
        gen::mutate(&mut r, &mut list);
        each(&format!("case {i} (mutated)"), &list, |d| {
            checks::check_tools_list(d, Limits::DEFAULT)
        });
    }
}

/// A tools/list of `tools` tools of about 1 KB each, keys out of order,
/// escapes, non-ASCII text and numbers that need formatting.
fn large_tools_list(tools: usize, seed: usize) -> Vec<u8> {
    let mut s = String::from(r#"{"jsonrpc":"2.0","id":1,"result":{"tools":["#);
    for i in 0..tools {
        if i > 0 {
            s.push(',');
        }
        let pad = r"é \u00e9 \n ✓ ".repeat(20 + (i * 7 + seed) % 40);
        s.push_str(&format!(
            r#"{{"name":"tool_{seed}_{i}","description":"does {i} \"things\" {pad}","inputSchema":{{"type":"object","properties":{{"z{i}":{{"type":"number","minimum":1.50e1,"maximum":{i}.250}},"a":{{"description":"{pad}","type":"string"}}}},"required":["a"]}},"annotations":{{"title":"T{i}","readOnlyHint":{}}}}}"#,
            i % 2 == 0
        ));
    }
    s.push_str("]}}");
    s.into_bytes()
}

/// A reused `Context` whose canonical output starts at a huge page (inputs
/// of 2 MiB or more, `Canon::presize`), then serves a small list from the
/// same buffer, then grows to a new one: the same digests as the reference
/// and the scratch API each time.
#[test]
fn a_reused_context_across_large_and_small_lists_matches_the_reference() {
    let big = large_tools_list(2_600, 1);
    assert!(big.len() > 2 << 20, "{}", big.len());
    let small = large_tools_list(3, 2);
    let bigger = large_tools_list(4_000, 3);
    for input in [&big, &small, &bigger, &small, &big] {
        checks::check_tools_list(input, Limits::DEFAULT);
    }
}

#[test]
fn tools_list_matches_the_reference_on_corpus_and_fixtures() {
    for (path, input) in corpus("tools_list")
        .into_iter()
        .chain(files(&root().join("tests/mcp/fixtures")))
    {
        each(&path.display().to_string(), &input, |d| {
            checks::check_tools_list(d, Limits::DEFAULT)
        });
    }
}

// ------------------------------------------------------------------ C ABI

#[test]
fn c_abi_with_random_buffers_lengths_and_nulls() {
    let mut r = rng(7);
    let payloads: Vec<Vec<u8>> = corpus("tools_list")
        .into_iter()
        .chain(corpus("writer"))
        .map(|(_, b)| b)
        .collect();
    for i in 0..cases() {
        let mut data = vec![r.below(256) as u8];
        data.extend((0..24).map(|_| r.below(256) as u8));
        match r.below(3) {
            0 => data.extend(r.pick(&payloads)),
            1 => data.extend(gen::tools_list(&mut r)),
            _ => data.extend(gen::document(&mut r)),
        }
        each(&format!("case {i}"), &data, checks::check_ffi);
    }
    for (path, input) in corpus("ffi") {
        each(&path.display().to_string(), &input, checks::check_ffi);
    }
}
