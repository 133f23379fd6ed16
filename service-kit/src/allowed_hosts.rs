//! `server.allowed_hosts`: the `Host` names a service answers to, against DNS rebinding.
//!
//! A page on `evil.example` whose name is made to resolve to the service's address becomes
//! same-origin with the service in the victim's browser, so same-origin checks cannot stop it;
//! but the browser still sends `Host: evil.example`. With a non-empty list, a request whose
//! `Host` names no listed host is refused with 403 and the common body.
//!
//! Entries are host names (`console.example.com`), IP addresses, or `*.example.com` for any
//! sub-domain of `example.com`. The port of the `Host` header is ignored, names compare
//! case-insensitively, and an empty list turns the check off.

use std::net::IpAddr;
use std::sync::Arc;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::middleware::Next;
use serde::Deserialize;

use crate::config::ConfigProblems;
use crate::http::{Rejection, error_response};

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct AllowedHosts(Vec<String>);

impl AllowedHosts {
    pub fn new<S: Into<String>>(hosts: impl IntoIterator<Item = S>) -> Self {
        Self(hosts.into_iter().map(Into::into).collect())
    }

    /// False for the empty list: every `Host` is answered.
    pub fn is_enabled(&self) -> bool {
        !self.0.is_empty()
    }

    pub fn entries(&self) -> &[String] {
        &self.0
    }

    /// Each entry must be a host name, an IP address or `*.` and a name, without scheme,
    /// port or path. `field` is the key, e.g. `server.allowed_hosts`.
    pub fn validate(&self, field: &str, problems: &mut ConfigProblems) {
        for (index, entry) in self.0.iter().enumerate() {
            if let Err(why) = check_entry(entry) {
                problems.push(format!("{field}[{index}]"), format!("\"{entry}\" {why}"));
            }
        }
    }

    /// Whether a request with this `Host` header (absent: `None`) is answered.
    pub fn permits(&self, host_header: Option<&str>) -> bool {
        if !self.is_enabled() {
            return true;
        }
        let Some(name) = host_header.and_then(host_name) else {
            return false;
        };
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        self.0.iter().any(|entry| {
            let entry = entry.trim_end_matches('.').to_ascii_lowercase();
            match entry.strip_prefix("*.") {
                Some(parent) => name
                    .strip_suffix(parent)
                    .is_some_and(|label| label.len() > 1 && label.ends_with('.')),
                None => name == entry.trim_start_matches('[').trim_end_matches(']'),
            }
        })
    }
}

fn check_entry(entry: &str) -> Result<(), &'static str> {
    let bare = entry.trim_start_matches('[').trim_end_matches(']');
    if bare.parse::<IpAddr>().is_ok() {
        return Ok(());
    }
    let name = entry.strip_prefix("*.").unwrap_or(entry);
    if name.contains("://") || name.contains('/') {
        return Err("must be a host name, not a URL");
    }
    if name.contains(':') {
        return Err("must be a host name without a port (the port is not compared)");
    }
    let valid_label = |label: &str| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    let name = name.strip_suffix('.').unwrap_or(name);
    if name.is_empty() || name.len() > 253 || !name.split('.').all(valid_label) {
        return Err("is not a host name (letters, digits, '-' and '.'; '*.' only as a prefix)");
    }
    Ok(())
}

/// The host part of a `Host` header: `name`, `name:port`, `1.2.3.4:port`, `[::1]:port`.
fn host_name(header: &str) -> Option<&str> {
    let header = header.trim();
    if let Some(rest) = header.strip_prefix('[') {
        let (address, _port) = rest.split_once(']')?;
        return Some(address);
    }
    let name = match header.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        Some(_) => return None,
        None => header,
    };
    (!name.is_empty()).then_some(name)
}

/// The middleware: refuses requests whose `Host` is not allowed.
/// `.wrap(from_fn(move |request, next| check_host(hosts.clone(), request, next)))`.
pub async fn check_host<B: MessageBody>(
    allowed: Arc<AllowedHosts>,
    request: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    check_host_except(allowed, &[], request, next).await
}

/// [`check_host`], answering `exempt` paths for any `Host`: probes (readiness) that the
/// kubelet sends to the pod's IP.
pub async fn check_host_except<B: MessageBody>(
    allowed: Arc<AllowedHosts>,
    exempt: &'static [&'static str],
    request: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    if exempt.contains(&request.path()) {
        return Ok(next.call(request).await?.map_into_left_body());
    }
    // HTTP/2 carries the host in the request target rather than a Host header.
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
        .or_else(|| request.uri().authority().map(|a| a.as_str().to_owned()));
    if allowed.permits(host.as_deref()) {
        return Ok(next.call(request).await?.map_into_left_body());
    }
    tracing::warn!(
        host = host.as_deref().unwrap_or(""),
        path = request.path(),
        "refused a request for a host that is not in server.allowed_hosts"
    );
    let refusal = error_response(&Rejection::new(
        StatusCode::FORBIDDEN,
        "host_not_allowed",
        format!(
            "This service does not answer for the host \"{}\": it is not in server.allowed_hosts.",
            host.as_deref().unwrap_or("")
        ),
    ));
    Ok(request.into_response(refusal).map_into_right_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_match_by_name_without_port_or_case() {
        let allowed = AllowedHosts::new(["console.example.com", "*.apps.internal", "10.0.0.7"]);
        for good in [
            "console.example.com",
            "Console.Example.COM:443",
            "console.example.com.",
            "a.apps.internal",
            "a.b.apps.internal:8080",
            "10.0.0.7:8080",
        ] {
            assert!(allowed.permits(Some(good)), "{good}");
        }
        for bad in [
            "evil.example",
            "console.example.com.evil.example",
            "xconsole.example.com",
            "apps.internal",
            "evilapps.internal",
            ".apps.internal",
            "10.0.0.8",
            "console.example.com:x",
            "",
        ] {
            assert!(!allowed.permits(Some(bad)), "{bad}");
        }
        assert!(!allowed.permits(None));
        assert!(AllowedHosts::default().permits(Some("anything")));
        assert!(AllowedHosts::new(["::1"]).permits(Some("[::1]:8080")));
    }

    #[test]
    fn entries_are_validated_with_a_reason() {
        let hosts = AllowedHosts::new([
            "ok.example",
            "*.ok.example",
            "::1",
            "https://console.example.com",
            "console.example.com:443",
            "bad host",
            "*",
            "",
        ]);
        let mut problems = ConfigProblems::new();
        hosts.validate("server.allowed_hosts", &mut problems);
        let text = format!("{problems:?}");
        for index in 3..=7 {
            assert!(
                text.contains(&format!("server.allowed_hosts[{index}]")),
                "{text}"
            );
        }
        assert!(!text.contains("server.allowed_hosts[2]"), "{text}");
    }
}
