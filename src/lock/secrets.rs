//! The secrets policy: credentials never reach the lock (spec section 5).
//!
//! Only `${NAME}` references are ever stored; the verifying environment
//! supplies the values. Each kind of credential has one rule here:
//!
//! - `env` values ([`env_for_lock`]): a value that is exactly `${NAME}` is
//!   kept; any other (literal) value of the key `KEY` is replaced by
//!   `${KEY}`, a reference to the same-named variable of the verifying
//!   environment.
//! - HTTP header values ([`classify_header`]): a *template* (references
//!   only, optionally after an authentication scheme word, as in
//!   `Bearer ${TOKEN}`) is stored; a literal value is used for the one fetch
//!   that was given it and never stored; anything else (a literal glued to a
//!   reference, `sk-${X}`) is refused.
//! - URL user information ([`url_for_lock`]): kept when it is references
//!   only (`https://${USER}:${PASS}@host/`), removed otherwise.
//! - URL query and path ([`url_credential`]): a credential-like query key
//!   (`token`, `api_key`, `sig`, ...), a `key=value` path parameter of that
//!   kind, a segment following a credential-like segment (`/token/VALUE`) or
//!   a segment with a well-known secret prefix (`sk-`, `ghp_`, ...) must be
//!   a `${NAME}` reference, or `init` refuses the URL.
//!
//! Not covered: secrets typed into `command` arguments, which cannot be told
//! apart from ordinary values.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;

/// Whether `value` is exactly one `${NAME}` reference, `NAME` matching
/// `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_env_reference(value: &str) -> bool {
    let Some(name) = value
        .strip_prefix("${")
        .and_then(|rest| rest.strip_suffix('}'))
    else {
        return false;
    };
    valid_name(name)
}

/// Whether `name` is an environment variable name a `${NAME}` reference may
/// use: `[A-Za-z_][A-Za-z0-9_]*`. The one statement of the rule (the lock's
/// policy and the expansion at connection time both use it).
pub(crate) fn valid_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Whether `name` is an HTTP header name (an RFC 9110 token): the rule for
/// `--header`, the lock's `headers` and the headers sent.
///
/// ```
/// assert!(contractpin::lock::is_header_name("X-Api-Key"));
/// assert!(!contractpin::lock::is_header_name("Bad Name"));
/// assert!(!contractpin::lock::is_header_name(""));
/// ```
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The `env` map as it may be written to a lock: `${VAR}` references kept,
/// every literal value replaced by `${KEY}`.
///
/// ```
/// use std::collections::BTreeMap;
/// let mut env = BTreeMap::new();
/// env.insert("API_TOKEN".to_string(), "sk-live-123".to_string());
/// env.insert("HOME_DIR".to_string(), "${HOME}".to_string());
/// let safe = contractpin::lock::env_for_lock(&env);
/// assert_eq!(safe["API_TOKEN"], "${API_TOKEN}");
/// assert_eq!(safe["HOME_DIR"], "${HOME}");
/// ```
pub fn env_for_lock(env: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    env.iter()
        .map(|(key, value)| {
            let stored = match normalize_references(value) {
                Some(r) if is_env_reference(&r) => r,
                _ => format!("${{{key}}}"),
            };
            (key.clone(), stored)
        })
        .collect()
}

/// `text` with VS Code's `${env:NAME}` spelled `${NAME}`, or `None` when it
/// has a `${` that does not start a valid reference.
fn normalize_references(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find('}')?;
        let name = after[..end].strip_prefix("env:").unwrap_or(&after[..end]);
        if !valid_name(name) {
            return None;
        }
        out.push_str("${");
        out.push_str(name);
        out.push('}');
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// What the lock may do with one HTTP header value ([`classify_header`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderValue {
    /// References only (optionally after a scheme word): stored as given
    /// (`${env:NAME}` normalised to `${NAME}`).
    Template(String),
    /// No reference at all: used for this fetch only, never stored.
    Literal,
    /// Literal text mixed into references (`sk-${X}`), or a malformed
    /// `${`: refused, since storing it would store part of a secret.
    Mixed,
}

/// Classifies a header value for the lock.
///
/// A template is `[SCHEME " "] REFS`, where `SCHEME` is an authentication
/// scheme word (`[A-Za-z][A-Za-z0-9._-]*`, at most 32 bytes: `Bearer`,
/// `Basic`, `Token`) and `REFS` one or more `${NAME}` references with
/// nothing between them but spaces.
///
/// ```
/// use contractpin::lock::{classify_header, HeaderValue};
/// assert_eq!(classify_header("Bearer ${TOKEN}"), HeaderValue::Template("Bearer ${TOKEN}".into()));
/// assert_eq!(classify_header("${env:KEY}"), HeaderValue::Template("${KEY}".into()));
/// assert_eq!(classify_header("Bearer sk-live-1234"), HeaderValue::Literal);
/// assert_eq!(classify_header("Bearer sk-${REST}"), HeaderValue::Mixed);
/// ```
pub fn classify_header(value: &str) -> HeaderValue {
    if !value.contains("${") {
        return HeaderValue::Literal;
    }
    let Some(normal) = normalize_references(value.trim()) else {
        return HeaderValue::Mixed;
    };
    let refs = match normal.split_once(' ') {
        Some((scheme, rest)) if is_scheme_word(scheme) => rest,
        _ => normal.as_str(),
    };
    let only_refs = refs
        .split(' ')
        .filter(|w| !w.is_empty())
        .all(is_reference_run);
    if only_refs {
        HeaderValue::Template(normal)
    } else {
        HeaderValue::Mixed
    }
}

fn is_scheme_word(word: &str) -> bool {
    let b = word.as_bytes();
    !b.is_empty()
        && b.len() <= 32
        && b[0].is_ascii_alphabetic()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || b"._-".contains(c))
}

/// `${A}${B}...`: one or more references and nothing else.
fn is_reference_run(mut word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    while !word.is_empty() {
        let Some(end) = word.find('}') else {
            return false;
        };
        if !is_env_reference(&word[..=end]) {
            return false;
        }
        word = &word[end + 1..];
    }
    true
}

/// The byte ranges of a URL's parts: `(authority start, authority end)`
/// after `scheme://`, or `None` for a URL without `://`.
pub(crate) fn authority(url: &str) -> Option<(usize, usize)> {
    let start = url.find("://")? + 3;
    let len = url[start..]
        .find(['/', '?', '#'])
        .unwrap_or(url.len() - start);
    Some((start, start + len))
}

/// `url` as it may be written to a lock: user information is kept when it
/// is `${NAME}` references only (`${USER}:${PASS}`), and removed otherwise
/// (`scheme://user:pass@host...` becomes `scheme://host...`). Any other URL
/// is returned unchanged.
///
/// ```
/// use contractpin::lock::url_for_lock;
/// assert_eq!(url_for_lock("https://u:p@h/mcp"), "https://h/mcp");
/// assert_eq!(url_for_lock("https://${U}:${P}@h/mcp"), "https://${U}:${P}@h/mcp");
/// ```
pub fn url_for_lock(url: &str) -> String {
    let Some((start, end)) = authority(url) else {
        return String::from(url);
    };
    match url[start..end].rfind('@') {
        Some(at) if !userinfo_is_references(&url[start..start + at]) => {
            let mut out = String::with_capacity(url.len());
            out.push_str(&url[..start]);
            out.push_str(&url[start + at + 1..]);
            out
        }
        _ => String::from(url),
    }
}

fn userinfo_is_references(userinfo: &str) -> bool {
    let mut parts = userinfo.splitn(2, ':');
    parts.all(|p| p.is_empty() || is_reference_run(p)) && userinfo.contains("${")
}

/// Whether `url` carries user information (`scheme://user[:pass]@host`).
pub fn url_has_userinfo(url: &str) -> bool {
    authority(url).is_some_and(|(s, e)| url[s..e].contains('@'))
}

/// Query keys (lowercase, `-` read as `_`) whose value is a credential.
const CREDENTIAL_KEYS: &[&str] = &[
    "key",
    "apikey",
    "api_key",
    "x_api_key",
    "token",
    "access_token",
    "auth_token",
    "refresh_token",
    "id_token",
    "private_token",
    "auth",
    "secret",
    "client_secret",
    "password",
    "passwd",
    "pwd",
    "sig",
    "signature",
    "credential",
    "credentials",
];

/// Suffixes (after `_` or `-`) that make any key a credential key.
const CREDENTIAL_SUFFIXES: &[&str] = &["_token", "_key", "_secret", "_password", "_sig"];

/// Prefixes of well-known secret formats that may appear as a path segment.
const SECRET_PREFIXES: &[&str] = &[
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "ghp_",
    "gho_",
    "ghs_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "AKIA",
];

/// Whether `key` names a credential: a query key, a path parameter, or
/// (for `--inherit-env`, masking what a server may echo) an environment
/// variable name such as `GH_TOKEN` or `AWS_SECRET_ACCESS_KEY`.
pub(crate) fn is_credential_key(key: &str) -> bool {
    let k: String = key
        .chars()
        .map(|c| {
            if c == '-' {
                '_'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    CREDENTIAL_KEYS.contains(&k.as_str()) || CREDENTIAL_SUFFIXES.iter().any(|s| k.ends_with(s))
}

/// The first credential-like part of `url`'s path or query that is not a
/// `${NAME}` reference, described for an error message without its value
/// (`query parameter "token"`), or `None`.
///
/// ```
/// use contractpin::lock::url_credential;
/// assert!(url_credential("https://h/mcp?api_key=sk-123").is_some());
/// assert!(url_credential("https://h/mcp?api_key=${API_KEY}").is_none());
/// assert!(url_credential("https://h/token/abc123/mcp").is_some());
/// assert!(url_credential("https://h/mcp?page=2").is_none());
/// ```
pub fn url_credential(url: &str) -> Option<String> {
    let (_, end) = authority(url)?;
    let rest = &url[end..];
    let rest = rest.split('#').next().unwrap_or("");
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    query_credential(query).or_else(|| path_credential(path))
}

fn query_credential(query: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, v)| is_credential_key(k) && !v.is_empty() && !is_env_reference(v))
        .map(|(k, _)| format!("query parameter {k:?}"))
}

/// Whether one command-line argument (`prev` the one before it) looks like
/// a literal credential, by the rules of [`url_credential`]'s path
/// segments: `key=value` with a credential key (`--api-key=abc`), a literal
/// after an argument naming a credential (`--token VALUE`), or a word in a
/// secret's format (`ghp_…`). A `${NAME}` reference is not one. (The lock
/// stores a stdio command line as written; `init --from` warns with this.)
///
/// ```
/// use contractpin::lock::arg_credential;
/// assert!(arg_credential(Some("--token"), "abc123"));
/// assert!(arg_credential(None, "--api-key=abc123"));
/// assert!(arg_credential(None, "ghp_abcdef"));
/// assert!(!arg_credential(Some("--token"), "${TOKEN}"));
/// assert!(!arg_credential(Some("--port"), "8080"));
/// ```
pub fn arg_credential(prev: Option<&str>, arg: &str) -> bool {
    if is_env_reference(arg) {
        return false;
    }
    let names_one = |word: &str| is_credential_key(word.trim_start_matches('-'));
    if let Some((k, v)) = arg.split_once('=') {
        if names_one(k) && !v.is_empty() && !is_env_reference(v) {
            return true;
        }
    }
    if !arg.starts_with('-') && prev.is_some_and(names_one) {
        return true;
    }
    arg.split_whitespace()
        .any(|w| SECRET_PREFIXES.iter().any(|p| w.starts_with(p)))
}

fn path_credential(path: &str) -> Option<String> {
    let mut previous_is_key = false;
    for (i, segment) in path.split('/').filter(|s| !s.is_empty()).enumerate() {
        let literal = !is_env_reference(segment);
        if let Some((k, v)) = segment.split_once('=') {
            if is_credential_key(k) && !v.is_empty() && !is_env_reference(v) {
                return Some(format!("path parameter {k:?}"));
            }
        }
        if literal && previous_is_key {
            return Some(format!("path segment {} (after a credential name)", i + 1));
        }
        if literal && SECRET_PREFIXES.iter().any(|p| segment.starts_with(p)) {
            return Some(format!("path segment {} (a secret's format)", i + 1));
        }
        previous_is_key = is_credential_key(segment);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_templates() {
        let t = |v: &str| classify_header(v);
        assert_eq!(t("${A}"), HeaderValue::Template("${A}".into()));
        assert_eq!(
            t("Basic ${B64}"),
            HeaderValue::Template("Basic ${B64}".into())
        );
        assert_eq!(t("${A}${B}"), HeaderValue::Template("${A}${B}".into()));
        assert_eq!(
            t("Bearer ${env:T}"),
            HeaderValue::Template("Bearer ${T}".into())
        );
        assert_eq!(t("plain"), HeaderValue::Literal);
        assert_eq!(t("Bearer ${A} tail"), HeaderValue::Mixed);
        assert_eq!(t("${A}x"), HeaderValue::Mixed);
        assert_eq!(t("${input:x}"), HeaderValue::Mixed);
        assert_eq!(t("${"), HeaderValue::Mixed);
        assert_eq!(t("Bad/Scheme ${A}"), HeaderValue::Mixed);
    }

    #[test]
    fn userinfo() {
        assert_eq!(url_for_lock("http://a:b@h:1/p?q"), "http://h:1/p?q");
        assert_eq!(url_for_lock("http://h/p@x"), "http://h/p@x");
        assert_eq!(url_for_lock("http://${U}@h/"), "http://${U}@h/");
        assert_eq!(url_for_lock("http://${U}:pw@h/"), "http://h/");
        assert!(url_has_userinfo("http://u@h/"));
        assert!(!url_has_userinfo("http://h/a@b"));
    }

    #[test]
    fn url_credentials() {
        for bad in [
            "https://h/?token=abc",
            "https://h/?x=1&API-KEY=abc",
            "https://h/?github_token=abc",
            "https://h/?sig=abc#frag",
            "https://h/v1/key/abc/mcp",
            "https://h/v1;x/apikey=abc/mcp",
            "https://h/sk-live-123/mcp",
        ] {
            assert!(url_credential(bad).is_some(), "{bad}");
        }
        for good in [
            "https://h/mcp",
            "https://h/?token=${T}",
            "https://h/?token=",
            "https://h/key/${K}/mcp",
            "https://h/keys/list",
            "https://h/?monkey=1",
            "https://h/#token=abc",
        ] {
            assert!(url_credential(good).is_none(), "{good}");
        }
        let msg = url_credential("https://h/?token=s3cr3t").unwrap();
        assert!(!msg.contains("s3cr3t"));
    }
}
