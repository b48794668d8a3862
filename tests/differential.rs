//! Differential test against two independent RFC 8785 implementations.
//!
//! `vectors/make_corpus.py` generates a seeded random corpus (escapes, UTF-16
//! key order, number spellings, nesting, whitespace) of documents that both
//! oracles can judge; PyPI `rfc8785` (`vectors/oracles/oracle_rfc8785.py`)
//! and npm `canonicalize` (`vectors/oracles/canon.mjs`) canonicalize every
//! document, and `contractpin::canonicalize` must give the same bytes as both.
//!
//! The oracles are pinned and installed by `bash .ci/install-oracles.sh`; when
//! they are missing this test skips, saying so (and fails where
//! `CONTRACTPIN_REQUIRE_TOOLS` is set, as in scripts/test.sh). The seed and size can be
//! changed for a longer run:
//! `CONTRACTPIN_DIFF_SEED=2 CONTRACTPIN_DIFF_COUNT=50000 cargo test --test differential`.
#![cfg(feature = "alloc")]

#[path = "support/tools.rs"]
mod tools;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

const RFC8785_VERSION: &str = "0.1.4";
const CANONICALIZE_VERSION: &str = "5.1.0";
const INSTALL_HINT: &str = "install the oracles with `bash .ci/install-oracles.sh`";
const SHOW: usize = 5;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn env_or(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

fn run(cmd: &mut Command, what: &str) -> Output {
    let out = cmd
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}; {INSTALL_HINT}"));
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        panic!(
            "{what} failed ({}): {}; {INSTALL_HINT}",
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        );
    }
    out
}

/// Fails (never skips) unless both oracles are installed at the pinned versions.
fn require_oracles() {
    let out = run(
        Command::new("python3").args([
            "-c",
            "import rfc8785, importlib.metadata as m; print(m.version('rfc8785'))",
        ]),
        "python3 with rfc8785",
    );
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert_eq!(
        version, RFC8785_VERSION,
        "PyPI rfc8785 {version} is installed, the pinned version is {RFC8785_VERSION}; {INSTALL_HINT}"
    );
    let manifest = root().join("vectors/oracles/node_modules/canonicalize/package.json");
    let text = std::fs::read_to_string(&manifest).unwrap_or_else(|e| {
        panic!(
            "npm canonicalize is missing ({}: {e}); {INSTALL_HINT}",
            manifest.display()
        )
    });
    assert!(
        text.contains(&format!("\"version\": \"{CANONICALIZE_VERSION}\"")),
        "npm canonicalize in {} is not version {CANONICALIZE_VERSION}; {INSTALL_HINT}",
        manifest.display()
    );
}

fn temp_dir(seed: u64) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "contractpin-differential-{}-{seed}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Runs one oracle over the corpus (one process, documents on stdin).
fn oracle(program: &str, script: &str, corpus: &Path) -> Vec<String> {
    let stdin = File::open(corpus).expect("open corpus");
    let out = run(
        Command::new(program)
            .arg(root().join(script))
            .stdin(Stdio::from(stdin)),
        &format!("{program} {script}"),
    );
    String::from_utf8(out.stdout)
        .expect("oracle output is ASCII")
        .lines()
        .map(str::to_string)
        .collect()
}

/// Decodes one corpus line: a JSON string holding the document's text.
fn decode_line(line: &str) -> String {
    fn hex4(chars: &mut std::str::Chars) -> u32 {
        let digits: String = chars.take(4).collect();
        u32::from_str_radix(&digits, 16).expect("\\u escape in corpus line")
    }
    let inner = line
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .expect("corpus line is a JSON string");
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let decoded = match chars.next().expect("escape in corpus line") {
            '"' => '"',
            '\\' => '\\',
            '/' => '/',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let mut cp = hex4(&mut chars);
                if (0xD800..0xDC00).contains(&cp) {
                    assert_eq!(chars.next(), Some('\\'), "surrogate pair in corpus line");
                    assert_eq!(chars.next(), Some('u'), "surrogate pair in corpus line");
                    let low = hex4(&mut chars);
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                char::from_u32(cp).expect("scalar value in corpus line")
            }
            other => panic!("bad escape \\{other} in corpus line"),
        };
        out.push(decoded);
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An oracle answer (hex, or `!reason`) as readable text.
fn show_answer(answer: &str) -> String {
    if answer.starts_with('!') || !answer.len().is_multiple_of(2) {
        return answer.to_string();
    }
    let bytes: Vec<u8> = (0..answer.len())
        .step_by(2)
        .filter_map(|i| u8::from_str_radix(&answer[i..i + 2], 16).ok())
        .collect();
    clip(&String::from_utf8_lossy(&bytes))
}

fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(400).collect();
    if out.len() < s.len() {
        out.push_str(&format!("...({} bytes)", s.len()));
    }
    out
}

#[test]
fn canonicalize_matches_rfc8785_and_npm_canonicalize_on_random_corpus() {
    if !tools::needs(&["python3", "node"]) {
        return;
    }
    let seed = env_or("CONTRACTPIN_DIFF_SEED", 1);
    let count = env_or("CONTRACTPIN_DIFF_COUNT", 10_000);
    require_oracles();
    let started = Instant::now();

    let dir = temp_dir(seed);
    let corpus = dir.join("corpus.jsonl");
    run(
        Command::new("python3")
            .arg(root().join("vectors/make_corpus.py"))
            .args(["--seed", &seed.to_string(), "--count", &count.to_string()])
            .arg("--out")
            .arg(&corpus),
        "python3 vectors/make_corpus.py",
    );
    let text = std::fs::read_to_string(&corpus).expect("read corpus");
    let docs: Vec<String> = text.lines().map(decode_line).collect();
    assert_eq!(docs.len() as u64, count, "corpus size");

    let (py, js) = std::thread::scope(|s| {
        let py = s.spawn(|| oracle("python3", "vectors/oracles/oracle_rfc8785.py", &corpus));
        let js = s.spawn(|| oracle("node", "vectors/oracles/canon.mjs", &corpus));
        (py.join().unwrap(), js.join().unwrap())
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        py.len(),
        docs.len(),
        "rfc8785 oracle answered every document"
    );
    assert_eq!(
        js.len(),
        docs.len(),
        "canonicalize oracle answered every document"
    );

    let (mut agree_py, mut agree_js, mut oracles_agree) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let ours = match contractpin::canonicalize(doc.as_bytes()) {
            Ok(bytes) => hex(&bytes),
            Err(e) => format!("!contractpin: {e}"),
        };
        let (p, j) = (&py[i], &js[i]);
        agree_py += usize::from(ours == *p);
        agree_js += usize::from(ours == *j);
        oracles_agree += usize::from(p == j && !p.starts_with('!'));
        if ours != *p || ours != *j || p.starts_with('!') {
            failures.push((i, doc, ours, p, j));
        }
    }

    let bytes: usize = docs.iter().map(String::len).sum();
    println!(
        "differential seed {seed}: {} documents ({bytes} bytes) in {:.1?}",
        docs.len(),
        started.elapsed()
    );
    println!(
        "  agree with rfc8785 {RFC8785_VERSION}: {agree_py}; with canonicalize {CANONICALIZE_VERSION}: {agree_js}; oracles agree with each other: {oracles_agree}; mismatches: {}",
        failures.len()
    );
    if !failures.is_empty() {
        let mut report = format!(
            "{} of {} documents differ (seed {seed}); first {}:\n",
            failures.len(),
            docs.len(),
            failures.len().min(SHOW)
        );
        for (i, doc, ours, p, j) in failures.iter().take(SHOW) {
            report.push_str(&format!(
                "#{i} document: {:?}\n   ours:         {}\n   rfc8785:      {}\n   canonicalize: {}\n",
                clip(doc),
                show_answer(ours),
                show_answer(p),
                show_answer(j)
            ));
        }
        panic!("{report}");
    }
}
