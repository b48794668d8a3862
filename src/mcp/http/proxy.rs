//! Which proxy a URL goes through, read from the environment the way curl
//! reads it (ureq's own `Proxy::try_from_env` is not used: it takes
//! `ALL_PROXY`, then `HTTPS_PROXY`, then `HTTP_PROXY` for every scheme, does
//! not trim `NO_PROXY` entries, matches `example.com` without its
//! subdomains, and silently connects directly when the proxy URL is
//! malformed or names a socks proxy).
//!
//! - An `https://` URL takes `https_proxy`, then `HTTPS_PROXY`; an `http://`
//!   URL takes `http_proxy`, then `HTTP_PROXY` (curl reads only the
//!   lowercase one; like most other tools we read both, except when
//!   `REQUEST_METHOD` is set: under CGI, `HTTP_PROXY` can come from a
//!   request's `Proxy:` header, "httpoxy"). Both fall back on `all_proxy`,
//!   then `ALL_PROXY`. An empty variable counts as unset.
//! - The proxy is an `http://` or `https://` CONNECT proxy (no scheme means
//!   `http://`), with an optional percent-encoded `user:password@`, sent as
//!   Basic `Proxy-Authorization` and never printed: messages show the proxy
//!   as `scheme://host:port`. A socks or unknown scheme, a malformed URL or a
//!   value that is not UTF-8 is an error, never a direct connection.
//! - `no_proxy`, then `NO_PROXY`: entries separated by commas and/or blanks.
//!   `*` bypasses the proxy for every host. A name matches itself and its
//!   subdomains, case-insensitively, ignoring a leading `.` or `*.` and a
//!   trailing `.` (`example.com` and `.example.com` both match `example.com`
//!   and `a.example.com`, not `notexample.com`). An IP address matches the
//!   same address, or a range in CIDR notation (`10.0.0.0/8`, `fd00::/8`;
//!   IPv6 without brackets); names never match addresses and no entry looks
//!   at ports.
//! - A loopback target (`localhost`, 127.0.0.0/8, `::1`) goes through a
//!   proxy only when the proxy is on this machine too; otherwise it is
//!   reached directly (curl would proxy it). A proxy on another machine
//!   would reach that machine's loopback, not ours, and a plain `http://`
//!   request through it shows the proxy the credentials that the plain-http
//!   rule lets go to this machine only.

use std::ffi::OsString;
use std::net::IpAddr;
use std::string::String;

use super::super::credentials::is_loopback;
use super::super::error::{McpError, McpErrorKind};

/// The proxy chosen for a URL.
pub(crate) struct Chosen {
    /// What ureq connects through.
    pub proxy: ureq::Proxy,
    /// `scheme://host:port`, without credentials, and the variable it came
    /// from: `http://proxy:3128 (from HTTPS_PROXY)`.
    pub shown: String,
    /// The proxy's host, without brackets.
    host: String,
}

/// The proxy for `url` according to the process environment, if any.
pub(crate) fn for_url(url: &str) -> Result<Option<Chosen>, McpError> {
    select(url, &|name| std::env::var_os(name))
}

/// The proxy for `url` according to `env`.
fn select(url: &str, env: &dyn Fn(&str) -> Option<OsString>) -> Result<Option<Chosen>, McpError> {
    let uri: ureq::http::Uri = url
        .parse()
        .map_err(|_| error(std::format!("`{url}` is not a URL")))?;
    let https = uri.scheme_str() == Some("https");
    let Some((var, value)) = proxy_var(https, env)? else {
        return Ok(None);
    };
    let host = uri.host().unwrap_or_default();
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    if let Some(list) = first_set(&["no_proxy", "NO_PROXY"], env)? {
        if bypass(host, &list.1) {
            return Ok(None);
        }
    }
    let chosen = parse_proxy(var, &value)?;
    if is_loopback(host) && !is_loopback(&chosen.host) {
        return Ok(None);
    }
    Ok(Some(chosen))
}

/// The variable naming the proxy for an http or https URL, and its value.
fn proxy_var(
    https: bool,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Option<(&'static str, String)>, McpError> {
    let cgi = env("REQUEST_METHOD").is_some();
    let names: &[&'static str] = match (https, cgi) {
        (true, _) => &["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"],
        (false, false) => &["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"],
        (false, true) => &["http_proxy", "all_proxy", "ALL_PROXY"],
    };
    first_set(names, env)
}

/// The first of `names` that is set and not empty.
fn first_set(
    names: &[&'static str],
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Option<(&'static str, String)>, McpError> {
    for &name in names {
        let Some(value) = env(name) else { continue };
        if value.is_empty() {
            continue;
        }
        return match value.into_string() {
            Ok(v) => Ok(Some((name, v))),
            Err(_) => Err(error(std::format!("{name} is not valid UTF-8"))),
        };
    }
    Ok(None)
}

/// Checks and converts the proxy URL in `var`.
fn parse_proxy(var: &str, value: &str) -> Result<Chosen, McpError> {
    let bad = || error(std::format!("{var} is not a valid proxy URL"));
    let uri: ureq::http::Uri = value.trim().parse().map_err(|_| bad())?;
    let authority = uri.authority().ok_or_else(bad)?;
    let scheme = uri.scheme_str().unwrap_or("http").to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" if cfg!(feature = "https") => 443,
        "https" => {
            return Err(error(std::format!(
            "{var} names an https:// proxy, but this build has no https support (feature `https`)"
        )))
        }
        _ => return Err(unsupported(var, &scheme)),
    };
    if authority.host().is_empty() {
        return Err(bad());
    }
    let proxy = ureq::Proxy::new(value.trim()).map_err(|_| bad())?;
    let port = authority.port_u16().unwrap_or(default_port);
    let shown = std::format!("{scheme}://{}:{port} (from {var})", authority.host());
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']');
    Ok(Chosen {
        proxy,
        shown,
        host: host.into(),
    })
}

fn unsupported(var: &str, scheme: &str) -> McpError {
    let scheme: String = scheme.chars().take(20).collect();
    error(std::format!(
        "{var} names a {scheme}:// proxy; only http:// and https:// (CONNECT) proxies are supported"
    ))
}

fn error(message: String) -> McpError {
    McpError::new(McpErrorKind::Io, std::format!("proxy: {message}"))
}

/// Whether the `NO_PROXY` list `list` exempts `host` (brackets removed).
fn bypass(host: &str, list: &str) -> bool {
    let addr = host.parse::<IpAddr>().ok();
    let name = host.strip_suffix('.').unwrap_or(host);
    list.split([',', ' ', '\t'])
        .filter(|e| !e.is_empty())
        .any(|entry| match addr {
            _ if entry == "*" => true,
            Some(a) => ip_matches(a, entry),
            None => name_matches(name, entry),
        })
}

/// `example.com`, `.example.com` and `*.example.com` match `example.com`
/// and its subdomains.
fn name_matches(name: &str, entry: &str) -> bool {
    let entry = entry.strip_suffix('.').unwrap_or(entry);
    let entry = entry
        .strip_prefix("*.")
        .or_else(|| entry.strip_prefix('.'))
        .unwrap_or(entry);
    if entry.is_empty() || entry.len() > name.len() {
        return false;
    }
    let (head, tail) = name.split_at(name.len() - entry.len());
    tail.eq_ignore_ascii_case(entry) && (head.is_empty() || head.ends_with('.'))
}

/// An address or a CIDR range (`10.0.0.0/8`) holding `addr`.
fn ip_matches(addr: IpAddr, entry: &str) -> bool {
    let (net, bits) = match entry.split_once('/') {
        Some((net, bits)) => match bits.parse::<u32>() {
            Ok(b) => (net, Some(b)),
            Err(_) => return false,
        },
        None => (entry, None),
    };
    match (addr, net.parse::<IpAddr>()) {
        (IpAddr::V4(a), Ok(IpAddr::V4(n))) => {
            prefix_eq(u32::from(a).into(), u32::from(n).into(), 32, bits)
        }
        (IpAddr::V6(a), Ok(IpAddr::V6(n))) => prefix_eq(a.into(), n.into(), 128, bits),
        _ => false,
    }
}

/// Whether the first `bits` (all `width` when `None`) of `a` and `n` agree.
fn prefix_eq(a: u128, n: u128, width: u32, bits: Option<u32>) -> bool {
    let bits = bits.unwrap_or(width);
    if bits > width {
        return false;
    }
    let shift = width - bits;
    // A shift of 128 would overflow: a /0 range holds every address.
    shift >= 128 || (a >> shift) == (n >> shift)
}

/// The proxy a transport error happened behind, for its message.
pub(crate) fn shown_for(url: &str) -> Option<String> {
    for_url(url).ok().flatten().map(|c| c.shown)
}

impl Chosen {
    /// Whether the proxy itself is reached over TLS (`https://`).
    #[cfg(feature = "https")]
    pub fn tls(&self) -> bool {
        self.proxy.protocol() == ureq::ProxyProtocol::Https
    }
}

impl core::fmt::Debug for Chosen {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.shown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;
    use std::vec::Vec;

    fn env_of(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            vars.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    fn chosen(url: &str, vars: &[(&str, &str)]) -> Option<String> {
        select(url, &env_of(vars)).unwrap().map(|c| c.shown)
    }

    fn refused(url: &str, vars: &[(&str, &str)]) -> String {
        String::from(select(url, &env_of(vars)).unwrap_err().message())
    }

    #[test]
    fn names_and_subdomains_match() {
        for (host, list) in [
            ("example.com", "example.com"),
            ("a.b.example.com", "example.com"),
            ("example.com", ".example.com"),
            ("a.example.com", "*.example.com"),
            ("EXAMPLE.com.", "example.COM."),
            ("h", "x, ,h"),
            ("h", "x\th"),
            ("anything", "x,*"),
        ] {
            assert!(bypass(host, list), "{host} in {list}");
        }
        for (host, list) in [
            ("notexample.com", "example.com"),
            ("example.com.org", "example.com"),
            ("example.com", "a.example.com"),
            ("example.com", "example.com:443"),
            ("localhost", "127.0.0.1"),
            ("h", ""),
            ("h", ".,*.,"),
        ] {
            assert!(!bypass(host, list), "{host} in {list}");
        }
    }

    #[test]
    fn addresses_match_as_addresses() {
        for (host, list) in [
            ("127.0.0.1", "127.0.0.1"),
            ("127.0.0.1", "127.0.0.0/8"),
            ("10.1.2.3", "192.168.0.0/16,10.0.0.0/8"),
            ("10.1.2.3", "0.0.0.0/0"),
            ("::1", "::1"),
            ("fd00::5", "fd00::/8"),
            ("2001:db8::1", "::/0"),
        ] {
            assert!(bypass(host, list), "{host} in {list}");
        }
        for (host, list) in [
            ("127.0.0.1", "localhost"),
            ("127.0.0.1", "127.0.0.2"),
            ("127.0.0.1", ".0.0.1"),
            ("127.0.0.1", "127.0.0.10/32"),
            ("127.0.0.1", "127.0.0.0/33"),
            ("127.0.0.1", "127.0.0.0/x"),
            ("127.0.0.1", "::ffff:127.0.0.1"),
            ("::1", "[::1]"),
            ("::1", "127.0.0.1"),
        ] {
            assert!(!bypass(host, list), "{host} in {list}");
        }
    }

    #[test]
    fn each_scheme_has_its_variables() {
        let p = "http://p:3128";
        assert_eq!(
            chosen("https://h/", &[("HTTPS_PROXY", p)]).unwrap(),
            "http://p:3128 (from HTTPS_PROXY)"
        );
        assert_eq!(
            chosen("https://h/", &[("http_proxy", p), ("HTTP_PROXY", p)]),
            None
        );
        assert_eq!(chosen("http://h/", &[("HTTPS_PROXY", p)]), None);
        assert_eq!(
            chosen("http://h/", &[("HTTP_PROXY", p)]).unwrap(),
            "http://p:3128 (from HTTP_PROXY)"
        );
        assert_eq!(
            chosen("http://h/", &[("HTTP_PROXY", p), ("REQUEST_METHOD", "GET")]),
            None
        );
        let both = [
            ("https_proxy", "http://lower:1"),
            ("HTTPS_PROXY", "http://upper:2"),
        ];
        assert_eq!(
            chosen("https://h/", &both).unwrap(),
            "http://lower:1 (from https_proxy)"
        );
        let fallback = [("https_proxy", ""), ("all_proxy", "p:8080")];
        assert_eq!(
            chosen("https://h/", &fallback).unwrap(),
            "http://p:8080 (from all_proxy)"
        );
        assert_eq!(
            chosen("https://[::1]:9/", &[("ALL_PROXY", p), ("NO_PROXY", "::1")]),
            None
        );
        assert_eq!(
            chosen(
                "https://h/",
                &[("HTTPS_PROXY", p), ("no_proxy", ""), ("NO_PROXY", "h")]
            ),
            None
        );
    }

    /// A target on this machine goes through a proxy on this machine only:
    /// a remote proxy would see plain-http credentials and reach its own
    /// loopback.
    #[test]
    fn loopback_targets_skip_a_proxy_on_another_machine() {
        for target in [
            "http://127.0.0.1:9/mcp",
            "http://localhost:9/",
            "https://[::1]:9/",
        ] {
            let remote = [
                ("HTTP_PROXY", "http://192.0.2.2:8080"),
                ("HTTPS_PROXY", "p:1"),
            ];
            assert_eq!(chosen(target, &remote), None, "{target}");
            let local = [
                ("HTTP_PROXY", "http://127.0.0.1:8080"),
                ("HTTPS_PROXY", "http://[::1]:8080"),
            ];
            assert!(chosen(target, &local).is_some(), "{target}");
        }
        let remote = [("HTTP_PROXY", "http://192.0.2.2:8080")];
        assert!(chosen("http://a.localhost:9/", &remote).is_some());
        assert!(chosen("http://example.com/", &remote).is_some());
    }

    #[test]
    fn credentials_are_never_shown() {
        let shown = chosen("https://h/", &[("HTTPS_PROXY", "http://u%40x:s3cr%3At@p")]).unwrap();
        assert_eq!(shown, "http://p:80 (from HTTPS_PROXY)");
        for bad in ["http://u:s3cret@[::1", "http://u:s3cret@", "u:s3cret@ p"] {
            let msg = refused("https://h/", &[("HTTPS_PROXY", bad)]);
            assert_eq!(msg, "proxy: HTTPS_PROXY is not a valid proxy URL", "{bad}");
        }
    }

    #[test]
    fn unusable_proxies_are_errors() {
        for (value, word) in [
            ("socks5://p:1080", "socks5"),
            ("socks5h://u:pw@p", "socks5h"),
            ("SOCKS4://p", "socks4"),
            ("ftp://p", "ftp"),
        ] {
            let msg = refused("https://h/", &[("ALL_PROXY", value)]);
            assert!(
                msg.contains(&std::format!("ALL_PROXY names a {word}:// proxy")),
                "{msg}"
            );
            assert!(!msg.contains("pw"), "{msg}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_value_that_is_not_utf8_is_an_error() {
        use std::os::unix::ffi::OsStringExt;
        let env = |name: &str| (name == "HTTPS_PROXY").then(|| OsString::from_vec(std::vec![0xff]));
        let e = select("https://h/", &env).unwrap_err();
        assert_eq!(e.message(), "proxy: HTTPS_PROXY is not valid UTF-8");
    }
}
