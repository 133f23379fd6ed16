//! Management: shards. Routes under `/api/clusters/{cluster_id}`; the scope's guard
//! authorises and audits every call (`access::action::view_needs`): the grid (one routing-table
//! read), a copy's allocation explained in words, moving a copy to another node and retrying
//! failed allocations. Handlers are thin; the reading and checking live in the submodules.

pub(crate) mod explain;
pub(crate) mod grid;
pub(crate) mod words;

use actix_web::{HttpResponse, web};
use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use self::explain::{EXPLAIN_PATH, ExplainParams, ExplainRequest, ShardExplanation};
use crate::cluster::client::ClusterApi;
use crate::cluster::dialect::Dialect;
use crate::error::Error;
use crate::handlers::{RequestedCluster, fresh};
use crate::manage::names::{IndexName, NodeId};

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/shards", web::get().to(shard_grid))
        .route("/shards/explain", web::get().to(explain_shard))
        .route("/shards/move", web::post().to(move_shard))
        .route("/shards/retry", web::post().to(retry_failed));
}

/// `GET /shards`: the grid, from one routing-table read.
async fn shard_grid(cluster: RequestedCluster) -> Result<HttpResponse, Error> {
    let dialect = cluster.dialect().await?;
    Ok(fresh(&grid::fetch(cluster.api(), dialect).await?))
}

/// `GET /shards/explain?index=&shard=&primary=&node=`.
async fn explain_shard(
    cluster: RequestedCluster,
    params: web::Query<ExplainParams>,
) -> Result<HttpResponse, Error> {
    let request = ExplainRequest::parse(&params)?;
    let answer = cluster
        .api()
        .call(Method::POST, EXPLAIN_PATH, Some(&request.body()))
        .await?;
    Ok(fresh(&ShardExplanation::from_answer(&answer)?))
}

/// `POST /shards/move`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MoveShard {
    pub index: String,
    /// Read wide so that a negative or huge number gets a precise message.
    pub shard: i64,
    pub from_node: String,
    pub to_node: String,
}

impl MoveShard {
    /// The documented `move` command, after checking the names.
    pub(crate) fn command(&self) -> Result<Value, Error> {
        let index = IndexName::parse(&self.index)?;
        let shard = u32::try_from(self.shard).map_err(|_| {
            Error::BadRequest(format!(
                "shard must be a whole number from 0 to {}, not {}.",
                u32::MAX,
                self.shard
            ))
        })?;
        let from = NodeId::parse(&self.from_node, "fromNode")?;
        let to = NodeId::parse(&self.to_node, "toNode")?;
        if from == to {
            return Err(Error::BadRequest(format!(
                "toNode must differ from fromNode (both \"{}\").",
                to.as_str()
            )));
        }
        Ok(json!({"commands": [{"move": {
            "index": index.as_str(), "shard": shard,
            "from_node": from.as_str(), "to_node": to.as_str()
        }}]}))
    }
}

/// The answer of a move or a retry.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Rerouted {
    pub acknowledged: bool,
}

/// `_cluster/reroute` without the cluster state in its answer: Elasticsearch 8 documents
/// `metric=none` for that; OpenSearch and Elasticsearch 7 document no `none` metric, so their
/// answer is filtered to `acknowledged` (on Elasticsearch 8 the filter changes nothing: the
/// answer is then `{"acknowledged": true}` already).
pub(crate) fn reroute_path(dialect: Dialect, retry_failed: bool) -> String {
    let mut path = "_cluster/reroute?".to_owned();
    if retry_failed {
        path.push_str("retry_failed=true&");
    }
    if !dialect.is_opensearch() && dialect.major >= 8 {
        path.push_str("metric=none&");
    }
    path.push_str("filter_path=acknowledged");
    path
}

fn rerouted(answer: &Value) -> Rerouted {
    Rerouted {
        acknowledged: answer["acknowledged"].as_bool().unwrap_or(false),
    }
}

async fn move_shard(
    cluster: RequestedCluster,
    body: web::Json<MoveShard>,
) -> Result<HttpResponse, Error> {
    let command = body.command()?;
    let dialect = cluster.dialect().await?;
    let answer = cluster
        .api()
        .call(Method::POST, &reroute_path(dialect, false), Some(&command))
        .await?;
    Ok(fresh(&rerouted(&answer)))
}

/// `POST /shards/retry`: retries the allocation of every copy that failed too often.
async fn retry_failed(cluster: RequestedCluster) -> Result<HttpResponse, Error> {
    let dialect = cluster.dialect().await?;
    let answer = cluster
        .api()
        .call(Method::POST, &reroute_path(dialect, true), None)
        .await?;
    Ok(fresh(&rerouted(&answer)))
}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
        grid::ShardState::decl,
        grid::Unassigned::decl,
        grid::GridCopy::decl,
        grid::GridIndex::decl,
        grid::GridNode::decl,
        grid::ShardGrid::decl,
        explain::DeciderVerdict::decl,
        explain::NodeDecision::decl,
        explain::ExplainedNode::decl,
        explain::ShardExplanation::decl,
        MoveShard::decl,
        Rerouted::decl,
    ]
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::dialect::Distribution;

    fn body(index: &str, from: &str, to: &str) -> MoveShard {
        MoveShard {
            index: index.into(),
            shard: 3,
            from_node: from.into(),
            to_node: to.into(),
        }
    }

    #[test]
    fn a_move_is_the_documented_command_between_two_named_nodes() {
        assert_eq!(
            body("logs", "n1", "n2").command().unwrap(),
            json!({"commands": [{"move": {"index": "logs", "shard": 3, "from_node": "n1", "to_node": "n2"}}]})
        );
        for (bad, message) in [
            (body("logs", "n1", "n1"), "toNode must differ from fromNode"),
            (body("logs", "_local", "n2"), "fromNode must be one node id"),
            (body("logs", "n1", "*"), "toNode must be one node id"),
            (body("logs-*", "n1", "n2"), "wildcard"),
            (
                MoveShard {
                    shard: -1,
                    ..body("logs", "n1", "n2")
                },
                "shard must be a whole number from 0 to 4294967295, not -1.",
            ),
        ] {
            let error = bad.command().unwrap_err().to_string();
            assert!(error.contains(message), "{error}");
        }
    }

    #[test]
    fn the_reroute_answer_leaves_the_cluster_state_out_in_either_dialect() {
        let es = Dialect {
            distribution: Distribution::Elasticsearch,
            major: 8,
        };
        let os = Dialect {
            distribution: Distribution::OpenSearch,
            major: 2,
        };
        assert_eq!(
            reroute_path(es, false),
            "_cluster/reroute?metric=none&filter_path=acknowledged"
        );
        assert_eq!(
            reroute_path(os, true),
            "_cluster/reroute?retry_failed=true&filter_path=acknowledged"
        );
        let es7 = Dialect {
            distribution: Distribution::Elasticsearch,
            major: 7,
        };
        assert_eq!(
            reroute_path(es7, false),
            "_cluster/reroute?filter_path=acknowledged"
        );
    }
}
