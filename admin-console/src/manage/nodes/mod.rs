//! Management: nodes. Routes under `/api/clusters/{cluster_id}`; the scope's guard
//! authorises and audits every call (`access::action::view_needs`). The node list stays
//! `GET /nodes` (handlers.rs); this adds one node's page.

pub(crate) mod detail;

use actix_web::{HttpResponse, web};

use self::detail::{NodeDetail, stats_path};
use crate::cluster::client::ClusterApi;
use crate::error::Error;
use crate::handlers::{RequestedCluster, fresh};
use crate::manage::names::NodeId;
use crate::manage::shards::grid;

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config.route("/nodes/{node_id}", web::get().to(node_detail));
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

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
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
