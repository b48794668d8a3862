//! A server source as the CLI knows it, before it becomes an MCP client
//! spec (to fetch) or a lock source (to persist).
//!
//! Relative paths: on the command line (and in an imported client
//! configuration) they are relative to the current directory; in the lock,
//! relative to the lock's directory (`contractpin::lock::relative_to_lock`
//! and `resolve_inside` convert).

use std::collections::BTreeMap;

/// Where one server's tools come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CliSource {
    /// A child process.
    Stdio {
        /// argv (non-empty).
        command: Vec<String>,
        /// Extra environment (values may be `${VAR}` references).
        env: BTreeMap<String, String>,
        /// Working directory, as given.
        cwd: Option<String>,
    },
    /// A Streamable HTTP / legacy SSE endpoint.
    Http {
        /// The URL.
        url: String,
        /// Headers (values may hold `${VAR}`; never persisted).
        headers: Vec<(String, String)>,
    },
    /// A tools/list dump.
    File {
        /// The path, as given.
        path: String,
    },
}

impl CliSource {
    /// The transport name, for messages.
    pub fn transport(&self) -> &'static str {
        match self {
            CliSource::Stdio { .. } => "stdio",
            CliSource::Http { .. } => "http",
            CliSource::File { .. } => "file",
        }
    }
}

/// Parses one `--header 'Name: value'` argument. The value is never echoed.
pub fn parse_header(text: &str) -> Result<(String, String), String> {
    let Some((name, value)) = text.split_once(':') else {
        return Err(format!(
            "invalid --header (expected 'Name: value'; header name: {:?})",
            shorten(text.split_whitespace().next().unwrap_or(""))
        ));
    };
    let name = name.trim();
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    if !valid {
        return Err(format!("invalid --header name {:?}", shorten(name)));
    }
    Ok((name.to_string(), value.trim().to_string()))
}

/// Parses one `--env K=V` argument.
pub fn parse_env(text: &str) -> Result<(String, String), String> {
    let Some((key, value)) = text.split_once('=') else {
        return Err(format!("invalid --env {:?} (expected K=V)", shorten(text)));
    };
    if key.is_empty() || key.contains('\0') || value.contains('\0') {
        return Err(format!("invalid --env name {:?}", shorten(key)));
    }
    Ok((key.to_string(), value.to_string()))
}

fn shorten(text: &str) -> String {
    text.chars().take(40).collect()
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
        let err = parse_header("Bad Name: secret-value").unwrap_err();
        assert!(!err.contains("secret-value"));
    }

    #[test]
    fn env_pairs() {
        assert_eq!(parse_env("A=b=c").unwrap(), ("A".into(), "b=c".into()));
        assert_eq!(parse_env("A=").unwrap(), ("A".into(), "".into()));
        assert!(parse_env("A").is_err());
        assert!(parse_env("=x").is_err());
    }
}
