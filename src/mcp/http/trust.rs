//! Whom https trusts, and what a refused certificate is called.
//!
//! Without `SSL_CERT_FILE` and `SSL_CERT_DIR`: the platform's verifier
//! (rustls-platform-verifier). On macOS and Windows that is the operating
//! system's own evaluation (Security.framework, CryptoAPI: the system and
//! user stores, CAs installed by MDM or group policy, revocation). Elsewhere
//! it is webpki over the system CA store that OpenSSL and curl use, found by
//! rustls-native-certs / openssl-probe (`/etc/ssl/certs/ca-certificates.crt`
//! and the like). No roots are bundled: a system without a CA store fails
//! closed, with an error that says so.
//!
//! With either variable set, exactly the certificates they name are trusted,
//! on every platform, as OpenSSL does (and rustls-native-certs, which the
//! verifier uses on Linux): they replace the platform store, they do not add
//! to it. `SSL_CERT_FILE` is a file of PEM certificates; `SSL_CERT_DIR` a
//! list of directories (`:`-separated; `;` on Windows) whose every regular
//! file (symlinks followed, so `openssl rehash` directories work) is read for
//! PEM certificates. A file or directory that cannot be read, or variables
//! that name no certificate at all, are errors, never a fall-back.

use std::fs;
use std::path::{Path, PathBuf};
use std::string::{String, ToString};
use std::sync::Arc;
use std::vec::Vec;

use rustls::CertificateError;
use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};

use super::super::error::{McpError, McpErrorKind};

const CERT_FILE: &str = "SSL_CERT_FILE";
const CERT_DIR: &str = "SSL_CERT_DIR";

/// The TLS configuration of an https agent: rustls with ring, and the
/// trust described above.
pub(crate) fn tls_config() -> Result<TlsConfig, McpError> {
    root_certs().map(with_roots)
}

/// A configuration trusting nothing, for agents that never do TLS (so that
/// a mistake fails closed instead of reaching ureq's disabled default).
pub(crate) fn trust_nothing() -> TlsConfig {
    with_roots(RootCerts::Specific(Arc::new(Vec::new())))
}

fn with_roots(roots: RootCerts) -> TlsConfig {
    let ring = Arc::new(rustls::crypto::ring::default_provider());
    TlsConfig::builder()
        .root_certs(roots)
        .unversioned_rustls_crypto_provider(ring)
        .build()
}

/// `SSL_CERT_FILE` and the non-empty entries of `SSL_CERT_DIR`.
fn env_paths() -> (Option<PathBuf>, Vec<PathBuf>) {
    let file = std::env::var_os(CERT_FILE).map(PathBuf::from);
    let dirs = std::env::var_os(CERT_DIR)
        .map(|d| {
            std::env::split_paths(&d)
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default();
    (file, dirs)
}

fn root_certs() -> Result<RootCerts, McpError> {
    let (file, dirs) = env_paths();
    if file.is_none() && dirs.is_empty() {
        return Ok(RootCerts::PlatformVerifier);
    }
    let mut certs = Vec::new();
    if let Some(file) = &file {
        load_file(file, &mut certs)?;
    }
    for dir in &dirs {
        load_dir(dir, &mut certs)?;
    }
    if certs.is_empty() {
        return Err(setup_error(std::format!(
            "{CERT_DIR} ({}) holds no certificate",
            join(&dirs)
        )));
    }
    certs.sort_unstable_by(|a, b| a.der().cmp(b.der()));
    certs.dedup_by(|a, b| a.der() == b.der());
    Ok(RootCerts::from(certs))
}

/// Reads `SSL_CERT_FILE`, which must hold at least one certificate.
fn load_file(path: &Path, out: &mut Vec<Certificate<'static>>) -> Result<(), McpError> {
    if path.as_os_str().is_empty() {
        return Err(setup_error(std::format!(
            "{CERT_FILE} is set but empty (unset it to trust the platform's store)"
        )));
    }
    let shown = path.display();
    let text = read_regular(path)
        .map_err(|e| setup_error(std::format!("cannot read {CERT_FILE} {shown}: {e}")))?;
    let before = out.len();
    pem_certificates(&text, out)
        .map_err(|e| setup_error(std::format!("{CERT_FILE} {shown} is not valid PEM: {e}")))?;
    if out.len() == before {
        return Err(setup_error(std::format!(
            "{CERT_FILE} {shown} holds no certificate (no PEM CERTIFICATE block)"
        )));
    }
    Ok(())
}

/// Reads every regular file of one `SSL_CERT_DIR` directory; files that
/// cannot be read or are not PEM (CRLs, keys, notes) are skipped.
fn load_dir(dir: &Path, out: &mut Vec<Certificate<'static>>) -> Result<(), McpError> {
    let entries = fs::read_dir(dir).map_err(|e| {
        setup_error(std::format!(
            "cannot read {CERT_DIR} entry {}: {e}",
            dir.display()
        ))
    })?;
    for entry in entries.flatten() {
        if let Ok(text) = read_regular(&entry.path()) {
            let mut found = Vec::new();
            if pem_certificates(&text, &mut found).is_ok() {
                out.append(&mut found);
            }
        }
    }
    Ok(())
}

/// The bytes of `path` if it is (or links to) a regular file; never reads
/// a device or a FIFO.
fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    if !fs::metadata(path)?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    fs::read(path)
}

/// Appends the certificates of a PEM text (other blocks are ignored).
fn pem_certificates(text: &[u8], out: &mut Vec<Certificate<'static>>) -> Result<(), ureq::Error> {
    for item in ureq::tls::parse_pem(text) {
        if let PemItem::Certificate(c) = item? {
            out.push(c);
        }
    }
    Ok(())
}

fn join(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    shown.join(", ")
}

fn setup_error(message: String) -> McpError {
    McpError::new(McpErrorKind::Io, std::format!("TLS: {message}"))
}

/// What is trusted, for the unknown-issuer message.
fn trusted() -> String {
    match env_paths() {
        (None, dirs) if dirs.is_empty() => std::format!(
            "trusted: the platform's certificate store; name a private CA with {CERT_FILE} or {CERT_DIR}"
        ),
        (file, dirs) => {
            let mut parts = Vec::new();
            if let Some(f) = file {
                parts.push(std::format!("{CERT_FILE} {}", f.display()));
            }
            if !dirs.is_empty() {
                parts.push(std::format!("{CERT_DIR} {}", join(&dirs)));
            }
            std::format!("trusted: only the certificates in {}", parts.join(" and "))
        }
    }
}

/// `TLS: ...` when `e` is (or wraps) a TLS failure.
pub(crate) fn tls_failure(e: &ureq::Error) -> Option<String> {
    match e {
        ureq::Error::Rustls(r) => Some(describe(r)),
        ureq::Error::Io(io) => io_tls_failure(io),
        ureq::Error::Tls(what) => Some(std::format!("TLS: {what}")),
        _ => None,
    }
}

/// `TLS: ...` when an I/O error carries a rustls error (as rustls's
/// streams report handshake and record failures).
pub(crate) fn io_tls_failure(e: &std::io::Error) -> Option<String> {
    let inner = e.get_ref()?;
    if let Some(r) = inner.downcast_ref::<rustls::Error>() {
        return Some(describe(r));
    }
    inner.downcast_ref::<ureq::Error>().and_then(tls_failure)
}

fn describe(e: &rustls::Error) -> String {
    use rustls::Error as E;
    let what = match e {
        E::InvalidCertificate(c) => certificate(c),
        E::NoCertificatesPresented => String::from("the server presented no certificate"),
        E::AlertReceived(a) => std::format!("the server aborted the handshake (alert: {a:?})"),
        E::PeerIncompatible(p) => {
            std::format!("no TLS version or cipher suite in common with the server ({p:?})")
        }
        E::InvalidMessage(_)
        | E::InappropriateMessage { .. }
        | E::InappropriateHandshakeMessage { .. } => std::format!(
            "handshake failed ({e}): is this an https server? (for plain http, use http://)"
        ),
        E::General(m) if m.contains("No CA certificates") => std::format!(
            "the system has no CA certificates (install the ca-certificates package, or name a CA bundle with {CERT_FILE})"
        ),
        other => std::format!("handshake failed: {other}"),
    };
    std::format!("TLS: {what}")
}

fn certificate(c: &CertificateError) -> String {
    use CertificateError as C;
    match c {
        C::UnknownIssuer => std::format!("certificate not trusted (unknown issuer); {}", trusted()),
        C::Expired => String::from("certificate expired"),
        C::ExpiredContext { not_after, .. } => std::format!(
            "certificate expired (not valid after {})",
            date(not_after.as_secs())
        ),
        C::NotValidYet => String::from("certificate not valid yet"),
        C::NotValidYetContext { not_before, .. } => std::format!(
            "certificate not valid yet (not valid before {})",
            date(not_before.as_secs())
        ),
        C::NotValidForName => String::from("certificate name mismatch"),
        C::NotValidForNameContext {
            expected,
            presented,
        } => std::format!(
            "certificate name mismatch: it is for {}, not for {}",
            names(presented),
            expected.to_str()
        ),
        C::Revoked => String::from("certificate revoked"),
        C::BadSignature => String::from("certificate signature invalid"),
        C::InvalidPurpose | C::InvalidPurposeContext { .. } => {
            String::from("certificate not valid for TLS server authentication")
        }
        C::BadEncoding => String::from("certificate malformed"),
        other => std::format!("certificate rejected ({other})"),
    }
}

/// At most four of the names a certificate presents, without webpki's
/// `DnsName("...")` / `IpAddress(...)` wrapping.
fn names(presented: &[String]) -> String {
    if presented.is_empty() {
        return String::from("no name");
    }
    let mut shown: Vec<&str> = presented.iter().take(4).map(|n| bare(n)).collect();
    if presented.len() > 4 {
        shown.push("...");
    }
    shown.join(", ")
}

fn bare(name: &str) -> &str {
    name.strip_prefix("DnsName(\"")
        .and_then(|r| r.strip_suffix("\")"))
        .or_else(|| {
            name.strip_prefix("IpAddress(")
                .and_then(|r| r.strip_suffix(')'))
        })
        .unwrap_or(name)
}

fn date(secs: u64) -> String {
    crate::lock::format_timestamp(secs).unwrap_or_else(|| std::format!("{secs} s after 1970"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::pki_types::{ServerName, UnixTime};
    use std::time::Duration;

    fn tls(c: CertificateError) -> String {
        describe(&rustls::Error::InvalidCertificate(c))
    }

    #[test]
    fn certificate_failures_say_what_is_wrong() {
        let t = |s| UnixTime::since_unix_epoch(Duration::from_secs(s));
        let expired = CertificateError::ExpiredContext {
            time: t(1_800_000_000),
            not_after: t(1_577_923_200),
        };
        assert_eq!(
            tls(expired),
            "TLS: certificate expired (not valid after 2020-01-02T00:00:00Z)"
        );
        let name = CertificateError::NotValidForNameContext {
            expected: ServerName::try_from("127.0.0.1").unwrap(),
            presented: std::vec![
                "DnsName(\"wrong.example\")".into(),
                "IpAddress(127.0.0.2)".into()
            ],
        };
        assert_eq!(
            tls(name),
            "TLS: certificate name mismatch: it is for wrong.example, 127.0.0.2, not for 127.0.0.1"
        );
        assert!(tls(CertificateError::UnknownIssuer)
            .starts_with("TLS: certificate not trusted (unknown issuer); trusted: "));
        assert_eq!(tls(CertificateError::Revoked), "TLS: certificate revoked");
        // What the platform verifier says on a system without a CA store.
        let none = rustls::Error::General("No CA certificates were loaded from the system".into());
        assert!(describe(&none).starts_with("TLS: the system has no CA certificates (install"));
    }

    #[test]
    fn wrapped_errors_are_found() {
        let io = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(CertificateError::Expired),
        );
        assert_eq!(io_tls_failure(&io).unwrap(), "TLS: certificate expired");
        let ue = ureq::Error::Io(io);
        assert_eq!(tls_failure(&ue).unwrap(), "TLS: certificate expired");
        let plain = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert_eq!(tls_failure(&ureq::Error::Io(plain)), None);
    }

    #[test]
    fn long_name_lists_are_cut() {
        let many: Vec<String> = (0..9).map(|i| std::format!("n{i}")).collect();
        assert_eq!(names(&many), "n0, n1, n2, n3, ...");
        assert_eq!(names(&[]), "no name");
    }
}
