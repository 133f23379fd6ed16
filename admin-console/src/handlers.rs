//! Thin HTTP handlers: parse, call the domain code, serialize.

use actix_web::dev::Payload;
use actix_web::http::{Method, header};
use actix_web::{FromRequest, HttpRequest, HttpResponse, ResponseError, web};
use serde::Serialize;

use std::collections::BTreeMap;
use std::future::{Ready, ready};
use std::ops::Deref;
use std::sync::Arc;
use std::time::Instant;

use service_kit::identity::{AccessMode, Identity};

use crate::access::guard::{AccessGuard, Call};
use crate::audit::{Outcome, url_for_audit};
use crate::cluster::allocation::{self, AllocationEnable};
use crate::cluster::indices::{IndexQuery, IndexQueryParams, page_of};
use crate::cluster::views;
use crate::cluster::views::Node;
use crate::config::Role;
use crate::error::Error;
use crate::metrics::time_range::{RangeParams, TimeRange, now};
use crate::metrics::validate::{self, ValidationRequest};
use crate::metrics::{HISTORY_DEFAULT_SPAN, SNAPSHOT_DEFAULT_SPAN};
use crate::registry::{Cluster, ClusterSummary, Clusters};

/// What every handler shares.
pub struct AppState {
    pub clusters: Clusters,
    /// Short time-outs for the validation endpoint.
    pub validation_http: reqwest::Client,
    /// Who may do what (the cluster list shows only the clusters the caller may see).
    pub(crate) access: Arc<AccessGuard>,
}

type State = web::Data<AppState>;

/// The cluster a request under `/api/clusters/{cluster_id}` (the cluster scope and the relay)
/// is about, as a handler argument: the configured cluster named by the `cluster_id` path
/// parameter, or 404 `unknown_cluster`. Put first among a handler's arguments, so that a request
/// for a cluster that does not exist is answered 404 before its path, query or body is read
/// (the access guard answers the same 404, before anything else, for a cluster the caller may
/// not see). Derefs to the [`Cluster`].
pub(crate) struct RequestedCluster(Arc<Cluster>);

impl RequestedCluster {
    fn of(request: &HttpRequest) -> Result<Self, actix_web::Error> {
        let Some(state) = request.app_data::<State>() else {
            // What `web::Data` answers when the state is not registered: a wiring mistake.
            return Err(actix_web::error::ErrorInternalServerError(
                "The application state is not configured for this route.",
            ));
        };
        let id = request.match_info().get("cluster_id").unwrap_or_default();
        Ok(Self(state.clusters.get(id)?.clone()))
    }
}

impl FromRequest for RequestedCluster {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Self::of(request))
    }
}

impl Deref for RequestedCluster {
    type Target = Cluster;

    fn deref(&self) -> &Cluster {
        &self.0
    }
}

/// `GET /api/clusters`.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ClusterList {
    pub clusters: Vec<ClusterSummary>,
}

/// `GET /api/clusters/:id/nodes`.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct NodeList {
    pub nodes: Vec<Node>,
}

/// Cluster data changes all the time: never cached by the browser (also the management
/// routes' answer).
pub(crate) fn fresh<T: Serialize>(body: &T) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(body)
}

/// `GET /api/clusters`: the clusters the caller may see (role above `none`), probed
/// concurrently.
pub async fn list_clusters(state: State, identity: web::ReqData<Identity>) -> HttpResponse {
    let policy = &state.access.policy;
    if policy.mode() == AccessMode::Open {
        // Nothing is hidden in open mode.
        return fresh(&ClusterList {
            clusters: state.clusters.summaries().await,
        });
    }
    let visible = state
        .clusters
        .iter()
        .filter(|cluster| policy.role(cluster.id(), &identity) != Role::None);
    fresh(&ClusterList {
        clusters: futures_util::future::join_all(visible.map(|cluster| cluster.summary())).await,
    })
}

/// `GET /api/whoami`: the caller and their role on each cluster they may see (clusters where
/// the role is `none` are left out, as in the cluster list).
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct WhoAmI {
    #[cfg_attr(test, ts(type = "\"open\" | \"trusted_headers\""))]
    pub mode: &'static str,
    pub user: Option<String>,
    pub email: Option<String>,
    pub groups: Vec<String>,
    #[cfg_attr(
        test,
        ts(type = "Record<string, \"viewer\" | \"operator\" | \"admin\" | \"none\">")
    )]
    pub roles: BTreeMap<String, &'static str>,
}

pub async fn whoami(state: State, identity: web::ReqData<Identity>) -> HttpResponse {
    let policy = &state.access.policy;
    let roles = state
        .clusters
        .iter()
        .map(|cluster| {
            (
                cluster.id().to_owned(),
                policy.role(cluster.id(), &identity),
            )
        })
        .filter(|(_, role)| *role != Role::None)
        .map(|(id, role)| (id, role.as_str()))
        .collect();
    let identity = identity.into_inner();
    fresh(&WhoAmI {
        mode: policy.mode().as_str(),
        user: identity.user,
        email: identity.email,
        groups: identity.groups,
        roles,
    })
}

pub async fn get_cluster(cluster: RequestedCluster) -> Result<HttpResponse, Error> {
    Ok(fresh(&cluster.summary().await))
}

/// `GET /api/clusters/:id/dialect`: the software and major version the management routes and
/// the console's completions adapt to.
pub async fn dialect(cluster: RequestedCluster) -> Result<HttpResponse, Error> {
    Ok(fresh(&cluster.dialect().await?))
}

pub async fn overview(cluster: RequestedCluster) -> Result<HttpResponse, Error> {
    Ok(fresh(
        &views::overview(cluster.api(), cluster.id(), &cluster.settings.name).await?,
    ))
}

pub async fn nodes(cluster: RequestedCluster) -> Result<HttpResponse, Error> {
    Ok(fresh(&NodeList {
        nodes: views::nodes(cluster.api()).await?,
    }))
}

pub async fn indices(
    cluster: RequestedCluster,
    params: web::Query<IndexQueryParams>,
) -> Result<HttpResponse, Error> {
    let query = IndexQuery::parse(&params)?;
    let rows = cluster.indices().await?;
    Ok(fresh(&page_of(&rows, &query)))
}

pub async fn get_allocation(cluster: RequestedCluster) -> Result<HttpResponse, Error> {
    Ok(fresh(&allocation::allocation(cluster.api()).await?))
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AllocationBody {
    enable: AllocationEnable,
}

pub async fn put_allocation(
    cluster: RequestedCluster,
    body: web::Json<AllocationBody>,
) -> Result<HttpResponse, Error> {
    Ok(fresh(
        &allocation::set_allocation(cluster.api(), body.enable).await?,
    ))
}

pub async fn proxy(
    cluster: RequestedCluster,
    request: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, Error> {
    crate::relay::relay(request, payload, &cluster).await
}

pub async fn snapshot(
    cluster: RequestedCluster,
    params: web::Query<RangeParams>,
) -> Result<HttpResponse, Error> {
    let now = now();
    let range = TimeRange::parse(&params, SNAPSHOT_DEFAULT_SPAN, now)?;
    Ok(fresh(
        &cluster
            .metrics
            .snapshot(&cluster.client, cluster.id(), range, now)
            .await?,
    ))
}

pub async fn history(
    cluster: RequestedCluster,
    params: web::Query<RangeParams>,
) -> Result<HttpResponse, Error> {
    let range = TimeRange::parse(&params, HISTORY_DEFAULT_SPAN, now())?;
    Ok(fresh(&cluster.metrics.history(cluster.id(), range).await?))
}

/// `POST /api/metrics_server/validate`: the server calls a URL the caller chooses, so with
/// `trusted_headers` only a caller who is admin on at least one cluster may use it (configuring
/// a metrics server is an admin's task; a viewer must not probe the network through it). Every
/// call is audited with the URL (without credentials), refused ones included.
pub async fn validate_metrics_server(
    state: State,
    request: HttpRequest,
    identity: web::ReqData<Identity>,
    body: web::Json<ValidationRequest>,
) -> Result<HttpResponse, Error> {
    let started = Instant::now();
    let guard = &state.access;
    let body = body.into_inner();
    let mut call = Call::of(guard, &request, &Method::POST);
    call.url = Some(url_for_audit(&body.url));
    let best = guard.policy.best_role(&identity);
    let answer = if guard.policy.mode() == AccessMode::TrustedHeaders && best < Role::Admin {
        Err(Error::Forbidden(format!(
            "This needs the admin role on a cluster; you have {} at most.",
            best.as_str()
        )))
    } else {
        validate::validate(state.validation_http.clone(), body).await
    };
    let (status, outcome) = match &answer {
        Ok(verdict) => {
            call.result = Some(verdict.status.as_str());
            (200, Outcome::Success)
        }
        Err(Error::Forbidden(_)) => (403, Outcome::Denied),
        Err(error) => (error.status_code().as_u16(), Outcome::Failure),
    };
    call.record(guard, &identity, None, best, status, outcome, started);
    Ok(fresh(&answer?))
}

/// The web app's TypeScript wire types (`web/src/api/wire.ts`) are generated from the types
/// above and beside; this test fails when the committed file is stale (`make wire-types`).
#[cfg(test)]
mod wire_types {
    use ts_rs::TS;

    use crate::cluster::allocation::{Allocation, AllocationEnable, Exclusions};
    use crate::cluster::dialect::{Dialect, Distribution};
    use crate::cluster::indices::{IndexPage, IndexRow, Order, SortKey};
    use crate::cluster::views::{Health, Node, Overview};
    use crate::metrics::history::History;
    use crate::metrics::validate::{ValidationRequest, ValidationResponse, ValidationStatus};
    use crate::metrics::{Measurement, Snapshot};
    use crate::registry::ClusterSummary;

    use super::{ClusterList, NodeList};

    #[test]
    fn wire_types() {
        let own: &[test_support::wire_types::Declaration] = &[
            Health::decl,
            ClusterSummary::decl,
            ClusterList::decl,
            Overview::decl,
            Node::decl,
            NodeList::decl,
            IndexRow::decl,
            SortKey::decl,
            Order::decl,
            IndexPage::decl,
            AllocationEnable::decl,
            Exclusions::decl,
            Allocation::decl,
            super::AllocationBody::decl,
            Measurement::decl,
            Snapshot::decl,
            History::decl,
            ValidationRequest::decl,
            ValidationStatus::decl,
            ValidationResponse::decl,
            super::WhoAmI::decl,
            Dialect::decl,
            Distribution::decl,
        ];
        test_support::wire_types::check_web_app(
            env!("CARGO_MANIFEST_DIR"),
            "admin-console",
            &[own, &crate::manage::wire_declarations()].concat(),
        );
    }
}
