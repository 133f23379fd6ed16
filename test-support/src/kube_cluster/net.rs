//! The harness's own blocking requests: the API server's readiness over HTTPS (verified against
//! the certificate it wrote) and a POST to etcd's JSON gateway. Tests use a real client.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};

use crate::process::status_and_body;

/// `GET path` on `https://127.0.0.1:<port>` with a bearer token: `(status, body)`, or `None`
/// when nothing answers (yet).
pub(super) fn https_get(
    ca_file: &Path,
    port: u16,
    path: &str,
    token: &str,
) -> Option<(u16, String)> {
    crate::install_crypto_provider();
    let mut roots = rustls::RootCertStore::empty();
    for certificate in CertificateDer::pem_file_iter(ca_file).ok()? {
        roots.add(certificate.ok()?).ok()?;
    }
    let config = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from("127.0.0.1").ok()?;
    let connection = rustls::ClientConnection::new(Arc::new(config), name).ok()?;
    let host_port = format!("127.0.0.1:{port}");
    let socket = TcpStream::connect(&host_port).ok()?;
    socket.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut stream = rustls::StreamOwned::new(connection, socket);
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: {host_port}\r\nAuthorization: Bearer {token}\r\n\
         Connection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = Vec::new();
    // A peer that closes without close_notify is an error after the whole answer was read.
    let _ = stream.read_to_end(&mut response);
    status_and_body(&String::from_utf8_lossy(&response))
}

/// `POST path` with a JSON body over plain HTTP: `(status, body)`, or `None` when nothing
/// answers.
pub(super) fn http_post(host_port: &str, path: &str, body: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(host_port).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    write!(
        stream,
        "POST {path} HTTP/1.0\r\nHost: {host_port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    status_and_body(&response)
}
