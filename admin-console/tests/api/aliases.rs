//! Aliases: the list of every alias and a batch of adds and removes applied as one `_aliases`
//! call, against real nodes of OpenSearch 2 and Elasticsearch 8 (secured) through a recording
//! proxy that shows what the console sent; and who may change them. The nodes are shared with
//! other suites: each test keeps to index and alias names of its own.

use serde_json::{Value, json};
use test_support::Distribution;

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::support::real::{REAL, real, real_with};
use crate::support::send;

#[tokio::test]
async fn a_batch_is_one_aliases_call_and_the_list_shows_filter_routing_and_write_index() {
    for distribution in REAL {
        let f = real(distribution).await;
        crate::support::seed_indices(&f.proxy.url, "events", 2, |_| 0).await;
        let post = |tail: &str, body: Value| send(f.app.client.post(f.url(tail)).json(&body));
        let (status, body) = post(
            "/aliases",
            json!({"actions": [{"add": {"index": "events-0000", "alias": "events"}}]}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        f.proxy.clear_requests();

        let (status, body) = post(
            "/aliases",
            json!({"actions": [
                {"add": {"index": "events-0001", "alias": "events", "isWriteIndex": true,
                         "filter": {"term": {"kind": "click"}},
                         "indexRouting": "1", "searchRouting": "1,2"}},
                {"add": {"index": "events-0000", "alias": "events", "isWriteIndex": false}},
                {"add": {"index": "events-0000", "alias": "old-events"}},
                {"remove": {"index": "events-0000", "alias": "events"}}
            ]}),
        )
        .await;
        assert_eq!(status, 200, "{distribution:?}: {body}");
        assert_eq!(body, json!({"acknowledged": true, "applied": 4}));
        let writes = f.writes();
        assert_eq!(writes.len(), 1, "one call for the batch: {writes:?}");
        assert_eq!(
            (writes[0].0.as_str(), writes[0].1.as_str()),
            ("POST", "/_aliases")
        );
        assert_eq!(
            writes[0].3,
            Some(json!({"actions": [
                {"add": {"index": "events-0001", "alias": "events", "is_write_index": true,
                         "filter": {"term": {"kind": "click"}},
                         "index_routing": "1", "search_routing": "1,2"}},
                {"add": {"index": "events-0000", "alias": "events", "is_write_index": false}},
                {"add": {"index": "events-0000", "alias": "old-events"}},
                {"remove": {"index": "events-0000", "alias": "events"}}
            ]}))
        );

        let (status, list) = f.app.get_json("/api/clusters/main/aliases").await;
        assert_eq!(status, 200, "{list}");
        let mut ours: Vec<&Value> = list["aliases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|row| {
                row["index"]
                    .as_str()
                    .is_some_and(|i| i.starts_with("events-"))
            })
            .collect();
        ours.sort_by_key(|row| row["alias"].as_str().map(str::to_owned));
        assert_eq!(
            ours,
            [
                &json!({"alias": "events", "index": "events-0001", "filter": {"term": {"kind": "click"}},
                 "indexRouting": "1", "searchRouting": "1,2", "isWriteIndex": true, "isHidden": null}),
                &json!({"alias": "old-events", "index": "events-0000", "filter": null,
                 "indexRouting": null, "searchRouting": null, "isWriteIndex": null, "isHidden": null})
            ],
            "{distribution:?}: {list}"
        );
        // The index page shows its aliases too.
        let (_, page) = f
            .app
            .get_json("/api/clusters/main/indices/events-0001")
            .await;
        assert_eq!(page["aliases"][0]["alias"], "events", "{page}");
        assert_eq!(page["aliases"][0]["isWriteIndex"], true, "{page}");

        // A bad batch is refused whole, before the cluster hears of it.
        f.proxy.clear_requests();
        let (status, body) = post(
            "/aliases",
            json!({"actions": [
                {"add": {"index": "events-0000", "alias": "fine"}},
                {"remove": {"index": "events-*", "alias": "events"}}
            ]}),
        )
        .await;
        assert_eq!(status, 400);
        assert_eq!(
            body["error"]["message"],
            "actions[1]: The index name \"events-*\" contains \"*\"; names may not contain \\ / * ? \" < > | , # : or spaces (one name, no wildcards or lists)."
        );
        assert!(f.writes().is_empty(), "{:?}", f.writes());
        // The cluster's refusal (an index that does not exist) comes back with its reason.
        let (status, body) = post(
            "/aliases",
            json!({"actions": [{"add": {"index": "events-nowhere", "alias": "x"}}]}),
        )
        .await;
        assert_eq!(status, 404, "{body}");
        assert_eq!(body["error"]["code"], "rejected_by_cluster");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("events-nowhere"),
            "{body}"
        );
        assert_eq!(f.writes().len(), 1, "only the well-formed batch was sent");
    }
}

#[tokio::test]
async fn only_an_admin_changes_aliases() {
    let f = real_with(Distribution::OpenSearch2, trusted_yaml).await;
    crate::support::seed_indices(&f.proxy.url, "al", 1, |_| 0).await;
    f.proxy.clear_requests();
    let batch = json!({"actions": [{"add": {"index": "al-0000", "alias": "al"}}]});
    let post = |caller| {
        send(as_caller(
            f.app.client.post(f.url("/aliases")).json(&batch),
            caller,
        ))
    };
    for caller in [&VIEWER, &OPERATOR] {
        let (status, body) = post(caller).await;
        assert_eq!(status, 403, "{body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("This needs the admin role on cluster main"),
            "{body}"
        );
    }
    assert!(f.writes().is_empty(), "{:?}", f.writes());
    let (status, body) = post(&ADMIN).await;
    assert_eq!(status, 200, "{body}");
    let (status, list) = send(as_caller(f.app.client.get(f.url("/aliases")), &VIEWER)).await;
    assert_eq!(status, 200);
    assert!(
        list["aliases"]
            .as_array()
            .unwrap()
            .iter()
            .any(|row| row["alias"] == "al" && row["index"] == "al-0000"),
        "{list}"
    );
}
