//! Management: long operations started as tasks — shrink, split and clone of an index, a force
//! merge and a reindex within the cluster — each sent with `wait_for_completion=false` and
//! answered 202 with the task to follow in the Tasks view (`manage::tasks`). Routes under
//! `/api/clusters/{cluster_id}`; the scope's guard authorises and audits every call
//! (`access::action::view_needs`: a force merge is operator, what creates or copies data admin)
//! and asks for a reason on a production cluster. Rolling an alias over (`POST
//! /aliases/{alias}/rollover`, operator) is here too, though the cluster has no task mode for it.
//!
//! Cluster calls: `GET <source>/_settings?flat_settings=true` and the same of the target before
//! a resize (its preconditions: the target must not exist), `POST <source>/_{shrink,split,clone}/<target>`,
//! `POST <index>/_forcemerge`, `POST _reindex`; see [`model`] for what each cluster accepts.

mod model;

use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, web};
use reqwest::Method;

use crate::cluster::client::ClusterApi;
use crate::cluster::dialect::Dialect;
use crate::error::Error;
use crate::handlers::RequestedCluster;
use crate::manage::data_streams::{RolledOver, rolled_over};
use crate::manage::names::{AliasName, IndexName};
pub(crate) use model::*;

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/indices/{index}/shrink", web::post().to(shrink))
        .route("/indices/{index}/split", web::post().to(split))
        .route("/indices/{index}/clone", web::post().to(clone))
        .route("/indices/{index}/forcemerge", web::post().to(forcemerge))
        .route("/reindex", web::post().to(reindex))
        .route("/aliases/{alias}/rollover", web::post().to(rollover_alias));
}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
        Operation::decl,
        ResizeRequest::decl,
        ForcemergeRequest::decl,
        ReindexRequest::decl,
        Started::decl,
    ]
};

/// Checks the source's state, then starts the resize.
pub(crate) async fn start_resize(
    cluster: &impl ClusterApi,
    dialect: Dialect,
    plan: &Resize,
) -> Result<Started, Error> {
    let settings = cluster
        .call(
            Method::GET,
            &format!("{}/_settings?flat_settings=true", plan.source.segment()),
            None,
        )
        .await?;
    plan.preconditions(SourceState::from_settings(&plan.source, &settings)?)?;
    // With `wait_for_completion=false` the cluster takes any resize and reports a target that
    // exists only in the task's result: said here first (an alias of that name counts too).
    let target = format!("{}/_settings?flat_settings=true", plan.target.segment());
    match cluster.call(Method::GET, &target, None).await {
        Err(Error::RejectedByCluster { status, .. }) if status == StatusCode::NOT_FOUND => {}
        Err(error) => return Err(error),
        Ok(_) => return Err(target_exists(&plan.target)),
    }
    let (path, body) = plan.call(dialect);
    let answer = cluster.call(Method::POST, &path, Some(&body)).await?;
    Ok(Started {
        operation: plan.operation,
        source: plan.source.as_str().to_owned(),
        target: Some(plan.target.as_str().to_owned()),
        // Elasticsearch has no task mode for a resize: the call returned once the target
        // existed, its shards copy in the background.
        task_id: if dialect.is_opensearch() {
            Some(task_of(&answer)?)
        } else {
            None
        },
    })
}

/// 202 Accepted, not cached.
fn accepted(started: &Started) -> HttpResponse {
    HttpResponse::Accepted()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(started)
}

async fn resize(
    cluster: RequestedCluster,
    index: &str,
    operation: Operation,
    body: ResizeRequest,
) -> Result<HttpResponse, Error> {
    let dialect = cluster.dialect().await?;
    let plan = body.check(operation, IndexName::parse(index)?, dialect)?;
    let started = start_resize(cluster.api(), dialect, &plan).await;
    cluster.indices_changed();
    Ok(accepted(&started?))
}

async fn shrink(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
    body: web::Json<ResizeRequest>,
) -> Result<HttpResponse, Error> {
    resize(cluster, &path.1, Operation::Shrink, body.into_inner()).await
}

async fn split(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
    body: web::Json<ResizeRequest>,
) -> Result<HttpResponse, Error> {
    resize(cluster, &path.1, Operation::Split, body.into_inner()).await
}

async fn clone(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
    body: web::Json<ResizeRequest>,
) -> Result<HttpResponse, Error> {
    resize(cluster, &path.1, Operation::Clone, body.into_inner()).await
}

async fn forcemerge(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
    body: web::Json<ForcemergeRequest>,
) -> Result<HttpResponse, Error> {
    let index = IndexName::parse(&path.1)?;
    let call = body.call(&index, cluster.dialect().await?)?;
    let answer = cluster.api().call(Method::POST, &call, None).await?;
    Ok(accepted(&Started {
        operation: Operation::Forcemerge,
        source: index.as_str().to_owned(),
        target: None,
        task_id: Some(task_of(&answer)?),
    }))
}

async fn reindex(
    cluster: RequestedCluster,
    body: web::Json<ReindexRequest>,
) -> Result<HttpResponse, Error> {
    let plan = body.into_inner().check(cluster.dialect().await?)?;
    let (path, call) = plan.call();
    let answer = cluster.api().call(Method::POST, &path, Some(&call)).await;
    cluster.indices_changed();
    Ok(accepted(&Started {
        operation: Operation::Reindex,
        source: plan.source.as_str().to_owned(),
        target: Some(plan.dest.as_str().to_owned()),
        task_id: Some(task_of(&answer.map_err(reindex_refused)?)?),
    }))
}

/// Rolls the alias over now: a new write index (named by the cluster from the old one's
/// `-000001` suffix). 404 unless an alias of that name exists (a data stream rolls over on its
/// own route); the cluster's refusal as it is otherwise (no write index, a name without the
/// number suffix). There is no task mode for a rollover: it returns once the index exists.
pub(crate) async fn roll_alias_over(
    cluster: &impl ClusterApi,
    alias: &AliasName,
) -> Result<RolledOver, Error> {
    cluster
        .call(Method::GET, &format!("_alias/{}", alias.segment()), None)
        .await
        .map_err(|error| match error {
            Error::RejectedByCluster { status, .. } if status == StatusCode::NOT_FOUND => {
                Error::RejectedByCluster {
                    status,
                    message: format!(
                        "No alias is named \"{}\" (a data stream rolls over in Data streams).",
                        alias.as_str()
                    ),
                }
            }
            other => other,
        })?;
    let answer = cluster
        .call(
            Method::POST,
            &format!("{}/_rollover", alias.segment()),
            None,
        )
        .await?;
    Ok(rolled_over(alias.as_str(), &answer))
}

async fn rollover_alias(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, Error> {
    let alias = AliasName::parse(&path.1)?;
    let rolled = roll_alias_over(cluster.api(), &alias).await;
    cluster.indices_changed();
    Ok(crate::handlers::fresh(&rolled?))
}
