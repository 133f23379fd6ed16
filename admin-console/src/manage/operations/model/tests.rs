use serde_json::json;

use super::*;
use crate::cluster::dialect::Distribution;

const OPENSEARCH: Dialect = Dialect {
    distribution: Distribution::OpenSearch,
    major: 2,
};
const ELASTICSEARCH_7: Dialect = Dialect {
    distribution: Distribution::Elasticsearch,
    major: 7,
};
const ELASTICSEARCH_8: Dialect = Dialect {
    distribution: Distribution::Elasticsearch,
    major: 8,
};

fn index(name: &str) -> IndexName {
    IndexName::parse(name).unwrap()
}

fn resize(operation: Operation, target: &str, shards: Option<u32>) -> Result<Resize, Error> {
    ResizeRequest {
        target: target.to_owned(),
        shards,
        replicas: None,
    }
    .check(operation, index("logs"), OPENSEARCH)
}

fn message(error: Error) -> String {
    error.to_string()
}

#[test]
fn resize_requests_are_checked_before_anything_is_read() {
    for (operation, target, shards, expected) in [
        (Operation::Shrink, "logs", Some(1), "not the source"),
        (Operation::Shrink, "Logs-small", Some(1), "lowercase"),
        (Operation::Shrink, "a,b", Some(1), "contains \",\""),
        (Operation::Shrink, "small", None, "needs shards"),
        (Operation::Split, "big", Some(0), "between 1 and 1024"),
        (Operation::Split, "big", Some(2000), "between 1 and 1024"),
        (Operation::Clone, "copy", Some(2), "leave shards out"),
    ] {
        let error = message(resize(operation, target, shards).unwrap_err());
        assert!(error.contains(expected), "{operation:?} {target}: {error}");
    }
    let too_many = ResizeRequest {
        target: "copy".to_owned(),
        shards: None,
        replicas: Some(17),
    }
    .check(Operation::Clone, index("logs"), OPENSEARCH)
    .unwrap_err();
    assert!(message(too_many).contains("between 0 and 16"));
    assert!(resize(Operation::Clone, "copy", None).is_ok());
}

#[test]
fn the_source_must_be_read_only_and_the_counts_fit_it() {
    let read_only = SourceState {
        shards: 4,
        read_only: true,
    };
    let writable = SourceState {
        shards: 4,
        read_only: false,
    };
    let shrink = |n| resize(Operation::Shrink, "small", Some(n)).unwrap();
    let split = |n| resize(Operation::Split, "big", Some(n)).unwrap();
    shrink(2).preconditions(read_only).unwrap();
    shrink(1).preconditions(read_only).unwrap();
    split(8).preconditions(read_only).unwrap();
    for (plan, expected) in [
        (shrink(3), "one of 1, 2"),
        (shrink(4), "one of 1, 2"),
        (shrink(8), "divides 4"),
        (split(6), "larger multiple of 4, such as 8"),
        (split(4), "larger multiple"),
        (split(2), "larger multiple"),
    ] {
        let error = plan.preconditions(read_only).unwrap_err();
        assert!(matches!(error, Error::BadRequest(_)), "{error:?}");
        assert!(message(error).contains(expected), "{plan:?}");
    }
    let one = SourceState {
        shards: 1,
        read_only: true,
    };
    assert!(message(shrink(1).preconditions(one).unwrap_err()).contains("one-shard index cannot"));
    let blocked = resize(Operation::Clone, "copy", None)
        .unwrap()
        .preconditions(writable)
        .unwrap_err();
    assert!(
        matches!(&blocked, Error::RejectedByCluster { status, .. } if *status == StatusCode::CONFLICT),
        "{blocked:?}"
    );
    assert!(message(blocked).contains("\"logs\" must be read-only before a clone"));
}

#[test]
fn the_source_state_is_read_from_its_flat_settings() {
    let answer = |settings: Value| json!({"logs": {"settings": settings}});
    assert_eq!(
        SourceState::from_settings(
            &index("logs"),
            &answer(json!({"index.number_of_shards": "6", "index.blocks.write": "true"}))
        )
        .unwrap(),
        SourceState {
            shards: 6,
            read_only: true
        }
    );
    assert!(
        SourceState::from_settings(
            &index("logs"),
            &answer(json!({"index.number_of_shards": "2", "index.blocks.read_only": "true"}))
        )
        .unwrap()
        .read_only
    );
    assert!(
        !SourceState::from_settings(
            &index("logs"),
            &answer(json!({"index.number_of_shards": "2", "index.blocks.write": "false"}))
        )
        .unwrap()
        .read_only
    );
    assert!(SourceState::from_settings(&index("logs"), &json!({})).is_err());
    assert!(
        SourceState::from_settings(
            &index("logs"),
            &answer(json!({"index.number_of_shards": "many"}))
        )
        .is_err()
    );
}

#[test]
fn a_resize_is_a_task_on_opensearch_and_a_plain_call_on_elasticsearch() {
    let plan = ResizeRequest {
        target: "small+1".to_owned(),
        shards: Some(1),
        replicas: Some(0),
    }
    .check(Operation::Shrink, index("a+b"), ELASTICSEARCH_8)
    .unwrap();
    let (path, body) = plan.call(ELASTICSEARCH_8);
    assert_eq!(path, "a%2Bb/_shrink/small%2B1");
    assert_eq!(
        body,
        json!({"settings": {"index.number_of_shards": 1, "index.number_of_replicas": 0,
            "index.blocks.write": null, "index.routing.allocation.require._name": null}})
    );
    let clone = resize(Operation::Clone, "copy", None).unwrap();
    assert_eq!(
        clone.call(OPENSEARCH),
        (
            "logs/_clone/copy?wait_for_completion=false".to_owned(),
            json!({"settings": {"index.blocks.write": null}})
        )
    );
    assert_eq!(
        resize(Operation::Split, "big", Some(8))
            .unwrap()
            .call(OPENSEARCH)
            .0,
        "logs/_split/big?wait_for_completion=false"
    );
    // OpenSearch refuses "+" in a new index's name.
    assert!(resize(Operation::Clone, "a+b", None).is_err());
}

#[test]
fn a_force_merge_task_needs_opensearch_or_elasticsearch_8() {
    let merge = |segments, expunge| ForcemergeRequest {
        max_num_segments: segments,
        only_expunge_deletes: expunge,
    };
    assert_eq!(
        merge(Some(1), None)
            .call(&index("logs"), OPENSEARCH)
            .unwrap(),
        "logs/_forcemerge?wait_for_completion=false&max_num_segments=1"
    );
    assert_eq!(
        merge(None, Some(true))
            .call(&index("logs"), ELASTICSEARCH_8)
            .unwrap(),
        "logs/_forcemerge?wait_for_completion=false&only_expunge_deletes=true"
    );
    assert_eq!(
        merge(None, None).call(&index("logs"), OPENSEARCH).unwrap(),
        "logs/_forcemerge?wait_for_completion=false"
    );
    let old = merge(None, None)
        .call(&index("logs"), ELASTICSEARCH_7)
        .unwrap_err();
    assert!(
        matches!(&old, Error::RejectedByCluster { status, .. } if *status == StatusCode::CONFLICT),
        "{old:?}"
    );
    for (request, expected) in [
        (merge(Some(0), None), "between 1 and 1024"),
        (merge(Some(1), Some(true)), "do not go together"),
    ] {
        let error = request.call(&index("logs"), OPENSEARCH).unwrap_err();
        assert!(message(error).contains(expected));
    }
}

#[test]
fn a_reindex_stays_on_the_cluster_and_copies_into_another_index() {
    let request = |source: &str, dest: &str, rps, remote| ReindexRequest {
        source: source.to_owned(),
        dest: dest.to_owned(),
        requests_per_second: rps,
        remote,
    };
    let checked = request("orders", "orders-v2", Some(5), None)
        .check(OPENSEARCH)
        .unwrap();
    assert_eq!(
        checked.call(),
        (
            "_reindex?wait_for_completion=false&requests_per_second=5".to_owned(),
            json!({"source": {"index": "orders"}, "dest": {"index": "orders-v2"}})
        )
    );
    for (bad, expected) in [
        (
            request("a", "b", None, Some(json!({"host": "http://evil:9200"}))),
            "remote cluster is off",
        ),
        (request("a", "a", None, None), "both \"a\""),
        (request("a*", "b", None, None), "contains \"*\""),
        (request("a", "_b", None, None), "must not start with"),
        (request("a", "b", Some(0), None), "between 1 and"),
    ] {
        let error = bad.check(OPENSEARCH).unwrap_err();
        assert!(matches!(error, Error::BadRequest(_)));
        assert!(message(error).contains(expected), "{expected}");
    }
}

#[test]
fn the_task_id_comes_from_the_answer_checked() {
    assert_eq!(
        task_of(&json!({"task": "bbUwh8oGSIiDU--pBhJWfA:42"})).unwrap(),
        "bbUwh8oGSIiDU--pBhJWfA:42"
    );
    for answer in [
        json!({}),
        json!({"task": 42}),
        json!({"task": "../_cluster:1"}),
    ] {
        assert!(task_of(&answer).is_err(), "{answer}");
    }
}

#[test]
fn a_cluster_without_the_reindex_module_is_named_as_such() {
    let refused = reindex_refused(Error::RejectedByCluster {
        status: StatusCode::METHOD_NOT_ALLOWED,
        message: "Incorrect HTTP method for uri [/_reindex]".to_owned(),
    });
    assert!(
        matches!(&refused, Error::RejectedByCluster { status, message }
            if *status == StatusCode::METHOD_NOT_ALLOWED
                && message.starts_with("This cluster has no reindex API")
                && message.ends_with("Incorrect HTTP method for uri [/_reindex]")),
        "{refused:?}"
    );
    let other = reindex_refused(Error::BadRequest("x".to_owned()));
    assert!(matches!(other, Error::BadRequest(_)));
}
