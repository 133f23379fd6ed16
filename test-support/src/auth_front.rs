//! nginx as the front door of an application guarded by authproxy's forward_auth check through
//! `auth_request`, configured as docs/access-control.md tells operators to, with a small echo
//! application behind it that answers with the identity headers it received.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::process::{ChildGuard, TempDir, free_port, wait_until};

/// nginx on 127.0.0.1: [`AuthFront::url`] is the guarded application (every path); the check is
/// `check_url` (authproxy in forward_auth mode), an unauthenticated browser is sent to
/// `<sign_in_origin>/auth/start?rd=<the original URL>`. Behind it, an echo application answers
/// 200 with `user=…`, `email=…`, `groups=…`, `authorization=…` lines: the headers nginx passed
/// on from the check's answer (`auth_request_set`).
pub struct AuthFront {
    pub url: String,
    guard: ChildGuard,
    dir: TempDir,
}

impl AuthFront {
    pub fn start(check_url: &str, sign_in_origin: &str) -> Self {
        let dir = TempDir::new("auth-front");
        let (port, app_port) = (free_port(), free_port());
        let temp = |name: &str| dir.path().join(name).display().to_string();
        let config = format!(
            r#"worker_processes 1;
pid {pid};
error_log {error_log} warn;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {body}; proxy_temp_path {proxy};
  fastcgi_temp_path {fastcgi}; uwsgi_temp_path {uwsgi}; scgi_temp_path {scgi};

  # The application: echoes what the front passed on.
  server {{
    listen 127.0.0.1:{app_port};
    location / {{
      default_type text/plain;
      return 200 "user=$http_x_auth_request_user\nemail=$http_x_auth_request_email\ngroups=$http_x_auth_request_groups\nauthorization=$http_authorization\nuri=$request_uri\n";
    }}
  }}

  # The front door: the snippet of docs/access-control.md.
  server {{
    listen 127.0.0.1:{port};

    location = /_authproxy {{
      internal;
      proxy_pass {check_url};
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Original-URL $scheme://$http_host$request_uri;
      proxy_set_header X-Original-Method $request_method;
      proxy_set_header X-Forwarded-For $remote_addr;
    }}

    location @authproxy_sign_in {{
      # A non-browser caller keeps its 401 (nginx has already copied the Basic challenge).
      if ($auth_challenge) {{
        return 401;
      }}
      return 302 {sign_in_origin}/auth/start?rd=$scheme://$http_host$request_uri;
    }}

    location / {{
      auth_request /_authproxy;
      auth_request_set $auth_challenge $upstream_http_www_authenticate;
      auth_request_set $auth_user $upstream_http_x_auth_request_user;
      auth_request_set $auth_email $upstream_http_x_auth_request_email;
      auth_request_set $auth_groups $upstream_http_x_auth_request_groups;
      auth_request_set $auth_authorization $upstream_http_authorization;
      error_page 401 = @authproxy_sign_in;

      proxy_set_header X-Auth-Request-User $auth_user;
      proxy_set_header X-Auth-Request-Email $auth_email;
      proxy_set_header X-Auth-Request-Groups $auth_groups;
      proxy_set_header Authorization $auth_authorization;
      proxy_pass http://127.0.0.1:{app_port};
    }}
  }}
}}
"#,
            pid = temp("nginx.pid"),
            error_log = temp("error.log"),
            body = temp("body"),
            proxy = temp("proxy"),
            fastcgi = temp("fastcgi"),
            uwsgi = temp("uwsgi"),
            scgi = temp("scgi"),
            sign_in_origin = sign_in_origin.trim_end_matches('/'),
        );
        let config_path = dir.path().join("nginx.conf");
        std::fs::write(&config_path, config).expect("writing nginx.conf");
        let mut guard = ChildGuard::spawn(
            "nginx",
            Command::new("nginx")
                .arg("-p")
                .arg(dir.path())
                .arg("-c")
                .arg(&config_path)
                .args(["-g", "daemon off;"])
                .stdout(Stdio::null()),
        );
        wait_until("nginx", Duration::from_secs(20), || {
            guard.assert_running();
            [port, app_port]
                .iter()
                .all(|port| std::net::TcpStream::connect(("127.0.0.1", *port)).is_ok())
        });
        Self {
            url: format!("http://127.0.0.1:{port}"),
            guard,
            dir,
        }
    }

    /// nginx's error log (e.g. "auth request unexpected status").
    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }
}

impl Drop for AuthFront {
    fn drop(&mut self) {
        // SIGTERM: the master stops its worker too.
        self.guard.terminate(Duration::from_secs(5));
    }
}
