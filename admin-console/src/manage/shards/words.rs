//! The cluster's allocation codes in plain words: unassigned reasons, allocation statuses and
//! allocation deciders, as Elasticsearch 8 and OpenSearch 2 name them.

/// `unassigned_info.reason` in a sentence.
pub(crate) fn unassigned_reason(reason: &str) -> String {
    let text = match reason {
        "INDEX_CREATED" => "The index was just created and this copy has not been allocated yet.",
        "CLUSTER_RECOVERED" => {
            "The whole cluster restarted and this copy has not been recovered yet."
        }
        "INDEX_REOPENED" => "The index was reopened and this copy has not been allocated yet.",
        "DANGLING_INDEX_IMPORTED" => "The index was imported as a dangling index.",
        "NEW_INDEX_RESTORED" => "The index is being restored from a snapshot into a new index.",
        "EXISTING_INDEX_RESTORED" => {
            "The index is being restored from a snapshot over a closed index."
        }
        "REPLICA_ADDED" => "A replica was added to the index (number_of_replicas went up).",
        "ALLOCATION_FAILED" => {
            "Allocating this copy failed (see the details); the cluster gives up after index.allocation.max_retries attempts until you retry failed allocations."
        }
        "NODE_LEFT" => "The node that held this copy left the cluster.",
        "NODE_RESTARTING" => "The node that held this copy is restarting (a planned shutdown).",
        "REROUTE_CANCELLED" => "An explicit reroute cancel command unassigned it.",
        "REINITIALIZED" => "The copy was reinitialised after a shadow replica was promoted.",
        "REALLOCATED_REPLICA" => {
            "A better place was found for this replica and its current allocation was cancelled."
        }
        "PRIMARY_FAILED" => "The primary of this shard failed while this replica was initialising.",
        "FORCED_EMPTY_PRIMARY" => {
            "An empty primary was forced onto a node (allocate_empty_primary); its data is lost."
        }
        "MANUAL_ALLOCATION" => "Its allocation was changed by hand (a reroute command).",
        "INDEX_CLOSED" => "The index was closed.",
        other => return format!("Unassigned ({other})."),
    };
    text.to_owned()
}

/// `last_allocation_status` / `allocation_status` in words.
pub(crate) fn allocation_status(status: &str) -> String {
    match status {
        "no_attempt" => "no allocation has been attempted yet".to_owned(),
        "decider_no" => "the allocation deciders refused every node".to_owned(),
        "awaiting_info" => {
            "the cluster is still asking the nodes which copies they hold".to_owned()
        }
        "no_valid_shard_copy" => "no node holds a valid copy of this shard's data".to_owned(),
        "throttled" => "allocation is throttled (too many recoveries at once)".to_owned(),
        other => other.replace('_', " "),
    }
}

/// What an allocation decider looks at, so that its "no" reads as a sentence.
pub(crate) fn decider(name: &str) -> String {
    let text = match name {
        "same_shard" => "a copy of this shard is already on this node",
        "disk_threshold" => "the node's disk is above a watermark",
        "filter" => "an allocation filter (include/exclude/require settings) rules the node out",
        "awareness" => "allocation awareness (zones, racks) rules the node out",
        "max_retry" => "allocation failed too many times in a row",
        "enable" => {
            "allocation or rebalancing is disabled by cluster.routing.allocation.enable or .rebalance.enable"
        }
        "throttling" => "the node already runs as many recoveries as allowed",
        "shards_limit" => {
            "the node already holds as many shards of this index or cluster as allowed"
        }
        "node_version" => "the node runs an older version than the copy's source",
        "replica_after_primary_active" => "the primary is not active yet",
        "data_tier" => "the index's tier preference does not match the node's data tier",
        "snapshot_in_progress" => "a snapshot of this shard is running",
        "restore_in_progress" => "a restore of this shard is running",
        "cluster_rebalance" => "rebalancing waits for the cluster's other shards to be active",
        "rebalance_only_when_active" => {
            "rebalancing waits for all copies of the shard to be active"
        }
        "concurrent_rebalance" => "too many rebalances run at once",
        "resize" => "a shrink or split needs its source on the same node",
        "node_shutdown" => "the node is shutting down",
        "node_replacement" => "the node is being replaced",
        "dedicated_master" | "dedicated_cluster_manager" => "the node has no data role",
        "target_pool_allocation" => "the node's pool (remote store) does not match the index",
        "search_replica_allocation" => "search replicas go to search nodes only",
        "has_frozen_cache" => "the node has no frozen cache",
        "searchable_snapshots" | "searchable_snapshot_repository_exists" => {
            "the searchable snapshot's repository is not available"
        }
        other => return other.replace('_', " "),
    };
    text.to_owned()
}

/// A `yes`/`no`/`throttled`/`worse_balance`… decision in words.
pub(crate) fn decision(decision: &str) -> String {
    match decision {
        "yes" => "yes".to_owned(),
        "no" => "no".to_owned(),
        "throttled" | "throttle" => "not now (throttled)".to_owned(),
        "worse_balance" => "no, it would make the balance worse".to_owned(),
        "awaiting_info" => "not yet (waiting for shard information)".to_owned(),
        "allocation_delayed" => "not yet (allocation is delayed)".to_owned(),
        "no_valid_shard_copy" => "no (no valid copy of the data)".to_owned(),
        "no_attempt" => "not attempted".to_owned(),
        other => other.to_lowercase().replace('_', " "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_codes_read_as_sentences_and_unknown_ones_are_kept() {
        assert!(unassigned_reason("NODE_LEFT").contains("left the cluster"));
        assert_eq!(
            unassigned_reason("SOMETHING_NEW"),
            "Unassigned (SOMETHING_NEW)."
        );
        assert!(decider("same_shard").contains("already on this node"));
        assert_eq!(decider("new_decider"), "new decider");
        assert_eq!(
            decision("worse_balance"),
            "no, it would make the balance worse"
        );
        assert_eq!(decision("NO"), "no");
        assert!(allocation_status("decider_no").contains("refused"));
    }
}
