//! Credentials at connection time: `${VAR}` expansion of a server's env,
//! headers and URL, the rule that credentials never travel over plain
//! `http://` to another machine, and the list of every value (in every
//! encoding a server might echo) that must be redacted from our output.
//!
//! This is the one home of the redaction policy: the CLI and library
//! callers get the same masking, because [`fetch_tools_list`] applies it to
//! every error and warning before they leave the crate, and [`Secrets`]
//! applies the same list and the same rule (`***`) to what the server sent:
//! tool contracts in a report ([`Secrets::mask_report`]), its `serverInfo`,
//! and the check that keeps a secret out of a lock's snapshot
//! ([`Secrets::found_in`]). Digests are always over the real bytes; only the
//! copies meant to be read are masked.
//!
//! With `inherit_env`, a stdio server also knows our environment: the values
//! of the variables whose names look like credentials (`GH_TOKEN`,
//! `AWS_SECRET_ACCESS_KEY`, the lock's credential-key rule) are masked too.
//!
//! [`fetch_tools_list`]: super::fetch_tools_list

use std::collections::BTreeMap;
use std::string::{String, ToString};
use std::vec::Vec;

use super::error::{one_line, redact, McpError, McpErrorKind};
use super::spec::{expand_env, has_reference, ServerSpec};
use super::ClientOptions;
use crate::lock::ServerInfo;
use crate::verify::ServerReport;

/// Headers set by the client itself; a server spec may not override them.
const RESERVED: &[&str] = &[
    "accept",
    "content-type",
    "content-length",
    "host",
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "transfer-encoding",
];

/// An HTTP source with every reference expanded, and what to redact.
/// (Without `mcp-http` only the checks are used, never the values.)
#[derive(Debug)]
#[cfg_attr(not(feature = "mcp-http"), allow(dead_code))]
pub(crate) struct HttpCredentials {
    /// The URL to connect to.
    pub url: String,
    /// The headers to send.
    pub headers: Vec<(String, String)>,
    /// Every value to mask in errors and warnings (longest first).
    pub secrets: Vec<String>,
}

/// Expands an HTTP source and checks that its credentials may be sent.
pub(crate) fn http(url: &str, headers: &[(String, String)]) -> Result<HttpCredentials, McpError> {
    let headers = expand_headers(headers)?;
    let expanded = expand_env(url).map_err(|e| e.context("url"))?;
    let mut raw = Vec::new();
    for (_, v) in &headers {
        raw.push(v.clone());
    }
    if has_reference(url) {
        raw.extend(reference_values(url));
    }
    let userinfo = userinfo(&expanded);
    if let Some(u) = userinfo {
        raw.push(u.to_string());
        raw.extend(u.split_once(':').map(|(_, p)| p.to_string()));
        // The user part alone when it is long enough to be a token
        // (`https://TOKEN:x-oauth-basic@host`, `https://sk_live_...:@host`).
        let user = u.split_once(':').map_or(u, |(user, _)| user);
        for form in [user.to_string(), percent_decode(user)] {
            if form.len() >= 8 {
                raw.push(form);
            }
        }
        for form in [u.to_string(), percent_decode(u)] {
            raw.push(base64(form.as_bytes()));
        }
    }
    let secrets = with_forms(raw, 4);
    if !headers.is_empty() || userinfo.is_some() {
        refuse_plain_http(&expanded).map_err(|e| e.redact(&secrets))?;
    }
    Ok(HttpCredentials {
        url: expanded,
        headers,
        secrets,
    })
}

/// The values of a stdio server's env that must be masked: every value
/// (literal or expanded) of at least 6 bytes, and the words of 8 or more
/// bytes inside one ("Bearer <token>"); with `inherit` (the server gets our
/// whole environment), also those of our variables whose names look like
/// credentials ([`inherited_credentials`]).
pub(crate) fn stdio_secrets(
    raw: &BTreeMap<String, String>,
    expanded: &BTreeMap<String, String>,
    inherit: bool,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in raw.values().chain(expanded.values()) {
        if !v.contains("${") {
            out.push(v.clone());
        }
    }
    if inherit {
        out.extend(inherited_credentials(std::env::vars_os()));
    }
    with_forms(out, 6)
}

/// The values of the variables of `vars` whose names look like credentials
/// (the lock's rule for credential keys: `TOKEN`, `*_TOKEN`, `*_KEY`,
/// `*_SECRET`, `*_PASSWORD`, ...).
fn inherited_credentials(
    vars: impl Iterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
) -> Vec<String> {
    vars.filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| crate::lock::is_credential_name(k))
        .map(|(_, v)| v)
        .collect()
}

/// The values one server knows that must never be printed or written: its
/// env values (after expansion), header values, URL references and user
/// information, in the forms a server may echo them (the list
/// [`fetch_tools_list`](super::fetch_tools_list) redacts its errors with).
/// Its `Debug` shows only how many there are.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secrets(Vec<String>);

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secrets({} values)", self.0.len())
    }
}

impl Secrets {
    /// The secrets of `spec` (none for a file), with `opts.inherit_env`
    /// as [`fetch_tools_list`](super::fetch_tools_list) uses it. Fails only
    /// on a usage error (an unset `${VAR}`, an unusable header or URL).
    pub fn of(spec: &ServerSpec, opts: &ClientOptions) -> Result<Secrets, McpError> {
        Ok(Secrets(match spec {
            ServerSpec::File { .. } => Vec::new(),
            ServerSpec::Stdio { env, .. } => {
                let expanded = super::expand_stdio_env(env)?;
                stdio_secrets(env, &expanded, opts.inherit_env)
            }
            ServerSpec::Http { url, headers } => http(url, headers)?.secrets,
        }))
    }

    /// `text` with every secret replaced by `***` (the error redaction).
    pub fn mask(&self, text: &str) -> String {
        redact(text, &self.0)
    }

    /// Whether `text` holds a secret (something [`Secrets::mask`] masks).
    pub fn found_in(&self, text: &str) -> bool {
        !self.0.is_empty() && self.mask(text) != text
    }

    /// A JSON value with every secret in it masked, canonical again; a
    /// value whose masking would not be JSON becomes `"***"` whole.
    pub fn mask_json(&self, json: &[u8]) -> Vec<u8> {
        let Ok(text) = std::str::from_utf8(json) else {
            return b"\"***\"".to_vec();
        };
        if !self.found_in(text) {
            return json.to_vec();
        }
        crate::canonicalize(self.mask(text).as_bytes()).unwrap_or_else(|_| b"\"***\"".to_vec())
    }

    /// `serverInfo` with its name, title and version masked.
    pub fn mask_server_info(&self, info: &ServerInfo) -> ServerInfo {
        ServerInfo {
            name: self.mask(&info.name),
            version: self.mask(&info.version),
            title: info.title.as_deref().map(|t| self.mask(t)),
        }
    }

    /// Masks what a report shows of the server's data: tool names, each
    /// change's pointer and `before`/`after` values, both `serverInfo`s and
    /// the error. Digests and verdicts are left alone (they are the real
    /// bytes').
    pub fn mask_report(&self, report: &mut ServerReport) {
        if self.0.is_empty() {
            return;
        }
        for tool in &mut report.tools {
            tool.name = self.mask(&tool.name);
        }
        for change in report.tools.iter_mut().flat_map(|t| t.changes.iter_mut()) {
            change.pointer = self.mask(&change.pointer);
            for v in [&mut change.before, &mut change.after]
                .into_iter()
                .flatten()
            {
                *v = self.mask_json(v);
            }
        }
        for info in [&mut report.pinned_server_info, &mut report.live_server_info]
            .into_iter()
            .flatten()
        {
            *info = self.mask_server_info(info);
        }
        report.error = report.error.as_deref().map(|e| self.mask(e));
    }
}

/// The values that the `${NAME}` references of `text` expand to.
fn reference_values(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        let after = &rest[i..];
        let Some(end) = after.find('}') else { break };
        if let Ok(v) = expand_env(&after[..=end]) {
            out.push(v);
        }
        rest = &after[end + 1..];
    }
    out
}

/// Every secret of at least `min` bytes, its long words, and the encodings
/// a server may echo it in: JSON-escaped (with and without `\/`) and
/// percent-encoded (upper and lower case hex, with and without `/` kept).
fn with_forms(values: Vec<String>, min: usize) -> Vec<String> {
    let mut base = Vec::new();
    for v in values {
        for word in v.split_whitespace() {
            if word.len() >= 8 && word.len() < v.len() {
                base.push(word.to_string());
            }
        }
        if v.len() >= min {
            base.push(v);
        }
    }
    let mut out = Vec::new();
    for s in base {
        out.push(json_escaped(&s, false));
        out.push(json_escaped(&s, true));
        for (upper, keep_slash) in [(true, false), (false, false), (true, true), (false, true)] {
            out.push(percent_encoded(&s, upper, keep_slash));
        }
        out.push(s);
    }
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out.dedup();
    out
}

fn json_escaped(s: &str, slash: bool) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' if slash => out.push_str("\\/"),
            c if (c as u32) < 0x20 => out.push_str(&std::format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn percent_encoded(s: &str, upper: bool, keep_slash: bool) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for &b in s.as_bytes() {
        let unreserved =
            b.is_ascii_alphanumeric() || b"-._~".contains(&b) || (keep_slash && b == b'/');
        if unreserved {
            out.push(b as char);
        } else if upper {
            out.push_str(&std::format!("%{b:02X}"));
        } else {
            out.push_str(&std::format!("%{b:02x}"));
        }
    }
    out
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).and_then(|&c| hex(c)),
            b.get(i + 2).and_then(|&c| hex(c)),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Standard base64 with padding (what an HTTP Basic header carries).
fn base64(input: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let n = chunk.len();
        let v = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= n {
                out.push(ALPHABET[((v >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The user information of `url` (`user:pass` in `scheme://user:pass@host`).
fn userinfo(url: &str) -> Option<&str> {
    let (start, end) = crate::lock::url_authority(url)?;
    url[start..end].rsplit_once('@').map(|(u, _)| u)
}

/// The host of `url`, without port or brackets.
pub(crate) fn host(url: &str) -> &str {
    let authority = crate::lock::url_authority(url).map_or("", |(s, e)| &url[s..e]);
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if let Some(v6) = hostport.strip_prefix('[') {
        return v6.split(']').next().unwrap_or("");
    }
    hostport.split(':').next().unwrap_or("")
}

/// Whether `host` names this machine: `localhost`, 127.0.0.0/8, `::1`, or
/// an IPv4-mapped loopback address. Not `*.localhost`: RFC 6761 reserves
/// it, but glibc without a local resolver asks the network's DNS for it,
/// whose answer anyone on the path can forge.
pub(crate) fn is_loopback(host: &str) -> bool {
    let h = host.to_ascii_lowercase();
    if h == "localhost" {
        return true;
    }
    match h.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(a)) => a.is_loopback(),
        Ok(std::net::IpAddr::V6(a)) => {
            a.is_loopback() || a.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        Err(_) => false,
    }
}

/// Credentials go over plain `http://` only to this machine.
fn refuse_plain_http(url: &str) -> Result<(), McpError> {
    let plain = url
        .get(..7)
        .is_some_and(|s| s.eq_ignore_ascii_case("http://"));
    let host = host(url);
    if plain && !is_loopback(host) {
        return Err(McpError::new(
            McpErrorKind::Spec,
            std::format!(
                "credentials (headers or user information) are never sent over plain http:// \
                 to {}, which is not this machine: use https://",
                one_line(host)
            ),
        ));
    }
    Ok(())
}

/// Validates header names and expands `${VAR}` in the values.
fn expand_headers(headers: &[(String, String)]) -> Result<Vec<(String, String)>, McpError> {
    let mut out: Vec<(String, String)> = Vec::with_capacity(headers.len());
    for (name, value) in headers {
        if !crate::lock::is_header_name(name) {
            return Err(McpError::new(
                McpErrorKind::Spec,
                std::format!("`{}` is not a valid HTTP header name", one_line(name)),
            ));
        }
        if RESERVED.contains(&name.to_ascii_lowercase().as_str()) {
            return Err(McpError::new(
                McpErrorKind::Spec,
                std::format!("the header {name} is set by the client itself and cannot be given"),
            ));
        }
        if out.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
            return Err(McpError::new(
                McpErrorKind::Spec,
                std::format!("the header {name} is given twice"),
            ));
        }
        let v = expand_env(value).map_err(|e| e.context(&std::format!("header {name}")))?;
        if v.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
            return Err(McpError::new(
                McpErrorKind::Spec,
                std::format!("the value of header {name} contains a line break or NUL"),
            ));
        }
        out.push((name.clone(), v));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
    }

    #[test]
    fn loopback_hosts() {
        for h in [
            "localhost",
            "LOCALHOST",
            "127.0.0.1",
            "127.9.9.9",
            "::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_loopback(h), "{h}");
        }
        for h in [
            "example.com",
            "localhost.example.com",
            "a.localhost",
            "10.0.0.1",
            "0.0.0.0",
            "::",
            "128.0.0.1",
        ] {
            assert!(!is_loopback(h), "{h}");
        }
        assert_eq!(host("http://u:p@[::1]:80/x"), "::1");
        assert_eq!(host("http://h.example:8080/x?y"), "h.example");
    }

    #[test]
    fn plain_http_credentials() {
        assert!(refuse_plain_http("http://attacker.example/mcp").is_err());
        assert!(refuse_plain_http("HTTP://attacker.example/mcp").is_err());
        assert!(refuse_plain_http("http://127.0.0.1:9/mcp").is_ok());
        assert!(refuse_plain_http("http://[::1]:9/mcp").is_ok());
        assert!(refuse_plain_http("https://attacker.example/mcp").is_ok());
        let e = http("http://u:pw123456@evil.example/", &[]).unwrap_err();
        assert!(!e.to_string().contains("pw123456"), "{e}");
        assert!(http("http://evil.example/", &[]).is_ok());
        let h = [("Authorization".to_string(), "Bearer x".to_string())];
        assert!(http("http://evil.example/", &h).is_err());
        assert!(http("http://localhost:1/", &h).is_ok());
        assert!(http("http://api.localhost:1/", &h).is_err());
    }

    /// A token in the user part of a URL (GitHub's `TOKEN:x-oauth-basic@`)
    /// is masked on its own, as written and percent-decoded; a short user
    /// name is not (it cannot be told apart from ordinary words).
    #[test]
    fn the_user_part_of_user_information_is_masked() {
        let c = http("http://ghp_16C7e42F292c%41:x-oauth-basic@127.0.0.1:1/", &[]).unwrap();
        let echo = "unknown user ghp_16C7e42F292c%41, or ghp_16C7e42F292cA";
        assert_eq!(redact(echo, &c.secrets), "unknown user ***, or ***");
        let c = http("http://admin:pw-123456@127.0.0.1:1/", &[]).unwrap();
        assert_eq!(redact("admin", &c.secrets), "admin");
    }

    /// Each header the user gives is refused, naming the header and never
    /// its value, when its name is not a token, is one the client sets
    /// itself, is given twice (in any case), or its value could split the
    /// request (CR, LF, NUL).
    #[test]
    fn bad_headers_are_refused_without_their_values() {
        let h = |pairs: &[(&str, &str)]| -> std::vec::Vec<(String, String)> {
            pairs
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        };
        let secret = "s3cr3t-value-123";
        for (headers, why) in [
            (h(&[("X Token", secret)]), "is not a valid HTTP header name"),
            (
                h(&[("X-Token:", secret)]),
                "is not a valid HTTP header name",
            ),
            (h(&[("", secret)]), "is not a valid HTTP header name"),
            (h(&[("Host", secret)]), "is set by the client itself"),
            (
                h(&[("MCP-Session-Id", secret)]),
                "is set by the client itself",
            ),
            (
                h(&[("Authorization", secret), ("authorization", secret)]),
                "is given twice",
            ),
            (
                h(&[("X-Token", "a\r\nX-Injected: 1")]),
                "contains a line break or NUL",
            ),
            (h(&[("X-Token", "a\nb")]), "contains a line break or NUL"),
            (h(&[("X-Token", "a\0b")]), "contains a line break or NUL"),
        ] {
            let e = http("https://mcp.example/", &headers)
                .unwrap_err()
                .to_string();
            assert!(e.contains(why), "{headers:?}: {e}");
            assert!(
                !e.contains(secret) && !e.contains("Injected"),
                "a value printed: {e}"
            );
        }
        let fine = h(&[("Authorization", secret), ("X-Api-Key", "k")]);
        let c = http("https://mcp.example/", &fine).unwrap();
        assert!(c.secrets.iter().any(|s| s == secret));
    }

    #[test]
    fn inherited_credentials_go_by_the_name() {
        let vars = [
            ("GH_TOKEN", "ghp_x1234567"),
            ("AWS_SECRET_ACCESS_KEY", "abcdefgh"),
            ("PATH", "/usr/bin"),
            ("HOME", "/root"),
        ]
        .map(|(k, v)| (k.into(), v.into()));
        assert_eq!(
            inherited_credentials(vars.into_iter()),
            ["ghp_x1234567", "abcdefgh"]
        );
    }

    #[test]
    fn masked_json_stays_json() {
        let s = Secrets(with_forms(std::vec!["tok\"en-123".to_string()], 6));
        assert_eq!(
            s.mask_json(br#"{"a":"x tok\"en-123 y"}"#),
            br#"{"a":"x *** y"}"#
        );
        assert_eq!(s.mask_json(br#"{"a":1}"#), br#"{"a":1}"#);
        // A secret that spans JSON syntax: the whole value is masked.
        let s = Secrets(with_forms(std::vec!["a\":\"xyz".to_string()], 6));
        assert_eq!(s.mask_json(br#"{"a":"xyz"}"#), br#""***""#);
        assert!(!std::format!("{s:?}").contains("xyz"));
    }

    #[test]
    fn forms_cover_encoded_echoes() {
        let s = with_forms(std::vec!["tok/abc+def".to_string()], 4);
        for form in [
            "tok/abc+def",
            "tok\\/abc+def",
            "tok%2Fabc%2Bdef",
            "tok%2fabc%2bdef",
            "tok/abc%2Bdef",
        ] {
            assert!(s.iter().any(|x| x == form), "{form} missing from {s:?}");
        }
        let basic = http("https://user:p%40ss@h/", &[]).unwrap();
        assert!(basic.secrets.contains(&base64(b"user:p@ss")));
        assert!(basic.secrets.contains(&base64(b"user:p%40ss")));
    }
}
