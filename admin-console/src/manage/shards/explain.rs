//! A shard's allocation, explained in words: `_cluster/allocation/explain` (same request and
//! answer in Elasticsearch 8 and OpenSearch 2) read into a headline, plain sentences and, per
//! node, the deciders that said no with what they look at and the cluster's own explanation.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::grid::Unassigned;
use super::words;
use crate::error::Error;
use crate::manage::names::{IndexName, NodeId};

/// The query string of `GET /shards/explain`, before checking.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplainParams {
    pub index: Option<String>,
    pub shard: Option<String>,
    pub primary: Option<String>,
    /// The node id holding the copy, to pick one replica among several.
    pub node: Option<String>,
}

/// A checked explain request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ExplainRequest {
    pub index: IndexName,
    pub shard: u32,
    pub primary: bool,
    pub node: Option<NodeId>,
}

impl ExplainRequest {
    pub(crate) fn parse(params: &ExplainParams) -> Result<Self, Error> {
        let index = IndexName::parse(params.index.as_deref().unwrap_or_default())?;
        let shard = match params.shard.as_deref() {
            None | Some("") => {
                return Err(Error::BadRequest(
                    "shard is required (the shard number, 0 or more).".to_owned(),
                ));
            }
            Some(text) => text.parse::<u32>().map_err(|_| {
                Error::BadRequest(format!(
                    "shard must be a whole number from 0 to {}, not \"{text}\".",
                    u32::MAX
                ))
            })?,
        };
        let primary = match params.primary.as_deref() {
            Some("true") => true,
            Some("false") => false,
            None | Some("") => {
                return Err(Error::BadRequest(
                    "primary is required (true or false).".to_owned(),
                ));
            }
            Some(other) => {
                return Err(Error::BadRequest(format!(
                    "primary must be true or false, not \"{other}\"."
                )));
            }
        };
        let node = match params.node.as_deref() {
            None | Some("") => None,
            Some(node) => Some(NodeId::parse(node, "node")?),
        };
        Ok(Self {
            index,
            shard,
            primary,
            node,
        })
    }

    /// The documented request body (`current_node` only when a copy's node is known).
    pub(crate) fn body(&self) -> Value {
        let mut body =
            json!({"index": self.index.as_str(), "shard": self.shard, "primary": self.primary});
        if let Some(node) = &self.node {
            body["current_node"] = json!(node.as_str());
        }
        body
    }
}

/// The path of the call (POST, with the body above; both dialects document GET and POST).
pub(crate) const EXPLAIN_PATH: &str = "_cluster/allocation/explain";

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct DeciderVerdict {
    pub decider: String,
    /// `YES`, `NO`, `THROTTLE` as the cluster says.
    pub decision: String,
    /// What the decider looks at, in words.
    pub meaning: String,
    /// The cluster's own explanation.
    pub explanation: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct NodeDecision {
    pub node_id: String,
    pub node_name: String,
    /// `yes`, `no`, `throttled`, `worse_balance`, `awaiting_info`…
    pub decision: String,
    /// One plain sentence: the node, its decision and each decider's reason.
    pub sentence: String,
    pub weight_ranking: Option<u64>,
    pub deciders: Vec<DeciderVerdict>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ExplainedNode {
    pub id: String,
    pub name: String,
}

/// `GET /api/clusters/:id/shards/explain`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ShardExplanation {
    pub index: String,
    pub shard: u32,
    pub primary: bool,
    /// `unassigned`, `started`, `initializing`, `relocating`.
    pub current_state: String,
    pub current_node: Option<ExplainedNode>,
    /// The answer in one sentence.
    pub headline: String,
    /// Why, in plain sentences (the unassigned reason, its details, the cluster's explanation).
    pub sentences: Vec<String>,
    pub unassigned: Option<Unassigned>,
    pub can_allocate: Option<String>,
    pub can_remain: Option<String>,
    pub can_move: Option<String>,
    pub can_rebalance: Option<String>,
    /// The deciders that keep the copy from staying where it is.
    pub remain_deciders: Vec<DeciderVerdict>,
    /// Per node, the decision and the deciders behind it (refusals first).
    pub nodes: Vec<NodeDecision>,
}

fn text(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

fn deciders(list: &Value) -> Vec<DeciderVerdict> {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|decider| {
            let name = decider["decider"].as_str().unwrap_or("unknown");
            DeciderVerdict {
                decider: name.to_owned(),
                decision: decider["decision"].as_str().unwrap_or_default().to_owned(),
                meaning: words::decider(name),
                explanation: decider["explanation"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            }
        })
        .collect()
}

fn node_sentence(name: &str, decision: &str, deciders: &[DeciderVerdict]) -> String {
    let refusing: Vec<&DeciderVerdict> = deciders
        .iter()
        .filter(|d| !d.decision.eq_ignore_ascii_case("yes"))
        .collect();
    if refusing.is_empty() {
        return format!("{name}: {}.", words::decision(decision));
    }
    let reasons: Vec<String> = refusing
        .iter()
        .map(|d| {
            let explanation = d.explanation.trim_end_matches('.');
            if explanation.is_empty() {
                d.meaning.clone()
            } else {
                format!("{} ({explanation})", d.meaning)
            }
        })
        .collect();
    format!(
        "{name} says {} because {}.",
        words::decision(decision),
        reasons.join("; and ")
    )
}

impl ShardExplanation {
    pub(crate) fn from_answer(answer: &Value) -> Result<Self, Error> {
        let current_state = answer["current_state"].as_str().ok_or_else(|| {
            Error::upstream("The _cluster/allocation/explain answer has no current_state.".into())
        })?;
        let index = answer["index"].as_str().unwrap_or_default().to_owned();
        let shard = answer["shard"]
            .as_u64()
            .and_then(|shard| u32::try_from(shard).ok())
            .unwrap_or(0);
        let primary = answer["primary"].as_bool().unwrap_or(false);
        let copy = format!(
            "The {} of {index} shard {shard}",
            if primary { "primary" } else { "replica" }
        );
        let info = &answer["unassigned_info"];
        let unassigned = info["reason"].as_str().map(|reason| Unassigned {
            reason: reason.to_owned(),
            reason_text: words::unassigned_reason(reason),
            at: text(&info["at"]),
            details: text(&info["details"]),
            allocation_status: text(&info["last_allocation_status"]),
            failed_attempts: info["failed_allocation_attempts"].as_u64(),
            delayed: info["delayed"].as_bool().unwrap_or(false),
        });
        let current_node = answer["current_node"]["id"]
            .as_str()
            .map(|id| ExplainedNode {
                id: id.to_owned(),
                name: answer["current_node"]["name"]
                    .as_str()
                    .unwrap_or(id)
                    .to_owned(),
            });
        let mut nodes: Vec<NodeDecision> = answer["node_allocation_decisions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|node| {
                let id = node["node_id"].as_str().unwrap_or_default();
                let name = node["node_name"].as_str().unwrap_or(id);
                let decision = node["node_decision"].as_str().unwrap_or("unknown");
                let deciders = deciders(&node["deciders"]);
                NodeDecision {
                    node_id: id.to_owned(),
                    node_name: name.to_owned(),
                    decision: decision.to_owned(),
                    sentence: node_sentence(name, decision, &deciders),
                    weight_ranking: node["weight_ranking"].as_u64(),
                    deciders,
                }
            })
            .collect();
        // Refusals first, then by the cluster's ranking.
        nodes.sort_by_key(|node| (node.decision == "yes", node.weight_ranking));

        let can = |key: &str| text(&answer[key]);
        let (can_allocate, can_remain, can_move, can_rebalance) = (
            can("can_allocate"),
            can("can_remain_on_current_node"),
            can("can_move_to_other_node"),
            can("can_rebalance_to_other_node").or_else(|| can("can_rebalance_cluster")),
        );
        let mut sentences = Vec::new();
        let headline = if current_state == "unassigned" {
            if let Some(info) = &unassigned {
                sentences.push(info.reason_text.clone());
                if let Some(details) = &info.details {
                    sentences.push(format!("Details: {details}"));
                }
                if let Some(attempts) = info.failed_attempts {
                    sentences.push(format!("Allocation has failed {attempts} times."));
                }
                if let Some(status) = &info.allocation_status {
                    sentences.push(format!(
                        "Last attempt: {}.",
                        words::allocation_status(status)
                    ));
                }
            }
            let refusing = nodes.iter().filter(|n| n.decision == "no").count();
            match can_allocate.as_deref() {
                Some("yes") => format!("{copy} is unassigned but can be allocated now."),
                Some("throttled") => {
                    format!("{copy} is unassigned; its allocation waits (throttled).")
                }
                Some("allocation_delayed") => format!(
                    "{copy} is unassigned; allocation is delayed while its node may come back."
                ),
                Some("awaiting_info") => format!(
                    "{copy} is unassigned; the cluster is asking the nodes for their copies."
                ),
                Some("no_valid_shard_copy") => {
                    format!("{copy} is unassigned and no node holds a valid copy of its data.")
                }
                _ if refusing > 0 => format!(
                    "{copy} is unassigned and cannot be allocated: {refusing} of {} nodes refuse it.",
                    nodes.len()
                ),
                _ => format!("{copy} is unassigned and cannot be allocated."),
            }
        } else {
            let on = current_node
                .as_ref()
                .map(|node| format!(" on {}", node.name))
                .unwrap_or_default();
            match (can_remain.as_deref(), can_move.as_deref()) {
                (Some("no"), Some("yes")) => {
                    format!("{copy} is {current_state}{on}, must leave it and can move.")
                }
                (Some("no"), _) => format!(
                    "{copy} is {current_state}{on}, must leave it but no other node accepts it."
                ),
                _ => match can_rebalance.as_deref() {
                    Some("yes") => format!(
                        "{copy} is {current_state}{on}; it may stay, and another node would balance the cluster better."
                    ),
                    _ => format!(
                        "{copy} is {current_state}{on}; it may stay, and the cluster keeps it there."
                    ),
                },
            }
        };
        for key in [
            "allocate_explanation",
            "move_explanation",
            "rebalance_explanation",
        ] {
            if let Some(explanation) = answer[key].as_str() {
                sentences.push(explanation.to_owned());
            }
        }
        Ok(Self {
            index,
            shard,
            primary,
            current_state: current_state.to_owned(),
            current_node,
            headline,
            sentences,
            unassigned,
            can_allocate,
            can_remain,
            can_move,
            can_rebalance,
            remain_deciders: deciders(&answer["can_remain_decisions"]),
            nodes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(index: &str, shard: &str, primary: &str) -> ExplainParams {
        ExplainParams {
            index: Some(index.into()),
            shard: Some(shard.into()),
            primary: Some(primary.into()),
            node: None,
        }
    }

    #[test]
    fn the_request_is_checked_before_anything_is_sent() {
        let ok = ExplainRequest::parse(&params("logs", "2", "false")).unwrap();
        assert_eq!(
            ok.body(),
            json!({"index": "logs", "shard": 2, "primary": false})
        );
        let with_node = ExplainRequest::parse(&ExplainParams {
            node: Some("n1".into()),
            ..params("logs", "0", "true")
        })
        .unwrap();
        assert_eq!(with_node.body()["current_node"], "n1");
        for (bad, message) in [
            (params("", "0", "true"), "The index name is empty"),
            (params("logs-*", "0", "true"), "contains \"*\""),
            (params("logs", "-1", "true"), "shard must be a whole number"),
            (params("logs", "x", "true"), "shard must be a whole number"),
            (params("logs", "0", "yes"), "primary must be true or false"),
            (
                ExplainParams {
                    shard: None,
                    ..params("logs", "0", "true")
                },
                "shard is required",
            ),
        ] {
            let error = ExplainRequest::parse(&bad).unwrap_err();
            assert!(matches!(error, Error::BadRequest(_)));
            assert!(error.to_string().contains(message), "{error}");
        }
    }

    /// The documented ES 8 answer for an unassigned replica that no node accepts.
    #[test]
    fn an_unassigned_copy_is_explained_node_by_node() {
        let answer = json!({
            "index": "logs", "shard": 1, "primary": false,
            "current_state": "unassigned",
            "unassigned_info": {"reason": "ALLOCATION_FAILED", "at": "2026-11-24T04:00:00.000Z",
                "failed_allocation_attempts": 5, "details": "failed shard on node [n1]: boom",
                "last_allocation_status": "no"},
            "can_allocate": "no",
            "allocate_explanation": "Elasticsearch isn't allowed to allocate this shard to any of the nodes in the cluster.",
            "node_allocation_decisions": [
                {"node_id": "n2", "node_name": "es-2", "transport_address": "127.0.0.1:9301",
                 "node_attributes": {}, "node_decision": "no", "weight_ranking": 2,
                 "deciders": [
                    {"decider": "max_retry", "decision": "NO", "explanation": "shard has exceeded the maximum number of retries [5] on failed allocation attempts"},
                    {"decider": "same_shard", "decision": "NO", "explanation": "a copy of this shard is already allocated to this node"}
                 ]},
                {"node_id": "n1", "node_name": "es-1", "node_decision": "no", "weight_ranking": 1,
                 "deciders": [{"decider": "max_retry", "decision": "NO", "explanation": "shard has exceeded the maximum number of retries [5]."}]}
            ]
        });
        let explained = ShardExplanation::from_answer(&answer).unwrap();
        assert_eq!(
            explained.headline,
            "The replica of logs shard 1 is unassigned and cannot be allocated: 2 of 2 nodes refuse it."
        );
        assert!(explained.sentences[0].starts_with("Allocating this copy failed"));
        assert!(
            explained
                .sentences
                .contains(&"Allocation has failed 5 times.".to_owned())
        );
        assert_eq!(explained.nodes[0].node_name, "es-1", "ranked by weight");
        let es2 = &explained.nodes[1];
        assert_eq!(
            es2.sentence,
            "es-2 says no because allocation failed too many times in a row (shard has exceeded the maximum number of retries [5] on failed allocation attempts); and a copy of this shard is already on this node (a copy of this shard is already allocated to this node)."
        );
        assert_eq!(explained.can_allocate.as_deref(), Some("no"));
    }

    /// The documented answer for a started copy that may stay (rebalance says worse_balance).
    #[test]
    fn an_assigned_copy_says_whether_it_can_remain_or_move() {
        let answer = json!({
            "index": "logs", "shard": 0, "primary": true, "current_state": "started",
            "current_node": {"id": "n1", "name": "es-1", "transport_address": "127.0.0.1:9300", "weight_ranking": 1},
            "can_remain_on_current_node": "yes", "can_rebalance_cluster": "yes",
            "can_rebalance_to_other_node": "no",
            "rebalance_explanation": "Elasticsearch cannot rebalance this shard to another node since there is no node to which allocation is permitted which would improve the cluster balance.",
            "node_allocation_decisions": [{"node_id": "n2", "node_name": "es-2", "node_decision": "worse_balance", "weight_ranking": 1}]
        });
        let explained = ShardExplanation::from_answer(&answer).unwrap();
        assert_eq!(
            explained.headline,
            "The primary of logs shard 0 is started on es-1; it may stay, and the cluster keeps it there."
        );
        assert_eq!(
            explained.nodes[0].sentence,
            "es-2: no, it would make the balance worse."
        );
        let must_leave = json!({
            "index": "logs", "shard": 0, "primary": true, "current_state": "started",
            "current_node": {"id": "n1", "name": "es-1"},
            "can_remain_on_current_node": "no",
            "can_remain_decisions": [{"decider": "filter", "decision": "NO", "explanation": "node matches cluster setting [cluster.routing.allocation.exclude] filters [_name:\"es-1\"]"}],
            "can_move_to_other_node": "yes",
            "move_explanation": "can move the shard to another node"
        });
        let explained = ShardExplanation::from_answer(&must_leave).unwrap();
        assert!(explained.headline.contains("must leave it and can move"));
        assert_eq!(explained.remain_deciders[0].decider, "filter");
        assert!(ShardExplanation::from_answer(&json!({})).is_err());
    }
}
