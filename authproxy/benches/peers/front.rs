//! The one nginx in front of both proxies.

use test_support::free_port;
use test_support::nginx::{self, Workers};

pub struct Nginx {
    _nginx: nginx::Nginx,
}

impl Nginx {
    /// One nginx, two fronts: `front_ap` asks authproxy's check on `ap_check`, `front_o2`
    /// oauth2-proxy's `/oauth2/auth` on `o2_port`, each as its documentation writes the
    /// `auth_request` location; behind both the same application (nginx answering 200).
    /// Keep-alive to every upstream, alike for both.
    pub fn start(front_ap: u16, ap_check: u16, front_o2: u16, o2_port: u16) -> Self {
        let app_port = free_port();
        let guarded = |check: &str| {
            format!(
                "location / {{\n\
                   auth_request {check};\n\
                   auth_request_set $auth_user $upstream_http_x_auth_request_user;\n\
                   auth_request_set $auth_email $upstream_http_x_auth_request_email;\n\
                   auth_request_set $auth_groups $upstream_http_x_auth_request_groups;\n\
                   proxy_set_header X-Auth-Request-User $auth_user;\n\
                   proxy_set_header X-Auth-Request-Email $auth_email;\n\
                   proxy_set_header X-Auth-Request-Groups $auth_groups;\n\
                   proxy_http_version 1.1;\n\
                   proxy_set_header Connection \"\";\n\
                   proxy_pass http://app;\n\
                 }}\n"
            )
        };
        let servers = format!(
            "upstream app {{ server 127.0.0.1:{app_port}; keepalive 64; }}\n\
             upstream authproxy {{ server 127.0.0.1:{ap_check}; keepalive 64; }}\n\
             upstream oauth2_proxy {{ server 127.0.0.1:{o2_port}; keepalive 64; }}\n\
             server {{\n\
               listen 127.0.0.1:{app_port};\n\
               location / {{ return 200 \"ok\\n\"; }}\n\
             }}\n\
             server {{\n\
               listen 127.0.0.1:{front_ap};\n\
               location = /_authproxy {{\n\
                 internal;\n\
                 proxy_pass http://authproxy;\n\
                 proxy_http_version 1.1;\n\
                 proxy_set_header Connection \"\";\n\
                 proxy_pass_request_body off;\n\
                 proxy_set_header Content-Length \"\";\n\
                 proxy_set_header X-Original-URL $scheme://$http_host$request_uri;\n\
                 proxy_set_header X-Original-Method $request_method;\n\
                 proxy_set_header X-Forwarded-For $remote_addr;\n\
               }}\n\
               {ap}\
             }}\n\
             server {{\n\
               listen 127.0.0.1:{front_o2};\n\
               location = /oauth2/auth {{\n\
                 internal;\n\
                 proxy_pass http://oauth2_proxy;\n\
                 proxy_http_version 1.1;\n\
                 proxy_set_header Connection \"\";\n\
                 proxy_pass_request_body off;\n\
                 proxy_set_header Content-Length \"\";\n\
                 proxy_set_header Host $host;\n\
                 proxy_set_header X-Real-IP $remote_addr;\n\
                 proxy_set_header X-Forwarded-Uri $request_uri;\n\
               }}\n\
               {o2}\
             }}\n",
            ap = guarded("/_authproxy"),
            o2 = guarded("/oauth2/auth"),
        );
        let nginx = nginx::Nginx::start_with(
            "bench-peers-nginx",
            Workers::PerCore,
            &servers,
            &[front_ap, front_o2, app_port],
        );
        Self { _nginx: nginx }
    }
}
