//! The harness's own blocking POST to etcd's JSON gateway (the API server's readiness over
//! HTTPS is [`crate::process::https_get`]). Tests use a real client.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::process::status_and_body;

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
