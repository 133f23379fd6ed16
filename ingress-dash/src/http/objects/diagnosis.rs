//! `GET /api/objects/{httproutes|grpcroutes|tlsroutes}/{namespace}/{name}/diagnosis`: why the
//! route does not work, with
//! the ReferenceGrants of the namespaces its backendRefs point to read on demand (the watchers do
//! not watch them: a grant lives in the target namespace, which the route's watcher may not
//! watch). The live route is read as the YAML view reads it (same checks, access rules,
//! retries and breaker); a target namespace the caller may not see, that a namespace-scoped
//! install does not watch, or whose grants cannot be listed is named in `notRead`, and its
//! backendRefs are not judged.

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use serde::Serialize;

use super::namespace_reads::{self, NamespaceReads, Unread};
use super::{Target, check_access, get_object};
use crate::access::Viewer;
use crate::error::Error;
use crate::http::state::AppState;
use crate::kube::object_reads::{self, ObjectKind};
use crate::kube::watched_kinds::{GrpcRoute, HttpRoute, TlsRoute};
use crate::records::route_diagnosis::{KnownGrants, ReferenceGrant, backend_namespaces, diagnose};
use crate::records::{RecordKind, RouteFinding};

/// Target namespaces read per request at most.
const MAX_NAMESPACES: usize = 16;

/// The answer.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct RouteDiagnosis {
    /// From the live route's spec and status, and the grants read (not the backends' state:
    /// that is the record's `route.diagnosis`).
    pub findings: Vec<RouteFinding>,
    /// Target namespaces whose ReferenceGrants were not read, with why.
    pub not_read: Vec<NotRead>,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
pub struct NotRead {
    pub namespace: String,
    pub reason: String,
}

/// The handler.
pub(crate) async fn route_diagnosis(
    state: web::Data<AppState>,
    path: web::Path<(String, String, String)>,
    viewer: web::ReqData<Viewer>,
) -> Result<HttpResponse, Error> {
    let (kind, namespace, name) = path.into_inner();
    let target = Target::parse(&kind, &namespace, &name)?;
    // Only routes are diagnosed: an Ingress is no kind of this endpoint's.
    if target.kind == ObjectKind::Ingress {
        return Err(Error::NotARoute(kind));
    }
    check_access(&state, &target, &viewer)?;
    let object = get_object(&state, &target).await?;
    // Hostile input: a route that does not decode is judged as an empty one.
    let (route_kind, mut route) = match target.kind {
        ObjectKind::GrpcRoute => (
            RecordKind::GrpcRoute,
            serde_json::from_value::<GrpcRoute>(object)
                .unwrap_or_default()
                .shared_shape(),
        ),
        ObjectKind::TlsRoute => (
            RecordKind::TlsRoute,
            serde_json::from_value::<TlsRoute>(object)
                .unwrap_or_default()
                .shared_shape(),
        ),
        ObjectKind::HttpRoute | ObjectKind::Ingress => (
            RecordKind::HttpRoute,
            serde_json::from_value::<HttpRoute>(object).unwrap_or_default(),
        ),
    };
    route.metadata.namespace = Some(namespace.clone());
    let reads = NamespaceReads {
        call: "list_referencegrants",
        resource: "referencegrants.gateway.networking.k8s.io",
        served: "gateway.networking.k8s.io/v1beta1 referencegrants",
        budget: MAX_NAMESPACES,
    };
    let listed = namespace_reads::read(
        &state,
        &viewer,
        backend_namespaces(&route),
        reads,
        |api, namespace| Box::pin(object_reads::list_reference_grants(api, namespace)),
    )
    .await;
    let mut known = KnownGrants::default();
    let mut not_read = Vec::new();
    for (target_namespace, listed) in listed {
        match listed {
            Ok(items) => {
                known.grants.extend(items.iter().map(|item| {
                    let mut grant: ReferenceGrant =
                        serde_json::from_value(item["spec"].clone()).unwrap_or_default();
                    grant.namespace = target_namespace.clone();
                    grant
                }));
                known.namespaces.insert(target_namespace);
            }
            Err(unread) => not_read.push(NotRead {
                namespace: target_namespace,
                reason: match unread {
                    Unread::NotShown(reason) => reason.to_owned(),
                    Unread::OverBudget => "more target namespaces than are read at once".to_owned(),
                    Unread::ListFailed(why) => {
                        format!("its ReferenceGrants cannot be listed: {why}")
                    }
                },
            }),
        }
    }
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(RouteDiagnosis {
            findings: diagnose(&route, route_kind, Some(&known)),
            not_read,
        }))
}
