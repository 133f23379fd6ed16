//! nginx as the shipped front door: the repository's own `authproxy-gate.conf` snippet (the one
//! `make run` or the compose stack includes in each `location /`) in front of one application,
//! so a test judges the configuration that is delivered, not a copy of it. The forward_auth
//! check is answered by nginx itself with a fixed identity: what is under test is what the
//! front passes on to the application, not the sign-in.

use std::path::Path;

use crate::nginx::Nginx;
use crate::process::free_port;

/// nginx on 127.0.0.1: [`GateFront::url`] passes every request to `app_url` through the
/// `location /` of the front door, with `gate_snippet` included as the shipped `nginx.conf`
/// includes it. The check answers 200 naming `user` and `groups` (as authproxy does for a
/// signed-in user).
pub struct GateFront {
    pub url: String,
    nginx: Nginx,
}

impl GateFront {
    pub fn start(gate_snippet: &Path, app_url: &str, user: &str, groups: &str) -> Self {
        let (port, check_port) = (free_port(), free_port());
        let gate = gate_snippet.display();
        let servers = format!(
            r#"
  # Stands in for authproxy's /auth/check: a signed-in user.
  server {{
    listen 127.0.0.1:{check_port};
    location / {{
      add_header X-Auth-Request-User "{user}" always;
      add_header X-Auth-Request-Groups "{groups}" always;
      return 200 "";
    }}
  }}

  server {{
    listen 127.0.0.1:{port};

    location = /_authproxy {{
      internal;
      proxy_pass http://127.0.0.1:{check_port}/auth/check;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
    }}

    location @authproxy_sign_in {{
      return 401;
    }}

    location / {{
      include {gate};
      proxy_pass {app_url};
    }}
  }}
"#
        );
        let nginx = Nginx::start("gate-front", &servers, &[port, check_port]);
        Self {
            url: format!("http://127.0.0.1:{port}"),
            nginx,
        }
    }

    /// nginx's error log.
    pub fn error_log(&self) -> String {
        self.nginx.error_log()
    }
}
