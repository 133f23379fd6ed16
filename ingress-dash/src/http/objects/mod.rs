//! One object on demand: `GET /api/objects/{kind}/{namespace}/{name}/events`
//! (its recent core/v1 events, Warning only unless `?type=all`) and `.../yaml` (the live object
//! as YAML, managedFields removed, credentials redacted; the object's redacted values are hidden
//! in its events' messages too).
//!
//! The kind is `ingresses` or `httproutes` and the names are checked (DNS-1123) before any call;
//! a namespace the caller may not see (`access.namespaces_by_group`), or that a namespace-scoped
//! install does not watch, answers the same 404 as a missing object, so names cannot be probed.
//! Every call to the API server goes through the retry policy and the shared breaker
//! ([`Resilience::call`]); the routes are under the per-client rate limit like every `/api` path.

mod annotations;
pub(crate) mod diagnosis;
mod events;
pub(crate) mod namespace_reads;
mod yaml;

pub(crate) use annotations::object_annotations;
pub(crate) use diagnosis::route_diagnosis;

use std::collections::HashMap;

use actix_web::http::header;
use actix_web::{HttpResponse, web};

use crate::access::Viewer;
use crate::error::Error;
use crate::http::state::AppState;
use crate::kube::client::KubeError;
use crate::kube::object_reads::{self, ObjectKind};
use crate::kube::resilience::CallError;
use crate::names::is_dns1123_label;

/// The object a request names, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub kind: ObjectKind,
    pub namespace: String,
    pub name: String,
}

/// How much of a refused input an error message repeats.
const ECHOED: usize = 64;

fn echoed(text: &str) -> String {
    text.chars().take(ECHOED).collect()
}

impl Target {
    /// Checks the path's parts in order: kind, namespace (DNS-1123 label), name (DNS-1123
    /// subdomain, as Ingress and HTTPRoute names are).
    pub fn parse(kind: &str, namespace: &str, name: &str) -> Result<Self, Error> {
        let kind = ObjectKind::from_plural(kind).ok_or_else(|| Error::UnknownKind(echoed(kind)))?;
        if !is_dns1123_label(namespace) {
            return Err(Error::InvalidNamespace(echoed(namespace)));
        }
        if !is_dns1123_subdomain(name) {
            return Err(Error::InvalidObjectName(echoed(name)));
        }
        Ok(Self {
            kind,
            namespace: namespace.to_owned(),
            name: name.to_owned(),
        })
    }

    fn not_found(&self) -> Error {
        Error::ObjectNotFound {
            kind: self.kind.name(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
        }
    }
}

/// RFC 1123 subdomain: at most 253 characters, dot-separated DNS-1123 labels.
pub fn is_dns1123_subdomain(name: &str) -> bool {
    name.len() <= 253 && name.split('.').all(is_dns1123_label)
}

type Path = web::Path<(String, String, String)>;
type Query = web::Query<HashMap<String, String>>;

/// `GET /api/objects/{kind}/{namespace}/{name}/events`.
pub(crate) async fn events(
    state: web::Data<AppState>,
    path: Path,
    query: Query,
    viewer: web::ReqData<Viewer>,
) -> Result<HttpResponse, Error> {
    let (kind, namespace, name) = path.into_inner();
    let target = Target::parse(&kind, &namespace, &name)?;
    let filter = events::TypeFilter::parse(query.get("type").map(String::as_str))?;
    check_access(&state, &target, &viewer)?;
    // The object must exist (and be readable): a missing one and a hidden namespace answer alike.
    // What its redaction hides, its events' messages do not show either.
    let secrets = state
        .redaction
        .secret_texts(&get_object(&state, &target).await?);
    let selector = events::field_selector(&target, filter);
    let api = state.api.as_ref();
    let mut items = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let page = (state.resilience)
            .call("list_events", || {
                object_reads::list_events(api, &target.namespace, &selector, token.as_deref())
            })
            .await
            .map_err(|error| refused(error, &target, "list events"))?;
        items.extend(page.items);
        match page.continue_token {
            Some(next) if items.len() < events::MAX_READ => token = Some(next),
            _ => break,
        }
    }
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(events::select(items, &secrets)))
}

/// `GET /api/objects/{kind}/{namespace}/{name}/yaml`.
pub(crate) async fn object_yaml(
    state: web::Data<AppState>,
    path: Path,
    viewer: web::ReqData<Viewer>,
) -> Result<HttpResponse, Error> {
    let (kind, namespace, name) = path.into_inner();
    let target = Target::parse(&kind, &namespace, &name)?;
    check_access(&state, &target, &viewer)?;
    let object = get_object(&state, &target).await?;
    let text = yaml::render(object, &state.redaction);
    Ok(HttpResponse::Ok()
        .content_type("text/yaml; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(text))
}

/// A namespace the caller may not see, or one a namespace-scoped install does not watch, is
/// answered as a missing object.
/// Why the objects of `namespace` are not read for `viewer`, beside an object of theirs (a
/// route's backend namespace, a Gateway's): not a namespace they may see, or not one a
/// namespace-scoped install watches.
pub(crate) fn unreadable_namespace(
    state: &AppState,
    viewer: &Viewer,
    namespace: &str,
) -> Option<&'static str> {
    let watched = &state.settings.kubernetes.namespaces;
    if !viewer.visibility.admits(namespace)
        || (!watched.is_empty() && !watched.iter().any(|name| name == namespace))
    {
        Some("not a namespace this dashboard shows you")
    } else {
        None
    }
}

/// Why a list of `resource` (`plural.group`; `served`: its group/version and plural) failed,
/// in words (never the API server's message).
pub(crate) fn list_failure(error: &CallError, resource: &str, served: &str) -> String {
    use crate::kube::client::KubeError;
    match error {
        CallError::Kube(KubeError::Api { status: 403, .. }) => {
            format!("the service account may not list {resource} there")
        }
        CallError::Kube(KubeError::Api { status: 404, .. }) => {
            format!("the API server does not serve {served}")
        }
        _ => "the Kubernetes API failed".to_owned(),
    }
}

fn check_access(state: &AppState, target: &Target, viewer: &Viewer) -> Result<(), Error> {
    if !viewer.visibility.admits(&target.namespace) {
        metrics::counter!("ingress_dash_access_denials_total", "reason" => "namespace_not_visible")
            .increment(1);
        tracing::warn!(
            user = viewer.user.as_deref().unwrap_or(""),
            namespace = target.namespace,
            "object in a namespace not visible to the caller; answered as not found"
        );
        return Err(target.not_found());
    }
    let watched = &state.settings.kubernetes.namespaces;
    if !watched.is_empty() && !watched.contains(&target.namespace) {
        return Err(target.not_found());
    }
    Ok(())
}

async fn get_object(state: &AppState, target: &Target) -> Result<serde_json::Value, Error> {
    let api = state.api.as_ref();
    let action = format!("get {}", target.kind.resource());
    (state.resilience)
        .call("get_object", || {
            object_reads::get_object(api, target.kind, &target.namespace, &target.name)
        })
        .await
        .map_err(|error| refused(error, target, &action))
}

/// 404 is the object missing (or its kind not served: no Gateway API); 403 says what the
/// service account lacks; the rest keep the common mapping of upstream errors.
fn refused(error: CallError, target: &Target, action: &str) -> Error {
    match &error {
        CallError::Kube(KubeError::Api { status: 404, .. }) => target.not_found(),
        CallError::Kube(KubeError::Api {
            status: 403,
            message,
            ..
        }) => {
            tracing::warn!(
                namespace = target.namespace,
                action,
                %message,
                "the API server refused an object read"
            );
            Error::KubernetesForbidden {
                action: action.to_owned(),
                namespace: target.namespace.clone(),
            }
        }
        _ => Error::Upstream(error),
    }
}

#[cfg(test)]
mod tests {
    use ts_rs::TS;

    use super::events::{ObjectEvent, ObjectEvents};
    use super::*;

    /// web/src/api/objects.ts declares the answer's types as ts-rs writes them (the generated
    /// wire.ts covers the stream's types; these are the on-demand reads').
    #[test]
    fn the_web_app_declares_the_events_answer_as_the_server_writes_it() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/web/src/api/objects.ts");
        let source = std::fs::read_to_string(path).expect("objects.ts");
        let config = ts_rs::Config::new().with_large_int("number");
        let missing: Vec<String> = [ObjectEvents::decl(&config), ObjectEvent::decl(&config)]
            .into_iter()
            .map(|declaration| format!("export {declaration}"))
            .filter(|declaration| !source.contains(declaration))
            .collect();
        assert!(
            missing.is_empty(),
            "{path} lacks:\n{}",
            missing.join("\n\n")
        );
    }

    #[test]
    fn kinds_and_names_are_checked_before_anything_else() {
        let target = Target::parse("ingresses", "team-a", "web.v2").unwrap();
        assert_eq!(target.kind, ObjectKind::Ingress);
        assert_eq!(
            Target::parse("httproutes", "team-a", "shop").unwrap().kind,
            ObjectKind::HttpRoute
        );
        assert_eq!(
            Target::parse("grpcroutes", "team-a", "cart").unwrap().kind,
            ObjectKind::GrpcRoute
        );
        assert_eq!(
            Target::parse("tlsroutes", "team-a", "db").unwrap().kind,
            ObjectKind::TlsRoute
        );
        for kind in ["pods", "Ingresses", "ingress", "secrets", ""] {
            assert!(
                matches!(
                    Target::parse(kind, "team-a", "web"),
                    Err(Error::UnknownKind(_))
                ),
                "{kind}"
            );
        }
        for namespace in ["Team", "a.b", "-a", ""] {
            assert!(matches!(
                Target::parse("ingresses", namespace, "web"),
                Err(Error::InvalidNamespace(_))
            ));
        }
        let long = "a".repeat(254);
        for name in [
            "Web",
            "a..b",
            ".a",
            "a_b",
            "a/b",
            "a,b",
            "a=b",
            long.as_str(),
        ] {
            assert!(
                matches!(
                    Target::parse("ingresses", "team-a", name),
                    Err(Error::InvalidObjectName(_))
                ),
                "{name}"
            );
        }
        let Err(Error::InvalidObjectName(echo)) = Target::parse("ingresses", "a", &long) else {
            panic!()
        };
        assert_eq!(echo.len(), ECHOED);
    }
}
