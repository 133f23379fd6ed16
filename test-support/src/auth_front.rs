//! nginx as the front door of an application guarded by authproxy's forward_auth check through
//! `auth_request`, configured as docs/access-control.md tells operators to, with a small echo
//! application behind it that answers with the identity headers it received.

use crate::nginx::Nginx;
use crate::process::free_port;

/// nginx on 127.0.0.1: [`AuthFront::url`] is the guarded application (every path); the check is
/// `check_url` (authproxy in forward_auth mode), an unauthenticated browser is sent to
/// `<sign_in_origin>/auth/start?rd=<the original URL>`. Behind it, an echo application answers
/// 200 with `user=…`, `email=…`, `groups=…`, `authorization=…` lines: the headers nginx passed
/// on from the check's answer (`auth_request_set`).
pub struct AuthFront {
    pub url: String,
    nginx: Nginx,
}

impl AuthFront {
    pub fn start(check_url: &str, sign_in_origin: &str) -> Self {
        let (port, app_port) = (free_port(), free_port());
        let servers = format!(
            r#"
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

{check_location}
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
"#,
            sign_in_origin = sign_in_origin.trim_end_matches('/'),
            check_location = check_location(check_url),
        );
        let nginx = Nginx::start("auth-front", &servers, &[port, app_port]);
        Self {
            url: format!("http://127.0.0.1:{port}"),
            nginx,
        }
    }

    /// nginx's error log (e.g. "auth request unexpected status").
    pub fn error_log(&self) -> String {
        self.nginx.error_log()
    }
}

/// The documented `location = /_authproxy` block: nginx's sub-request to the check at
/// `check_url`, with the nginx contract's headers.
pub(crate) fn check_location(check_url: &str) -> String {
    format!(
        r#"    location = /_authproxy {{
      internal;
      proxy_pass {check_url};
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Original-URL $scheme://$http_host$request_uri;
      proxy_set_header X-Original-Method $request_method;
      proxy_set_header X-Forwarded-For $remote_addr;
    }}
"#
    )
}
