//! A throw-away PKI made with the `openssl` command at test time: a test CA
//! and three server certificates it signs, for 127.0.0.1 / localhost
//! (`good`), for another name (`wrong`) and one that expired in 2020
//! (`expired`); plus a hashed certificate directory (`openssl rehash`) that
//! holds the CA. P-256 keys: quick to make. Nothing is trusted anywhere
//! else; the directory is removed on drop.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cli_support::{s, TempDir};

/// The `openssl` configuration: `req` settings, the extensions of each
/// certificate, and a minimal `openssl ca` (which alone can set any start
/// and end date in OpenSSL 3.0).
const CONFIG: &str = "\
[req]
distinguished_name = dn
prompt = no
[dn]
CN = contractpin test CA
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[good_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
authorityKeyIdentifier = keyid
[wrong_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:wrong.example,IP:127.0.0.2
authorityKeyIdentifier = keyid
[ca]
default_ca = test_ca
[test_ca]
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = any
unique_subject = no
[any]
commonName = supplied
";

/// The generated files.
pub struct Pki {
    dir: TempDir,
}

impl Pki {
    /// Makes the CA, the three server certificates and the hashed directory.
    pub fn new() -> Pki {
        let dir = TempDir::new("pki");
        dir.write("pki.cnf", CONFIG);
        dir.write("index.txt", "");
        dir.write("serial", "01\n");
        let pki = Pki { dir };
        pki.openssl(&[
            "req",
            "-x509",
            "-config",
            "pki.cnf",
            "-extensions",
            "ca_ext",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "3",
        ]);
        pki.issue("good", &["-days", "3"]);
        pki.issue("wrong", &["-days", "3"]);
        pki.issue(
            "expired",
            &[
                "-startdate",
                "20200101000000Z",
                "-enddate",
                "20200102000000Z",
            ],
        );
        std::fs::create_dir(pki.dir.path("hashed")).expect("mkdir hashed");
        std::fs::copy(pki.dir.path("ca.pem"), pki.dir.path("hashed/ca.pem")).expect("copy");
        pki.openssl(&["rehash", "hashed"]);
        pki
    }

    /// The CA certificate (PEM).
    pub fn ca(&self) -> String {
        s(&self.dir.path("ca.pem"))
    }

    /// The hashed directory holding the CA (`ca.pem` and its `<hash>.0` link).
    pub fn hashed_dir(&self) -> String {
        s(&self.dir.path("hashed"))
    }

    /// Certificate and key of the server certificate `name`.
    pub fn server(&self, name: &str) -> (PathBuf, PathBuf) {
        (
            self.dir.path(&format!("{name}.pem")),
            self.dir.path(&format!("{name}.key")),
        )
    }

    /// A path in the PKI's directory (for files a test adds).
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path(name)
    }

    /// A key, a request, and `openssl ca` signing it with the `<name>_ext`
    /// extensions (`good_ext` for `expired`).
    fn issue(&self, name: &str, validity: &[&str]) {
        let (key, csr, pem) = (
            format!("{name}.key"),
            format!("{name}.csr"),
            format!("{name}.pem"),
        );
        let subject = format!("/CN={name}");
        self.openssl(&[
            "req",
            "-new",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            &key,
            "-out",
            &csr,
            "-subj",
            &subject,
        ]);
        let ext = if name == "wrong" {
            "wrong_ext"
        } else {
            "good_ext"
        };
        let mut args = vec![
            "ca",
            "-batch",
            "-config",
            "pki.cnf",
            "-cert",
            "ca.pem",
            "-keyfile",
            "ca.key",
            "-in",
            &csr,
            "-out",
            &pem,
            "-extensions",
            ext,
            "-notext",
        ];
        args.extend_from_slice(validity);
        self.openssl(&args);
    }

    /// Runs `openssl ARGS` in the PKI directory; fails the test on error.
    fn openssl(&self, args: &[&str]) {
        run_openssl(&self.dir.0, args);
    }
}

fn run_openssl(cwd: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("openssl runs");
    assert!(
        out.status.success(),
        "openssl {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
