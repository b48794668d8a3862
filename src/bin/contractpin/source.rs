//! A server source as the CLI knows it, before it becomes an MCP client
//! spec (to fetch) or a lock source (to persist).
//!
//! Relative paths: a file transport's `path` and a stdio server's `cwd` are
//! stored in the lock relative to the lock file's directory, so a lock can
//! be verified from any working directory. On the command line (and in an
//! imported client configuration) they are relative to the current
//! directory; [`relative_to_lock`] and [`resolve_from_lock`] convert.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

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

/// An HTTP header name (an RFC 9110 token).
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
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

/// Lexically normalised absolute form of `path` (relative to the current directory).
fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("."))
            .join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The directory holding the lock file.
pub fn lock_dir(lock: &Path) -> PathBuf {
    absolute(lock)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// `path` (relative to the current directory, or absolute) as it is stored
/// in the lock: absolute paths unchanged, relative ones relative to the
/// lock's directory.
pub fn relative_to_lock(path: &str, lock: &Path) -> String {
    let p = Path::new(path);
    if p.is_absolute() {
        return path.to_string();
    }
    let target = absolute(p);
    let base = lock_dir(lock);
    let t: Vec<_> = target.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut rel = PathBuf::new();
    for _ in common..b.len() {
        rel.push("..");
    }
    for c in &t[common..] {
        rel.push(c.as_os_str());
    }
    if rel.as_os_str().is_empty() {
        return ".".to_string();
    }
    rel.to_string_lossy().into_owned()
}

/// A path read from the lock, resolved against the lock's directory.
pub fn resolve_from_lock(path: &str, lock: &Path) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        lock_dir(lock).join(p)
    }
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

    #[test]
    fn lock_relative_paths() {
        let cwd = std::env::current_dir().unwrap();
        let lock = cwd.join("examples/contractpin.lock");
        assert_eq!(
            relative_to_lock("examples/tools-list.json", &lock),
            "tools-list.json"
        );
        assert_eq!(relative_to_lock("data/x.json", &lock), "../data/x.json");
        assert_eq!(relative_to_lock("/abs/x.json", &lock), "/abs/x.json");
        assert_eq!(relative_to_lock("examples", &lock), ".");
        assert_eq!(
            resolve_from_lock("tools-list.json", &lock),
            cwd.join("examples/tools-list.json")
        );
    }
}
