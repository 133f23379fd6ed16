//! TLS in front of a test server: a private certificate authority made with the `openssl`
//! command, and nginx terminating TLS (optionally demanding a client certificate) and passing
//! the plain requests on. Search clusters in production speak HTTPS with certificates from a
//! private CA, often with mutual TLS; the test servers behind it speak plain HTTP.

use std::path::PathBuf;
use std::process::Command;

use crate::nginx::Nginx;
use crate::process::{TempDir, free_port};

/// A new P-256 key without a passphrase.
const NEW_KEY: &str = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";

/// A private CA, a server certificate for `127.0.0.1` and `localhost` and a client
/// certificate, all signed by the CA, as PEM files in a scratch directory.
pub struct TestCertificates {
    dir: TempDir,
}

impl TestCertificates {
    pub fn generate() -> Self {
        let certificates = Self {
            dir: TempDir::new("test-certificates"),
        };
        certificates.openssl(&format!(
            "req -x509 {NEW_KEY} -keyout ca-key.pem -out ca.pem -days 2 -subj /CN=test-ca"
        ));
        certificates.sign(
            "server",
            "/CN=127.0.0.1",
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth",
        );
        certificates.sign("client", "/CN=test-client", "extendedKeyUsage=clientAuth");
        certificates
    }

    /// A key pair and a certificate for it, signed by the CA, with `extensions`.
    fn sign(&self, name: &str, subject: &str, extensions: &str) {
        std::fs::write(self.path(&format!("{name}.ext")), extensions)
            .expect("writing the extensions");
        self.openssl(&format!(
            "req {NEW_KEY} -keyout {name}-key.pem -out {name}.csr -subj {subject}"
        ));
        self.openssl(&format!(
            "x509 -req -in {name}.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 2 \
             -extfile {name}.ext -out {name}.pem"
        ));
    }

    /// Runs `openssl` in the scratch directory; `arguments` are separated by spaces.
    fn openssl(&self, arguments: &str) {
        let output = Command::new("openssl")
            .args(arguments.split_whitespace())
            .current_dir(self.dir.path())
            .output()
            .expect("cannot run openssl; `make test` installs it, see the README");
        assert!(
            output.status.success(),
            "openssl {arguments}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// A file of the set: `ca.pem`, `server.pem`, `server-key.pem`, `client.pem`,
    /// `client-key.pem`.
    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.path().join(file)
    }
}

/// nginx terminating TLS with the server certificate of [`TestCertificates`] and passing
/// requests to `upstream` over plain HTTP. It listens twice: [`TlsFront::url`] accepts any
/// client, [`TlsFront::mutual_url`] only clients with a certificate signed by the CA.
pub struct TlsFront {
    pub url: String,
    pub mutual_url: String,
    nginx: Nginx,
}

impl TlsFront {
    pub fn start(upstream: &str, certificates: &TestCertificates) -> Self {
        let (port, mutual_port) = (free_port(), free_port());
        let file = |name: &str| certificates.path(name).display().to_string();
        let servers = format!(
            "ssl_certificate {cert}; ssl_certificate_key {key};\n\
             ssl_client_certificate {ca};\n\
             server {{ listen 127.0.0.1:{port} ssl;\n\
               location / {{ proxy_pass {upstream}; }} }}\n\
             server {{ listen 127.0.0.1:{mutual_port} ssl; ssl_verify_client on;\n\
               location / {{ proxy_pass {upstream}; }} }}\n",
            cert = file("server.pem"),
            key = file("server-key.pem"),
            ca = file("ca.pem"),
            upstream = upstream.trim_end_matches('/'),
        );
        let nginx = Nginx::start("tls-front", &servers, &[port, mutual_port]);
        Self {
            url: format!("https://127.0.0.1:{port}"),
            mutual_url: format!("https://127.0.0.1:{mutual_port}"),
            nginx,
        }
    }

    /// nginx's error log, which says why a handshake failed.
    pub fn error_log(&self) -> String {
        self.nginx.error_log()
    }
}
