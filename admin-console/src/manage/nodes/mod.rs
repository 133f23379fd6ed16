//! Management: nodes. Routes under `/api/clusters/{cluster_id}`; the scope's guard
//! authorises and audits every call (`access::action::view_needs`). The node list stays
//! `GET /nodes` (handlers.rs); this adds one node's page and draining a node
//! (`PUT`/`DELETE /nodes/{nodeId}/drain`: its name in the allocation filter, operator).

pub(crate) mod detail;

use actix_web::{HttpResponse, web};

use self::detail::{NodeDetail, stats_path};
use crate::cluster::allocation::{Drain, drain_node};
use crate::cluster::client::ClusterApi;
use crate::error::Error;
use crate::handlers::{RequestedCluster, fresh};
use crate::manage::names::NodeId;
use crate::manage::shards::grid;

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/nodes/{node_id}", web::get().to(node_detail))
        .route("/nodes/{node_id}/drain", web::put().to(drain))
        .route("/nodes/{node_id}/drain", web::delete().to(undo_drain));
}

/// `GET /nodes/{nodeId}`: the node's statistics and its shards, two concurrent calls.
async fn node_detail(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, Error> {
    let (_, node) = path.into_inner();
    let node = NodeId::parse(&node, "nodeId")?;
    let dialect = cluster.dialect().await?;
    let stats_path = stats_path(&node);
    let (stats, grid) = futures_util::join!(
        cluster.api().call(reqwest::Method::GET, &stats_path, None),
        grid::fetch(cluster.api(), dialect),
    );
    let detail = NodeDetail::build(node.as_str(), &stats?, &grid?, dialect)?;
    Ok(fresh(&detail))
}

/// `PUT /nodes/{nodeId}/drain`: keeps shards off the node (its name added to
/// `cluster.routing.allocation.exclude._name`); answers the effective lock and filters.
async fn drain(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, Error> {
    set_drain(cluster, path, Drain::Start).await
}

/// `DELETE /nodes/{nodeId}/drain`: lets shards back onto the node.
async fn undo_drain(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, Error> {
    set_drain(cluster, path, Drain::Undo).await
}

async fn set_drain(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
    drain: Drain,
) -> Result<HttpResponse, Error> {
    let (_, node) = path.into_inner();
    let node = NodeId::parse(&node, "nodeId")?;
    let name = node_name(cluster.api(), &node).await?;
    Ok(fresh(&drain_node(cluster.api(), &name, drain).await?))
}

/// The name of the one node `node` (an id or a name) selects.
async fn node_name(cluster: &impl ClusterApi, node: &NodeId) -> Result<String, Error> {
    let path = format!("_nodes/{}?filter_path=nodes.*.name", node.segment());
    let answer = cluster.get_json(&path).await?;
    let names: Vec<&str> = answer["nodes"]
        .as_object()
        .map(|nodes| nodes.values().filter_map(|n| n["name"].as_str()).collect())
        .unwrap_or_default();
    match names.as_slice() {
        [name] => Ok((*name).to_owned()),
        [] => Err(Error::RejectedByCluster {
            status: actix_web::http::StatusCode::NOT_FOUND,
            message: format!("The cluster has no node {}.", node.as_str()),
        }),
        _ => Err(Error::BadRequest(format!(
            "{} names {} nodes; name one node by its id.",
            node.as_str(),
            names.len()
        ))),
    }
}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
        crate::cluster::tiers::Tier::decl,
        detail::GcCollector::decl,
        detail::JvmStats::decl,
        detail::OsStats::decl,
        detail::FileSystem::decl,
        detail::ThreadPool::decl,
        detail::Breaker::decl,
        detail::NodeShard::decl,
        detail::NodeDetail::decl,
    ]
};
