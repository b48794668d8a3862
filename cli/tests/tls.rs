//! https like a real client, end to end, on 127.0.0.1 only: the binary
//! against `tests/mcp/fake_server.py` behind TLS (`tests/tls/tls_fake_server.py`)
//! with a test CA made at test time (`tests/tls/pki.rs`, the `openssl`
//! command), and against a local CONNECT proxy (`tests/tls/proxy.rs`).
//!
//! - a CA named by `SSL_CERT_FILE` or `SSL_CERT_DIR` is trusted (init and
//!   verify exit 0), over Streamable HTTP and legacy SSE;
//! - an unknown CA, an expired certificate and a certificate for another
//!   name are refused with an error that says which (exit 1);
//! - a bad `SSL_CERT_FILE` is an error, never a fall-back;
//! - `https_proxy` / `HTTPS_PROXY` / `ALL_PROXY` carry https, `http_proxy`
//!   carries http and only http, `NO_PROXY` bypasses (curl's rules), proxy
//!   credentials are sent and never printed, and a proxy that cannot be used
//!   (socks, a malformed URL) is an error, not a direct connection;
//! - no option turns verification off.
//!
//! Every run clears the trust and proxy variables of the environment first
//! (`NET_VARS`), so the machine's own settings change nothing. The tests need
//! `openssl` and `python3`: without them each test says loudly that it is
//! skipped, and fails instead when `CI` is set.
#![cfg(unix)]

mod cli_support;
#[path = "tls/pki.rs"]
mod pki;
#[path = "tls/proxy.rs"]
mod proxy;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cli_support::{cp, read, root, s, FakeHttp, Out, TempDir};
use pki::Pki;
use proxy::{ConnectProxy, Mode};

/// The variables that change whom https trusts or where traffic goes.
const NET_VARS: [&str; 11] = [
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
    "REQUEST_METHOD",
];

/// Whether `openssl` and `python3` are there (tests/support/tools.rs: a
/// loud skip, or a failure where nothing may be skipped).
fn tools_present(_test: &str) -> bool {
    cli_support::tools::needs(&["openssl", "python3"])
}

/// A fake MCP server behind TLS on 127.0.0.1; killed on drop.
struct TlsServer {
    child: Child,
    /// `https://127.0.0.1:<port>/mcp` (or `/sse`).
    url: String,
    record: PathBuf,
    _dir: TempDir,
}

impl TlsServer {
    /// `tls_fake_server.py CERT KEY --transport T ...` with the `name`
    /// certificate of `pki`; waits for the port.
    fn start(pki: &Pki, name: &str, transport: &str) -> TlsServer {
        let dir = TempDir::new("tlssrv");
        let (port_file, record, log) = (dir.path("port"), dir.path("record"), dir.path("log"));
        let (cert, key) = pki.server(name);
        let mut child = Command::new("python3")
            .arg(root().join("cli/tests/tls/tls_fake_server.py"))
            .args([&cert, &key])
            .args(["--transport", transport, "--port", "0", "--port-file"])
            .args([&port_file, Path::new("--record"), &record])
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("python3 runs");
        let until = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|p| p.trim().parse::<u16>().ok())
            {
                let path = if transport == "sse" { "/sse" } else { "/mcp" };
                let url = format!("https://127.0.0.1:{port}{path}");
                return TlsServer {
                    child,
                    url,
                    record,
                    _dir: dir,
                };
            }
            let exited = child.try_wait().ok().flatten();
            assert!(
                exited.is_none() && Instant::now() < until,
                "tls_fake_server.py did not start ({exited:?}): {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// How many HTTP requests reached the MCP server.
    fn requests(&self) -> usize {
        std::fs::read_to_string(&self.record)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("\"kind\": \"http\""))
            .count()
    }
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `contractpin ARGS` with `NET_VARS` cleared, then `env` set.
fn run(args: &[&str], env: &[(&str, &str)]) -> Out {
    let mut c = cp(args).timeout(60);
    for v in NET_VARS {
        c = c.env_remove(v);
    }
    for (k, v) in env {
        c = c.env(k, v);
    }
    c.run()
}

/// `init --force --lock LOCK --name tls --http URL`.
fn init(lock: &Path, url: &str, env: &[(&str, &str)]) -> Out {
    let lock = s(lock);
    run(
        &[
            "init",
            "--force",
            "--lock",
            &lock,
            "--name",
            "tls",
            "--http",
            url,
            "--timeout",
            "10",
        ],
        env,
    )
}

/// `verify --lock LOCK`.
fn verify(lock: &Path, env: &[(&str, &str)]) -> Out {
    run(&["verify", "--lock", &s(lock), "--timeout", "10"], env)
}

/// stdout and stderr together.
fn all(o: &Out) -> String {
    format!("{}\n{}", o.out(), o.err())
}

/// Asserts exit 1 and that the output names `needle`.
#[track_caller]
fn fails_with(o: &Out, needle: &str) {
    o.code(1);
    assert!(all(o).contains(needle), "`{needle}` not in:\n{}", all(o));
}

/// Pins `srv` with `env` (exit 0), then verifies with `env` (exit 0, OK).
#[track_caller]
fn pins_and_verifies(dir: &TempDir, srv: &TlsServer, env: &[(&str, &str)]) -> PathBuf {
    let lock = dir.path("contractpin.lock");
    let o = init(&lock, &srv.url, env);
    o.code(0);
    assert!(o.out().contains("pinned tls (http)"), "{}", all(&o));
    let o = verify(&lock, env);
    o.code(0);
    assert!(o.out().contains("OK tls"), "{}", all(&o));
    lock
}

#[test]
fn a_ca_in_ssl_cert_file_is_trusted() {
    if !tools_present("a_ca_in_ssl_cert_file_is_trusted") {
        return;
    }
    let (pki, dir) = (Pki::new(), TempDir::new("tls-file"));
    let srv = TlsServer::start(&pki, "good", "http");
    pins_and_verifies(&dir, &srv, &[("SSL_CERT_FILE", &pki.ca())]);
    assert!(srv.requests() >= 2, "the server saw no MCP traffic");
}

#[test]
fn the_legacy_sse_transport_uses_the_same_trust() {
    if !tools_present("the_legacy_sse_transport_uses_the_same_trust") {
        return;
    }
    let (pki, dir) = (Pki::new(), TempDir::new("tls-sse"));
    let srv = TlsServer::start(&pki, "good", "sse");
    let lock = dir.path("contractpin.lock");
    let o = init(&lock, &srv.url, &[("SSL_CERT_FILE", &pki.ca())]);
    o.code(0);
    assert!(read(&lock).contains(&srv.url));
    fails_with(
        &verify(&lock, &[]),
        "TLS: certificate not trusted (unknown issuer)",
    );
}

#[test]
fn a_ca_in_ssl_cert_dir_is_trusted() {
    if !tools_present("a_ca_in_ssl_cert_dir_is_trusted") {
        return;
    }
    let (pki, dir) = (Pki::new(), TempDir::new("tls-dir"));
    let links = std::fs::read_dir(pki.hashed_dir())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".0")
        })
        .count();
    assert_eq!(links, 1, "openssl rehash made no <hash>.0 link");
    let srv = TlsServer::start(&pki, "good", "http");
    pins_and_verifies(&dir, &srv, &[("SSL_CERT_DIR", &pki.hashed_dir())]);
    // A list (`:`-separated, as OpenSSL reads it) with an empty directory first.
    std::fs::create_dir(pki.path("empty")).unwrap();
    let list = format!("{}:{}", s(&pki.path("empty")), pki.hashed_dir());
    let o = verify(&dir.path("contractpin.lock"), &[("SSL_CERT_DIR", &list)]);
    o.code(0);
}

#[test]
fn an_unknown_ca_is_refused() {
    if !tools_present("an_unknown_ca_is_refused") {
        return;
    }
    let (pki, dir) = (Pki::new(), TempDir::new("tls-unknown"));
    let srv = TlsServer::start(&pki, "good", "http");
    let lock = dir.path("contractpin.lock");
    // The platform store does not hold the test CA.
    fails_with(
        &init(&lock, &srv.url, &[]),
        "TLS: certificate not trusted (unknown issuer)",
    );
    assert!(!lock.exists(), "init wrote a lock for an untrusted server");
    // A file that holds only the server's own certificate is no CA either.
    let (cert, _) = pki.server("good");
    let o = init(&lock, &srv.url, &[("SSL_CERT_FILE", &s(&cert))]);
    fails_with(&o, "unknown issuer");
    // A lock pinned while the CA was trusted: verify cannot check any more.
    pins_and_verifies(&dir, &srv, &[("SSL_CERT_FILE", &pki.ca())]);
    let o = verify(&lock, &[]);
    fails_with(&o, "TLS: certificate not trusted (unknown issuer)");
    assert!(o.out().contains("UNREACHABLE tls"), "{}", all(&o));
}

#[test]
fn an_expired_certificate_is_refused() {
    if !tools_present("an_expired_certificate_is_refused") {
        return;
    }
    let (pki, dir) = (Pki::new(), TempDir::new("tls-expired"));
    let srv = TlsServer::start(&pki, "expired", "http");
    let o = init(
        &dir.path("l.lock"),
        &srv.url,
        &[("SSL_CERT_FILE", &pki.ca())],
    );
    fails_with(&o, "TLS: certificate expired");
    assert!(
        all(&o).contains("2020-01-02"),
        "no expiry date: {}",
        all(&o)
    );
}

#[test]
fn a_certificate_for_another_name_is_refused() {
    if !tools_present("a_certificate_for_another_name_is_refused") {
        return;
    }
    let (pki, dir) = (Pki::new(), TempDir::new("tls-name"));
    let srv = TlsServer::start(&pki, "wrong", "http");
    let o = init(
        &dir.path("l.lock"),
        &srv.url,
        &[("SSL_CERT_FILE", &pki.ca())],
    );
    fails_with(
        &o,
        "TLS: certificate name mismatch: it is for wrong.example, 127.0.0.2, not for 127.0.0.1",
    );
}

#[test]
fn a_bad_ssl_cert_file_is_an_error_not_a_fallback() {
    if !tools_present("a_bad_ssl_cert_file_is_an_error_not_a_fallback") {
        return;
    }
    let (pki, dir) = (Pki::new(), TempDir::new("tls-badfile"));
    let srv = TlsServer::start(&pki, "good", "http");
    let lock = dir.path("l.lock");
    let missing = s(&dir.path("missing.pem"));
    fails_with(
        &init(&lock, &srv.url, &[("SSL_CERT_FILE", &missing)]),
        "SSL_CERT_FILE",
    );
    let empty = s(&dir.write("empty.pem", ""));
    let o = init(&lock, &srv.url, &[("SSL_CERT_FILE", &empty)]);
    fails_with(&o, "no certificate");
    let o = init(&lock, &srv.url, &[("SSL_CERT_DIR", &missing)]);
    fails_with(&o, "SSL_CERT_DIR");
    // Set but empty: an error, not the platform's store.
    let o = init(&lock, &srv.url, &[("SSL_CERT_FILE", "")]);
    fails_with(&o, "SSL_CERT_FILE is set but empty");
    // A directory with no certificate in it (a note and a key-like file).
    let certless = dir.path("certless");
    std::fs::create_dir(&certless).unwrap();
    std::fs::write(certless.join("README"), "not a certificate\n").unwrap();
    std::fs::write(
        certless.join("x.pem"),
        "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    let o = init(&lock, &srv.url, &[("SSL_CERT_DIR", &s(&certless))]);
    fails_with(&o, "holds no certificate");
    // Never read from a device or a FIFO (a FIFO would block the run).
    let o = init(&lock, &srv.url, &[("SSL_CERT_FILE", "/dev/zero")]);
    fails_with(&o, "not a regular file");
    let fifo = dir.path("fifo.pem");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(
        made.is_ok_and(|st| st.success()),
        "mkfifo {}",
        fifo.display()
    );
    let o = init(&lock, &srv.url, &[("SSL_CERT_FILE", &s(&fifo))]);
    fails_with(&o, "not a regular file");
    assert!(!lock.exists(), "a lock was written without trust");
    assert_eq!(srv.requests(), 0, "a request went out without trust");
}

#[test]
fn https_goes_through_the_https_proxy() {
    if !tools_present("https_goes_through_the_https_proxy") {
        return;
    }
    let (pki, dir) = (Pki::new(), TempDir::new("tls-proxy"));
    let srv = TlsServer::start(&pki, "good", "http");
    let port = srv
        .url
        .split(':')
        .nth(2)
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    for var in ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"] {
        let p = ConnectProxy::start(Mode::Tunnel);
        let env = [("SSL_CERT_FILE", pki.ca()), (var, p.url.clone())];
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        pins_and_verifies(&dir, &srv, &env);
        let seen = p.seen();
        assert!(!seen.is_empty(), "{var}: nothing went through the proxy");
        let want = format!("CONNECT 127.0.0.1:{port} HTTP/1.1");
        assert!(seen.iter().all(|r| r.line == want), "{var}: {seen:?}");
    }
}

#[test]
fn no_proxy_bypasses_the_proxy_as_curl_does() {
    if !tools_present("no_proxy_bypasses_the_proxy_as_curl_does") {
        return;
    }
    let (pki, dir) = (Pki::new(), TempDir::new("tls-noproxy"));
    let srv = TlsServer::start(&pki, "good", "http");
    let p = ConnectProxy::start(Mode::Tunnel);
    let ca = pki.ca();
    for (var, list) in [
        ("NO_PROXY", "127.0.0.1"),
        ("no_proxy", "example.com, 127.0.0.1"),
        ("NO_PROXY", "10.0.0.0/8,127.0.0.0/8"),
        ("NO_PROXY", "*"),
    ] {
        let env = [
            ("SSL_CERT_FILE", ca.as_str()),
            ("HTTPS_PROXY", &p.url),
            (var, list),
        ];
        pins_and_verifies(&dir, &srv, &env);
        assert!(p.seen().is_empty(), "{var}={list}: proxied: {:?}", p.seen());
    }
    // Entries that do not match 127.0.0.1: the proxy is used.
    let env = [
        ("SSL_CERT_FILE", ca.as_str()),
        ("HTTPS_PROXY", &p.url),
        ("NO_PROXY", "127.0.0.2,127.0.0.10/32,.0.0.1,localhost"),
    ];
    pins_and_verifies(&dir, &srv, &env);
    assert!(
        !p.seen().is_empty(),
        "not proxied despite no matching NO_PROXY entry"
    );
}

#[test]
fn http_proxy_is_for_http_only() {
    if !tools_present("http_proxy_is_for_http_only") {
        return;
    }
    let (pki, dir) = (Pki::new(), TempDir::new("tls-httpproxy"));
    let srv = TlsServer::start(&pki, "good", "http");
    let p = ConnectProxy::start(Mode::Tunnel);
    let ca = pki.ca();
    for var in ["HTTP_PROXY", "http_proxy"] {
        pins_and_verifies(&dir, &srv, &[("SSL_CERT_FILE", &ca), (var, &p.url)]);
        assert!(p.seen().is_empty(), "{var} carried https: {:?}", p.seen());
    }
    // Plain http: http_proxy carries it, HTTPS_PROXY does not.
    let plain = FakeHttp::start("http", "ok", &[]);
    let lock = dir.path("plain.lock");
    init(&lock, &plain.url, &[("HTTPS_PROXY", &p.url)]).code(0);
    assert!(
        p.seen().is_empty(),
        "HTTPS_PROXY carried http: {:?}",
        p.seen()
    );
    init(&lock, &plain.url, &[("http_proxy", &p.url)]).code(0);
    assert!(!p.seen().is_empty(), "http_proxy did not carry http");
}

#[test]
fn proxy_credentials_are_sent_but_never_printed() {
    if !tools_present("proxy_credentials_are_sent_but_never_printed") {
        return;
    }
    let (pki, dir) = (Pki::new(), TempDir::new("tls-proxyauth"));
    let srv = TlsServer::start(&pki, "good", "http");
    let ca = pki.ca();
    let refuse = ConnectProxy::start(Mode::Refuse);
    let with_creds = |url: &str| url.replacen("http://", "http://proxyuser:pr0xy-s3cret@", 1);
    let proxy_url = with_creds(&refuse.url);
    let env = [
        ("SSL_CERT_FILE", ca.as_str()),
        ("HTTPS_PROXY", proxy_url.as_str()),
    ];
    let lock = dir.path("l.lock");
    let o = init(&lock, &srv.url, &env);
    fails_with(&o, "407");
    let text = all(&o);
    assert!(text.contains(&refuse.url), "the proxy is not named: {text}");
    for secret in [
        "pr0xy-s3cret",
        "proxyuser",
        "cHJveHl1c2VyOnByMHh5LXMzY3JldA",
    ] {
        assert!(!text.contains(secret), "`{secret}` printed: {text}");
    }
    // echo -n proxyuser:pr0xy-s3cret | base64
    let auth = refuse.seen().first().and_then(|r| r.auth.clone());
    assert_eq!(
        auth.as_deref(),
        Some("Basic cHJveHl1c2VyOnByMHh5LXMzY3JldA==")
    );
    // Through a proxy that lets it pass: the lock does not keep the proxy.
    let tunnel = ConnectProxy::start(Mode::Tunnel);
    let proxy_url = with_creds(&tunnel.url);
    let env = [
        ("SSL_CERT_FILE", ca.as_str()),
        ("HTTPS_PROXY", proxy_url.as_str()),
    ];
    let lock = pins_and_verifies(&dir, &srv, &env);
    assert!(!read(&lock).contains("pr0xy"), "{}", read(&lock));
}

#[test]
fn an_unusable_proxy_is_an_error_not_a_direct_connection() {
    if !tools_present("an_unusable_proxy_is_an_error_not_a_direct_connection") {
        return;
    }
    let (pki, dir) = (Pki::new(), TempDir::new("tls-badproxy"));
    let srv = TlsServer::start(&pki, "good", "http");
    let ca = pki.ca();
    let lock = dir.path("l.lock");
    for (var, value, needle) in [
        ("ALL_PROXY", "socks5://127.0.0.1:9", "socks5"),
        ("HTTPS_PROXY", "socks5h://u:hunter2@127.0.0.1:9", "socks5h"),
        ("HTTPS_PROXY", "ftp://127.0.0.1:9", "HTTPS_PROXY"),
        ("https_proxy", "http://[::1", "https_proxy"),
    ] {
        let o = init(&lock, &srv.url, &[("SSL_CERT_FILE", &ca), (var, value)]);
        fails_with(&o, needle);
        assert!(!all(&o).contains("hunter2"), "{}", all(&o));
    }
    assert_eq!(srv.requests(), 0, "went to the server directly");
}

#[test]
fn nothing_turns_verification_off() {
    for cmd in ["init", "verify"] {
        let o = run(&[cmd, "--help"], &[]);
        o.code(0);
        let help = o.out().to_ascii_lowercase();
        for word in [
            "insecure",
            "no-verify",
            "danger",
            "skip-tls",
            "accept-invalid",
        ] {
            assert!(!help.contains(word), "`{cmd} --help` mentions {word}");
        }
        let o = run(&[cmd, "--insecure"], &[]);
        o.code(2);
    }
    // Nor any code path: ureq's switch and rustls's custom verifiers are
    // never reached for.
    let mut stack = vec![root().join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = read(&path);
                for word in ["disable_verification", ".dangerous()", "ServerCertVerifier"] {
                    assert!(!text.contains(word), "{} uses {word}", path.display());
                }
            }
        }
    }
}
