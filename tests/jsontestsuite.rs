//! All 318 JSONTestSuite parsing cases (vendored in vectors/JSONTestSuite):
//! every `n_` rejected, every `y_` accepted except those our stricter rules
//! reject, and every verdict and kind equal to the independent reference's
//! (vectors/jsontestsuite-expectations.tsv, tabled in vectors/JSONTESTSUITE.md).

use contractpin::canonicalize;

#[test]
fn every_case_matches_the_recorded_verdict() {
    let table =
        std::fs::read_to_string("vectors/jsontestsuite-expectations.tsv").expect("expectations");
    let mut seen = 0;
    let mut failures = Vec::new();
    let (mut y_ok, mut y_rejected, mut n_rejected) = (0, 0, 0);
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (file, verdict, kind) = (cols[0], cols[1], cols[2]);
        let input =
            std::fs::read(format!("vectors/JSONTestSuite/test_parsing/{file}")).expect(file);
        let got = canonicalize(&input);
        let (got_verdict, got_kind) = match &got {
            Ok(_) => ("accept", "-"),
            Err(e) => ("reject", e.kind().name()),
        };
        if file.starts_with("n_") && got.is_ok() {
            failures.push(format!("{file}: n_ case accepted"));
        }
        if (got_verdict, got_kind) != (verdict, kind) {
            failures.push(format!(
                "{file}: got {got_verdict} {got_kind}, recorded {verdict} {kind}"
            ));
        }
        match (&file[..2], got.is_ok()) {
            ("y_", true) => y_ok += 1,
            ("y_", false) => y_rejected += 1,
            ("n_", false) => n_rejected += 1,
            _ => {}
        }
        seen += 1;
    }
    assert_eq!(seen, 318, "expected all 318 JSONTestSuite files");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(n_rejected, 188);
    // Only the two duplicate-key files may be rejected among the y_ cases.
    assert_eq!((y_ok, y_rejected), (93, 2));
}
