//! Where a server is and how to reach it; `${VAR}` expansion; the one
//! conversion from a lock entry's source to a spec ([`ServerSpec::from_source`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::string::String;
use std::vec::Vec;

use super::error::{McpError, McpErrorKind};
use crate::lock::valid_var_name as valid_name;

/// How to reach one MCP server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerSpec {
    /// A local process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        /// Program and arguments (taken literally, never expanded).
        command: Vec<String>,
        /// Environment variables of the server, added to the few it inherits
        /// ([`DEFAULT_INHERITED_ENV_VARS`](super::DEFAULT_INHERITED_ENV_VARS),
        /// or everything with [`ClientOptions::inherit_env`](super::ClientOptions::inherit_env)).
        /// Values may contain `${VAR}` references, expanded at connection
        /// time from our environment.
        env: BTreeMap<String, String>,
        /// Working directory (default: ours; [`ServerSpec::from_source`]
        /// always sets it, to the lock's directory when the entry has no `cwd`).
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint; servers that only speak the legacy
    /// HTTP+SSE transport are detected and used automatically.
    Http {
        /// The endpoint URL (`http://` or, with the `https` feature, `https://`).
        url: String,
        /// Extra headers sent with every request. Values may contain `${VAR}`
        /// references, expanded at connection time.
        headers: Vec<(String, String)>,
    },
    /// A saved `tools/list` answer in any shape the digest core accepts.
    File {
        /// The file to read.
        path: PathBuf,
    },
}

impl ServerSpec {
    /// The spec of a lock entry's source: `cwd` and `path` (relative to the
    /// lock's directory) resolved against the directory of `lock`, and
    /// refused when they reach outside it (absolute, climbing with `..`, or
    /// through a symbolic link) unless `allow_outside`. The refusal is an
    /// [`McpErrorKind::Spec`] error (a usage problem) naming the path. A
    /// stdio entry without `cwd` runs in the lock's directory (never in
    /// whatever directory the caller happens to run in), so a command such
    /// as `node server.js` pinned there works from anywhere.
    ///
    /// The CLI's `init` and `verify` and the proxy all reach servers through
    /// this function, so they resolve a lock entry the same way.
    pub fn from_source(
        source: &crate::lock::Source,
        lock: &Path,
        allow_outside: bool,
    ) -> Result<ServerSpec, McpError> {
        use crate::lock::Source;
        let resolve = |p: &str| -> Result<PathBuf, McpError> {
            if allow_outside {
                return Ok(crate::lock::resolve_from_lock(p, lock));
            }
            crate::lock::resolve_inside(p, lock).map_err(|why| {
                McpError::new(
                    McpErrorKind::Spec,
                    std::format!(
                        "{why}: paths must stay inside the lock's directory \
                         (--allow-outside-paths allows it)"
                    ),
                )
            })
        };
        Ok(match source {
            Source::Stdio { command, env, cwd } => ServerSpec::Stdio {
                command: command.clone(),
                env: env.clone(),
                cwd: Some(match cwd.as_deref() {
                    Some(c) => resolve(c)?,
                    None => crate::lock::lock_dir(lock),
                }),
            },
            Source::Http { url, headers } => ServerSpec::Http {
                url: url.clone(),
                headers: headers
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            },
            Source::File { path } => ServerSpec::File {
                path: resolve(path)?,
            },
        })
    }
}

/// Expands every `${NAME}` (and VS Code's `${env:NAME}`) in `text` from the
/// process environment.
///
/// `NAME` is `[A-Za-z_][A-Za-z0-9_]*`. A `$` not followed by `{` is kept as
/// is. An unset or non-UTF-8 variable, an unterminated `${`, or an invalid
/// name is an [`McpErrorKind::EnvVar`] error that names the variable but
/// never shows any value.
///
/// ```
/// # use contractpin::mcp::expand_env;
/// std::env::set_var("CONTRACTPIN_DOC_EXAMPLE", "abc");
/// assert_eq!(expand_env("Bearer ${CONTRACTPIN_DOC_EXAMPLE}").unwrap(), "Bearer abc");
/// assert_eq!(expand_env("cost: $5").unwrap(), "cost: $5");
/// assert!(expand_env("${CONTRACTPIN_DOC_UNSET_XYZ}").is_err());
/// ```
pub fn expand_env(text: &str) -> Result<String, McpError> {
    expand_with(text, |name| std::env::var_os(name).map(|v| v.into_string()))
}

/// Whether `text` contains a `${` reference (so its expansion is a secret).
pub(crate) fn has_reference(text: &str) -> bool {
    text.contains("${")
}

type Lookup = Option<Result<String, std::ffi::OsString>>;

/// An invalid `${...}` as an error shows it: whole when the text between
/// the braces has the shape of another tool's variable (`input:id`,
/// `config:a.b`, as VS Code writes them); else without that text, which is
/// part of a value, perhaps of a secret.
fn shown_reference(inner: &str) -> String {
    let shaped = inner.split_once(':').is_some_and(|(scope, id)| {
        valid_name(scope)
            && !id.is_empty()
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
    });
    if shaped {
        std::format!("`${{{}}}`", super::error::one_line(inner))
    } else {
        String::from("a `${...}` in the value (its text is not shown)")
    }
}

fn expand_with(text: &str, mut lookup: impl FnMut(&str) -> Lookup) -> Result<String, McpError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find("${") {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 2..];
        let Some(end) = after.find('}') else {
            return Err(McpError::new(
                McpErrorKind::EnvVar,
                "unterminated `${` in a value (write `${NAME}`)",
            ));
        };
        let inner = &after[..end];
        let name = inner.strip_prefix("env:").unwrap_or(inner);
        if !valid_name(name) {
            return Err(McpError::new(
                McpErrorKind::EnvVar,
                std::format!(
                    "{} is not a valid environment variable reference (names are [A-Za-z_][A-Za-z0-9_]*)",
                    shown_reference(inner)
                ),
            ));
        }
        match lookup(name) {
            Some(Ok(v)) => out.push_str(&v),
            Some(Err(_)) => {
                return Err(McpError::new(
                    McpErrorKind::EnvVar,
                    std::format!(
                    "environment variable {name} (referenced as `${{{inner}}}`) is not valid UTF-8"
                ),
                ))
            }
            None => {
                return Err(McpError::new(
                    McpErrorKind::EnvVar,
                    std::format!(
                        "environment variable {name} (referenced as `${{{inner}}}`) is not set"
                    ),
                ))
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Lookup {
        match name {
            "A" => Some(Ok("x".into())),
            "TOKEN" => Some(Ok("s3cr3t-value".into())),
            "EMPTY" => Some(Ok(String::new())),
            "BAD" => Some(Err(std::ffi::OsString::from("?"))),
            _ => None,
        }
    }

    #[test]
    fn a_stdio_entry_runs_in_its_cwd_or_else_in_the_lock_directory() {
        let lock = std::env::current_dir()
            .unwrap()
            .join("examples/contractpin.lock");
        let dir = crate::lock::lock_dir(&lock);
        let stdio = |cwd: Option<&str>| crate::lock::Source::Stdio {
            command: std::vec![String::from("node"), String::from("server.js")],
            env: BTreeMap::new(),
            cwd: cwd.map(String::from),
        };
        let cwd_of = |spec: ServerSpec| match spec {
            ServerSpec::Stdio { cwd, .. } => cwd,
            _ => None,
        };
        let spec = ServerSpec::from_source(&stdio(None), &lock, false).unwrap();
        assert_eq!(cwd_of(spec), Some(dir.clone()));
        let spec = ServerSpec::from_source(&stdio(Some("sub")), &lock, false).unwrap();
        assert_eq!(cwd_of(spec), Some(dir.join("sub")));
        assert!(ServerSpec::from_source(&stdio(Some("..")), &lock, false).is_err());
    }

    #[test]
    fn expands_references() {
        assert_eq!(expand_with("a${A}b${A}", env).unwrap(), "axbx");
        assert_eq!(
            expand_with("Bearer ${env:TOKEN}", env).unwrap(),
            "Bearer s3cr3t-value"
        );
        assert_eq!(expand_with("${EMPTY}", env).unwrap(), "");
        assert_eq!(expand_with("$A $ {A} $$", env).unwrap(), "$A $ {A} $$");
        assert_eq!(expand_with("", env).unwrap(), "");
        assert_eq!(expand_with("é${A}é", env).unwrap(), "éxé");
    }

    #[test]
    fn errors_name_the_variable_not_a_value() {
        let e = expand_with("x ${NOPE} y", env).unwrap_err();
        assert_eq!(e.kind(), &McpErrorKind::EnvVar);
        assert!(e.message().contains("NOPE"), "{e}");
        assert!(e.message().contains("not set"), "{e}");
        let e = expand_with("${BAD}", env).unwrap_err();
        assert!(e.message().contains("UTF-8"), "{e}");
        for bad in ["${", "a ${A", "${}", "${1A}", "${A-B}", "${env:}"] {
            let e = expand_with(bad, env).unwrap_err();
            assert_eq!(e.kind(), &McpErrorKind::EnvVar, "{bad}");
        }
        // A reference after a bad one is never looked up, and no value leaks.
        let e = expand_with("${TOKEN}${NOPE}", env).unwrap_err();
        assert!(!std::format!("{e}").contains("s3cr3t"));
        // The text of an invalid reference is part of the value: not shown,
        // unless it has the shape of another tool's variable.
        let e = expand_with("pa${ss-w0rd}x", env).unwrap_err();
        assert!(!e.message().contains("w0rd"), "{e}");
        let e = expand_with("${input:api-key}", env).unwrap_err();
        assert!(e.message().contains("`${input:api-key}`"), "{e}");
    }
}
