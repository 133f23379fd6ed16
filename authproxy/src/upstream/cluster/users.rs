//! [`SearchUsers`] over HTTP with the administrative credentials, in both products' formats.

mod lifecycle;

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};
use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use reqwest::{StatusCode, Url};
use secrecy::{ExposeSecret, SecretString};
use serde_json::{Value, json};

use super::{
    ClusterError, ClusterUser, MANAGED_BY_KEY, MANAGED_BY_VALUE, MANAGED_SOURCE_KEY, SearchUsers,
    UserSpec,
};
use crate::config::{SearchFlavor, SearchSettings};

/// Bound on one user-API call; these are small requests.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// How often an upsert is tried when the user API answers 409. OpenSearch's security plugin
/// keeps every internal user in one configuration document written with optimistic concurrency
/// control, so upserts of *different* users at the same moment (sign-ins, replicas, an
/// operator's change) conflict and all but one are refused with 409 `version conflict`; each
/// round lets at least one through.
const UPSERT_ATTEMPTS: u32 = 8;
/// The longest pause between two of those attempts (growing from 40 ms, with jitter).
const CONFLICT_BACKOFF_CAP: Duration = Duration::from_millis(1000);

pub struct SearchClusterClient {
    http: reqwest::Client,
    base: Url,
    flavor: SearchFlavor,
    admin_user: String,
    admin_password: Option<SecretString>,
}

impl SearchClusterClient {
    pub fn new(http: reqwest::Client, settings: &SearchSettings) -> anyhow::Result<Self> {
        Ok(Self {
            http,
            base: Url::parse(&settings.url)?,
            flavor: settings.flavor,
            admin_user: settings.admin_user.clone(),
            admin_password: settings.admin_password.clone(),
        })
    }

    fn user_url(&self, username: &str) -> Url {
        self.users_url(&[username])
    }

    /// The user API's URL followed by the segments `tail` (none: the list of all users).
    fn users_url(&self, tail: &[&str]) -> Url {
        let mut url = self.base.clone();
        {
            let mut segments = url.path_segments_mut().expect("http(s) URLs have a path");
            segments.pop_if_empty();
            match self.flavor {
                SearchFlavor::Elasticsearch => segments.extend(["_security", "user"]),
                SearchFlavor::Opensearch => {
                    segments.extend(["_plugins", "_security", "api", "internalusers"])
                }
            };
            segments.extend(tail);
        }
        url
    }

    fn request(&self, method: reqwest::Method, url: Url) -> reqwest::RequestBuilder {
        // The trace goes on into the cluster's security API too. Upserts are rare (once per
        // credential lifetime), so this costs nothing worth a switch; without tracing the
        // installed propagator is a no-op.
        let mut trace_headers = reqwest::header::HeaderMap::new();
        service_kit::telemetry::inject_current_context(&mut trace_headers);
        let builder = self
            .http
            .request(method, url)
            .timeout(CALL_TIMEOUT)
            .headers(trace_headers);
        match &self.admin_password {
            Some(password) => builder.basic_auth(&self.admin_user, Some(password.expose_secret())),
            None => builder,
        }
    }

    /// Whether the user exists, and whose it is.
    async fn existing_user(&self, username: &str) -> Result<Existing, ClusterError> {
        let response = self
            .request(reqwest::Method::GET, self.user_url(username))
            .send()
            .await
            .map_err(|error| ClusterError::from_transport(&error))?;
        match response.status() {
            StatusCode::NOT_FOUND => Ok(Existing::Absent),
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Err(ClusterError::AdminRejected),
            status if status.is_success() => {
                let body: Value = response.json().await.map_err(|_| {
                    ClusterError::BadResponse("the user API answered with invalid JSON".to_owned())
                })?;
                let marks = match self.flavor {
                    SearchFlavor::Elasticsearch => "metadata",
                    SearchFlavor::Opensearch => "attributes",
                };
                let marks = body.get(username).and_then(|user| user.get(marks));
                let mark = |key: &str| {
                    marks
                        .and_then(|marks| marks.get(key))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                };
                if mark(MANAGED_BY_KEY).as_deref() != Some(MANAGED_BY_VALUE) {
                    return Ok(Existing::Foreign);
                }
                // Elasticsearch users have `enabled`; OpenSearch internal users have none.
                let user = body.get(username);
                if user.and_then(|user| user.get("enabled")) == Some(&Value::Bool(false)) {
                    return Ok(Existing::Disabled {
                        source: mark(MANAGED_SOURCE_KEY),
                    });
                }
                Ok(Existing::Managed {
                    source: mark(MANAGED_SOURCE_KEY),
                })
            }
            status => Err(ClusterError::BadResponse(format!(
                "the user API answered {status} to a user look-up"
            ))),
        }
    }

    fn user_body(&self, user: &UserSpec<'_>) -> Value {
        match self.flavor {
            SearchFlavor::Elasticsearch => json!({
                "password": user.password.expose_secret(),
                "roles": user.roles,
                "full_name": user.full_name,
                "email": user.email,
                "metadata": {
                    MANAGED_BY_KEY: MANAGED_BY_VALUE,
                    MANAGED_SOURCE_KEY: user.user.source().as_str(),
                },
                "enabled": true,
            }),
            // Attribute values are strings in OpenSearch; the roles are security roles mapped
            // directly to the user (they must exist), like Elasticsearch's `roles`.
            SearchFlavor::Opensearch => json!({
                "password": user.password.expose_secret(),
                "opendistro_security_roles": user.roles,
                "backend_roles": [],
                "attributes": {
                    MANAGED_BY_KEY: MANAGED_BY_VALUE,
                    MANAGED_SOURCE_KEY: user.user.source().as_str(),
                    "email": user.email,
                    "full_name": user.full_name,
                },
            }),
        }
    }

    /// One look-up and, when the user may be written, one `PUT`: its status and, when the API
    /// refused the user (a 4xx but 401, 403 and 409), the reason its body gives.
    async fn try_upsert(
        &self,
        user: &UserSpec<'_>,
    ) -> Result<(StatusCode, Option<String>), ClusterError> {
        let name = user.user.name();
        match self.existing_user(name).await? {
            Existing::Absent => {}
            Existing::Foreign => return Err(ClusterError::ForeignUser(name.to_owned())),
            // Disabled by the lifecycle sweep (the caller knows from its record): enabled again.
            Existing::Disabled { source }
                if user.reenable && source.as_deref() == Some(user.user.source().as_str()) => {}
            Existing::Disabled { .. } => return Err(ClusterError::DisabledUser(name.to_owned())),
            Existing::Managed {
                source: Some(owner),
            } if owner != user.user.source().as_str() => {
                return Err(ClusterError::OtherSource {
                    name: name.to_owned(),
                    owner: match owner.as_str() {
                        "basic" => "local Basic",
                        "oidc" => "OIDC",
                        _ => "other",
                    },
                });
            }
            Existing::Managed { source: Some(_) } => {}
            Existing::Managed { source: None } if user.adopt_unmarked => {}
            Existing::Managed { source: None } => {
                return Err(ClusterError::OtherSource {
                    name: name.to_owned(),
                    owner: "local Basic (made by an older authproxy)",
                });
            }
        }
        let response = self
            .request(reqwest::Method::PUT, self.user_url(name))
            .json(&self.user_body(user))
            .send()
            .await
            .map_err(|error| ClusterError::from_transport(&error))?;
        let status = response.status();
        let refused = status.is_client_error()
            && ![
                StatusCode::UNAUTHORIZED,
                StatusCode::FORBIDDEN,
                StatusCode::CONFLICT,
            ]
            .contains(&status);
        let reason = match refused {
            true => response
                .bytes()
                .await
                .ok()
                .and_then(|body| refusal_reason(&body)),
            false => None,
        };
        Ok((status, reason))
    }
}

impl SearchUsers for SearchClusterClient {
    fn upsert_user<'a>(&'a self, user: UserSpec<'a>) -> BoxFuture<'a, Result<(), ClusterError>> {
        async move {
            // A pause between two attempts, random so that the writers that lost one round do
            // not collide again in the next.
            let mut pauses = ExponentialBuilder::default()
                .with_min_delay(Duration::from_millis(40))
                .with_max_delay(CONFLICT_BACKOFF_CAP)
                .with_max_times(UPSERT_ATTEMPTS as usize - 1)
                .with_jitter()
                .build();
            loop {
                // A conflict is tried again from the look-up: another writer may have made
                // this very user meanwhile.
                let (status, reason) = self.try_upsert(&user).await?;
                if status != StatusCode::CONFLICT {
                    // The cluster's reason for refusing the user (a name or password its rules
                    // do not allow), so that the answer and the log say why.
                    return admin_call_outcome(status, "the user API", "an upsert").map_err(
                        |error| match (error, reason) {
                            (ClusterError::BadResponse(text), Some(reason)) => {
                                ClusterError::BadResponse(format!("{text}: {reason}"))
                            }
                            (error, _) => error,
                        },
                    );
                }
                let Some(pause) = pauses.next() else {
                    return Err(ClusterError::BadResponse(format!(
                        "the user API answered 409 Conflict to {UPSERT_ATTEMPTS} upserts in a \
                         row (concurrent changes of its security configuration)"
                    )));
                };
                tokio::time::sleep(pause).await;
            }
        }
        .boxed()
    }

    fn managed_users(&self) -> BoxFuture<'_, Result<Vec<ClusterUser>, ClusterError>> {
        self.list_managed().boxed()
    }

    fn disable_user<'a>(
        &'a self,
        user: &'a ClusterUser,
    ) -> BoxFuture<'a, Result<bool, ClusterError>> {
        self.disable(user).boxed()
    }

    fn delete_user<'a>(
        &'a self,
        user: &'a ClusterUser,
        disabled_by_sweep: bool,
    ) -> BoxFuture<'a, Result<(), ClusterError>> {
        self.delete(user, disabled_by_sweep).boxed()
    }

    fn remove_roles<'a>(
        &'a self,
        user: &'a ClusterUser,
        roles: &'a [String],
    ) -> BoxFuture<'a, Result<(), ClusterError>> {
        self.remove_roles(user, roles).boxed()
    }

    fn health(&self) -> BoxFuture<'_, Result<(), ClusterError>> {
        async move {
            let mut url = self.base.clone();
            url.path_segments_mut()
                .expect("http(s) URLs have a path")
                .pop_if_empty()
                .extend(["_cluster", "health"]);
            let response = self
                .request(reqwest::Method::GET, url)
                .send()
                .await
                .map_err(|error| ClusterError::from_transport(&error))?;
            admin_call_outcome(response.status(), "the health endpoint", "a check")
        }
        .boxed()
    }
}

/// A user as the cluster has it before an upsert.
#[derive(Debug, PartialEq, Eq)]
enum Existing {
    Absent,
    /// Not created by this proxy: never overwritten.
    Foreign,
    /// Created by this proxy and disabled on the cluster since (an operator's lock-out): never
    /// overwritten, as the upsert would enable it again, unless the lifecycle sweep disabled it.
    Disabled {
        source: Option<String>,
    },
    /// Created by this proxy; `source` is the `managed_source` mark (`None` from versions
    /// that did not set it).
    Managed {
        source: Option<String>,
    },
}

/// The longest refusal reason quoted from the user API, in characters.
const MAX_REASON_CHARS: usize = 400;

/// The reason a refusal's JSON body gives: Elasticsearch's `error.reason`, the OpenSearch
/// security API's `message`; on one line, at most [`MAX_REASON_CHARS`].
fn refusal_reason(body: &[u8]) -> Option<String> {
    let body: Value = serde_json::from_slice(body).ok()?;
    let reason = body
        .pointer("/error/reason")
        .or_else(|| body.get("message"))
        .and_then(Value::as_str)?;
    let reason: String = reason
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_REASON_CHARS)
        .collect();
    let reason = reason.trim();
    (!reason.is_empty()).then(|| reason.to_owned())
}

/// What an administrative call's status means: 401/403 say the admin credentials are refused.
fn admin_call_outcome(status: StatusCode, endpoint: &str, call: &str) -> Result<(), ClusterError> {
    match status {
        status if status.is_success() => Ok(()),
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Err(ClusterError::AdminRejected),
        status => Err(ClusterError::BadResponse(format!(
            "{endpoint} answered {status} to {call}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_REASON_CHARS, refusal_reason};

    #[test]
    fn the_refusal_reason_is_read_from_either_products_body() {
        let elasticsearch =
            br#"{"error":{"root_cause":[],"type":"action_request_validation_exception",
            "reason":"Validation Failed: 1: User names must be ASCII;"},"status":400}"#;
        assert_eq!(
            refusal_reason(elasticsearch).as_deref(),
            Some("Validation Failed: 1: User names must be ASCII;")
        );
        let opensearch = br#"{"status":"BAD_REQUEST","message":"Weak password\nchosen"}"#;
        assert_eq!(
            refusal_reason(opensearch).as_deref(),
            Some("Weak password chosen")
        );
        assert_eq!(refusal_reason(b"<html>busy</html>"), None);
        assert_eq!(refusal_reason(br#"{"message":"  "}"#), None);
        let long = format!(r#"{{"message":"{}"}}"#, "x".repeat(5000));
        let reason = refusal_reason(long.as_bytes()).unwrap();
        assert_eq!(reason.chars().count(), MAX_REASON_CHARS);
    }
}
