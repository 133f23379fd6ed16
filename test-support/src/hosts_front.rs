//! nginx as the front door of several applications, one `server` block per host name, each
//! asking authproxy's forward_auth check through `auth_request` with the snippet of
//! docs/access-control.md (`X-Original-URL $scheme://$http_host$request_uri`). Behind them, an
//! echo application answers with the server block the request went through and the identity
//! the check passed on, so a test sees which host's rule nginx applied to a `Host` header.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::auth_front::check_location;
use crate::nginx::Nginx;
use crate::process::free_port;

/// nginx on 127.0.0.1 with one `server` block per entry of `hosts` (its `server_name`) and a
/// default server (`_`) for every other `Host`. The echo behind them answers 200 with
/// `server=<name or _>` and `user=<X-Auth-Request-User>` lines.
pub struct HostsFront {
    pub port: u16,
    nginx: Nginx,
}

/// What came back for one raw request.
#[derive(Debug, Clone)]
pub struct FrontAnswer {
    pub status: u16,
    /// The server block the echo reports (`server=` line), when the request reached it.
    pub server: Option<String>,
    pub body: String,
}

impl HostsFront {
    pub fn start(check_url: &str, hosts: &[&str]) -> Self {
        let (port, app_port) = (free_port(), free_port());
        let block = |name: &str, listen_extra: &str| {
            format!(
                r#"
  server {{
    listen 127.0.0.1:{port}{listen_extra};
    server_name {name};
{check_location}    location / {{
      auth_request /_authproxy;
      auth_request_set $auth_user $upstream_http_x_auth_request_user;
      proxy_set_header X-Auth-Request-User $auth_user;
      proxy_set_header X-Served-By {name};
      proxy_pass http://127.0.0.1:{app_port};
    }}
  }}
"#,
                check_location = check_location(check_url),
            )
        };
        let mut servers = format!(
            r#"
  server {{
    listen 127.0.0.1:{app_port};
    location / {{
      default_type text/plain;
      return 200 "server=$http_x_served_by\nuser=$http_x_auth_request_user\n";
    }}
  }}
"#
        );
        servers.push_str(&block("_", " default_server"));
        for host in hosts {
            servers.push_str(&block(host, ""));
        }
        let nginx = Nginx::start("hosts-front", &servers, &[port, app_port]);
        Self { port, nginx }
    }

    /// `GET /` with exactly this `Host` header (bytes as given) and the extra header lines,
    /// over a raw connection: no client library normalises the host.
    pub fn get(&self, host: &[u8], extra_headers: &str) -> FrontAnswer {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect to nginx");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("read timeout");
        let mut request = b"GET / HTTP/1.1\r\nHost: ".to_vec();
        request.extend_from_slice(host);
        request
            .extend_from_slice(format!("\r\n{extra_headers}Connection: close\r\n\r\n").as_bytes());
        stream.write_all(&request).expect("send the request");
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw);
        let text = String::from_utf8_lossy(&raw).into_owned();
        let status = text
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0);
        let body = text
            .split_once("\r\n\r\n")
            .map_or(String::new(), |(_, body)| body.to_owned());
        let server = body
            .lines()
            .find_map(|line| line.strip_prefix("server="))
            .map(str::to_owned);
        FrontAnswer {
            status,
            server,
            body,
        }
    }

    /// nginx's error log.
    pub fn error_log(&self) -> String {
        self.nginx.error_log()
    }
}
