//! The secrets policy: credentials never reach the lock (spec section 5).
//!
//! - HTTP headers (where tokens usually travel) are not part of the lock
//!   model at all, so no writer can persist them.
//! - `env` values are stored only as references: a value that is exactly
//!   `${NAME}` is kept; any other (literal) value of the key `KEY` is replaced
//!   by `${KEY}`, a reference to the same-named variable of the verifying
//!   environment. `init` may be run with a real token in `env`; `verify`
//!   then expects the token in its own environment under the same name.
//! - An http URL loses its user information (`https://user:pass@host/` is
//!   stored as `https://host/`).
//!
//! Not covered: secrets typed into `command` arguments or a URL's query
//! string, which cannot be told apart from ordinary values.

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
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
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
            let stored = if is_env_reference(value) {
                value.clone()
            } else {
                format!("${{{key}}}")
            };
            (key.clone(), stored)
        })
        .collect()
}

/// `url` without user information (`scheme://user:pass@host...` becomes
/// `scheme://host...`); any other URL is returned unchanged.
pub fn url_for_lock(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return String::from(url);
    };
    let auth_start = scheme_end + 3;
    let rest = &url[auth_start..];
    let auth_len = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..auth_len].rfind('@') {
        Some(at) => {
            let mut out = String::with_capacity(url.len());
            out.push_str(&url[..auth_start]);
            out.push_str(&rest[at + 1..]);
            out
        }
        None => String::from(url),
    }
}
