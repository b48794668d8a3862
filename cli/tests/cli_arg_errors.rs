//! Argument errors never echo a value: a malformed `--header` or `--env`,
//! a value that looks like a flag, a value left outside its quotes, and a
//! URL with user information but no scheme all exit 2 with a message that
//! holds no piece of the secret.

mod cli_support;
use cli_support::*;

const SECRET: &str = "sk-live-abcdef123456";

/// Fails if `text` holds any 4-character piece of [`SECRET`].
#[track_caller]
fn assert_no_piece(what: &str, text: &str) {
    for start in 0..=SECRET.len() - 4 {
        let piece = &SECRET[start..start + 4];
        assert!(
            !text.contains(piece),
            "{what}: {piece:?} of the secret was echoed:\n{text}"
        );
    }
}

/// Runs `contractpin ARGS`, expects exit 2, nothing on stdout, one
/// `error:` message on stderr without any piece of the secret; returns stderr.
#[track_caller]
fn usage_error(args: &[&str]) -> String {
    let o = cp(args).run();
    o.code(2);
    let what = format!("{args:?}");
    assert!(o.stdout.is_empty(), "{what}: {}", o.out());
    assert!(o.err().starts_with("error: "), "{what}: {}", o.err());
    assert_no_piece(&what, &o.err());
    o.err()
}

const URL: &str = "http://127.0.0.1:9/mcp";

#[test]
fn a_malformed_header_shows_no_value() {
    let headers = [
        format!("X-Api-Key={SECRET}"),
        SECRET.to_string(),
        format!("Bearer {SECRET}"),
        format!("X {SECRET}: x"),
        format!(": {SECRET}"),
    ];
    for h in &headers {
        let init = ["init", "--name", "x", "--http", URL, "--header", h];
        let err = usage_error(&init);
        assert!(err.contains("--header"), "{err}");
        usage_error(&[
            "verify",
            "--lock",
            "examples/contractpin.lock",
            "--header",
            h,
        ]);
    }
    // Nothing of the text is taken for a name, not even a valid-looking prefix.
    let err = usage_error(&[
        "init",
        "--name",
        "x",
        "--http",
        URL,
        "--header",
        &headers[0],
    ]);
    assert!(!err.contains("X-Api-Key"), "{err}");
}

#[test]
fn a_malformed_env_shows_no_value() {
    for e in [SECRET.to_string(), format!("={SECRET}")] {
        let err = usage_error(&["init", "--name", "x", "--env", &e, "--", "true"]);
        assert!(err.contains("--env"), "{err}");
    }
}

#[test]
fn values_that_look_like_flags_are_values() {
    // clap would report `--sk-live-...` as an unknown argument, echoing it.
    let flag_like = format!("--{SECRET}");
    usage_error(&["init", "--name", "x", "--env", &flag_like, "--", "true"]);
    usage_error(&["init", "--name", "x", "--http", URL, "--header", &flag_like]);
    usage_error(&["verify", "--header", &flag_like]);
}

#[test]
fn a_value_outside_its_quotes_is_not_echoed() {
    // `--header Authorization: $TOKEN` without quotes: the token is a stray argument.
    usage_error(&[
        "init",
        "--name",
        "x",
        "--http",
        URL,
        "--header",
        "Authorization:",
        SECRET,
    ]);
    usage_error(&["verify", "--header", "Authorization:", SECRET]);
    usage_error(&[
        "init", "--name", "x", "--env", "TOKEN=", SECRET, "--", "true",
    ]);
    // A mistyped flag is still named (only its name: the value after `=` never is).
    let err = usage_error(&["verify", &format!("--heder={SECRET}")]);
    assert!(err.contains("--heder"), "{err}");
}

#[test]
fn a_url_without_scheme_hides_its_user_information() {
    let err = usage_error(&[
        "init",
        "--name",
        "x",
        "--http",
        &format!("admin:{SECRET}@example.com/mcp"),
    ]);
    assert!(err.contains("example.com"), "{err}");
}

#[test]
fn an_invalid_reference_shows_no_part_of_the_value() {
    let header = format!("X-Api-Key: Bearer ${{{SECRET}}}");
    let err = usage_error(&["init", "--name", "x", "--http", URL, "--header", &header]);
    assert!(
        err.contains("X-Api-Key") && err.contains("not a valid environment variable"),
        "{err}"
    );
    let env = format!("API_TOKEN=a${{{SECRET}}}b");
    let err = usage_error(&["init", "--name", "x", "--env", &env, "--", "true"]);
    assert!(err.contains("API_TOKEN"), "{err}");
}
