//! The `--header` and `--env` arguments. (A server's source is the lock's
//! model, `contractpin::lock::Source`; `ServerSpec::from_source` turns it
//! into what the MCP client connects to.)

use contractpin::lock::{is_header_name, Source};

/// Parses one `--header 'Name: value'` argument.
///
/// An error never shows the argument: a header's value is a secret, and
/// without a valid name before a `:` nothing can be told apart from it.
/// (A valid name is shown by later errors, such as an unset `${VAR}`.)
pub fn parse_header(text: &str) -> Result<(String, String), String> {
    const FORM: &str = "expected 'Name: value'; the argument is not shown";
    let Some((name, value)) = text.split_once(':') else {
        return Err(format!("invalid --header: no ':' ({FORM})"));
    };
    let name = name.trim();
    if !is_header_name(name) {
        return Err(format!(
            "invalid --header: the part before ':' is not a header name \
             (letters, digits and !#$%&'*+-.^_`|~) ({FORM})"
        ));
    }
    Ok((name.to_string(), value.trim().to_string()))
}

/// `source` with the `--header` values added, each replacing a header of
/// the same name (ignoring case) that the source already has. Sources that
/// are not http are returned as they are.
pub fn with_headers(source: Source, extra: &[(String, String)]) -> Source {
    match source {
        Source::Http { url, mut headers } if !extra.is_empty() => {
            headers.retain(|n, _| !extra.iter().any(|(m, _)| m.eq_ignore_ascii_case(n)));
            headers.extend(extra.iter().cloned());
            Source::Http { url, headers }
        }
        other => other,
    }
}

/// Parses one `--env K=V` argument.
///
/// An error never shows the value, nor the argument when no name can be
/// separated from it (no `=`, or nothing before it).
pub fn parse_env(text: &str) -> Result<(String, String), String> {
    let Some((key, value)) = text.split_once('=') else {
        return Err("invalid --env: no '=' (expected K=V; the argument is not shown)".to_string());
    };
    if key.is_empty() {
        return Err(
            "invalid --env: no name before '=' (expected K=V; the value is not shown)".to_string(),
        );
    }
    if key.contains('\0') {
        return Err("invalid --env: the name holds a NUL (the argument is not shown)".to_string());
    }
    if value.contains('\0') {
        return Err(format!(
            "invalid --env {}: the value holds a NUL (not shown)",
            crate::output::printable(key)
        ));
    }
    Ok((key.to_string(), value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        assert_eq!(
            parse_header("Authorization: Bearer x").unwrap(),
            ("Authorization".to_string(), "Bearer x".to_string())
        );
        assert!(parse_header("no colon").is_err());
        assert!(parse_header(": v").is_err());
        assert!(parse_header("Bad Name: v").is_err());
        for bad in [
            "Bad Name: secret-value",
            "X-Api-Key=secret-value",
            "secret-value",
            "Bearer secret-value",
            ": secret-value",
        ] {
            let err = parse_header(bad).unwrap_err();
            assert!(!err.contains("secret"), "{err}");
        }
    }

    #[test]
    fn env_pairs() {
        assert_eq!(parse_env("A=b=c").unwrap(), ("A".into(), "b=c".into()));
        assert_eq!(parse_env("A=").unwrap(), ("A".into(), "".into()));
        assert!(parse_env("A").is_err());
        assert!(parse_env("=x").is_err());
        for bad in [
            "secret-value",
            "=secret-value",
            "K\0=secret-value",
            "K=secret\0value",
        ] {
            let err = parse_env(bad).unwrap_err();
            assert!(!err.contains("secret"), "{err}");
        }
        assert!(parse_env("K=a\0").unwrap_err().contains("--env K:"));
    }
}
