//! A dependency-free HTTP GET for `--healthcheck`: runtime images carry only the binary.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// `Ok` when `url` (plain `http://host:port/path`) answers a 2xx status within `timeout`.
pub fn get_ok(url: &str, timeout: Duration) -> Result<(), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or("only plain http:// URLs are supported")?;
    let (authority, path) = match rest.find('/') {
        Some(slash) => (&rest[..slash], &rest[slash..]),
        None => (rest, "/"),
    };
    let address = authority
        .to_socket_addrs()
        .map_err(|error| format!("cannot resolve {authority}: {error}"))?
        .next()
        .ok_or_else(|| format!("{authority} has no address"))?;
    let mut stream = TcpStream::connect_timeout(&address, timeout).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    stream
        .set_write_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    // The status line is all we need; read a small prefix.
    let mut head = [0u8; 64];
    let read = stream.read(&mut head).map_err(|e| e.to_string())?;
    let status_line = String::from_utf8_lossy(&head[..read]);
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or("the answer is not HTTP")?;
    if (200..300).contains(&status) {
        Ok(())
    } else {
        Err(format!("status {status}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_other_schemes_and_closed_ports() {
        assert!(get_ok("https://127.0.0.1:1/", Duration::from_secs(1)).is_err());
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        let error = get_ok(
            &format!("http://127.0.0.1:{port}/live"),
            Duration::from_secs(1),
        );
        assert!(error.is_err());
    }
}
