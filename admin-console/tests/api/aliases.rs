//! Aliases (issue 19): the list of every alias and a batch of adds and removes applied as one
//! `_aliases` call, against osmem-server behind search-test-server; and who may change them.

use search_test_server::Flavor;
use serde_json::{Value, json};
use test_support::Osmem;

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::app::{cluster_yaml, spawn_app};
use crate::indices_manage::{fixture, send};

#[tokio::test]
async fn a_batch_is_one_aliases_call_and_the_list_shows_filter_routing_and_write_index() {
    for flavor in [Flavor::OpenSearch2, Flavor::Elasticsearch8] {
        let f = fixture(flavor).await;
        crate::support::seed_indices(&f.stub.url, "events", 2, |_| 0).await;
        let (status, body) = f
            .post(
                "/aliases",
                json!({"actions": [{"add": {"index": "events-0000", "alias": "events"}}]}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        f.stub.clear_requests();

        let (status, body) = f
            .post(
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
        assert_eq!(status, 200, "{body}");
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
        assert_eq!(
            list["aliases"],
            json!([
                {"alias": "events", "index": "events-0001", "filter": {"term": {"kind": "click"}},
                 "indexRouting": "1", "searchRouting": "1,2", "isWriteIndex": true, "isHidden": null},
                {"alias": "old-events", "index": "events-0000", "filter": null,
                 "indexRouting": null, "searchRouting": null, "isWriteIndex": null, "isHidden": null}
            ]),
            "{flavor:?}"
        );
        // The index page shows its aliases too.
        let (_, page) = f
            .app
            .get_json("/api/clusters/main/indices/events-0001")
            .await;
        assert_eq!(page["aliases"][0]["alias"], "events");
        assert_eq!(page["aliases"][0]["isWriteIndex"], true);

        // A bad batch is refused whole, before the cluster hears of it.
        f.stub.clear_requests();
        let (status, body) = f
            .post(
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
        // The cluster's refusal (an index that does not exist) comes back with its reason.
        let (status, body) = f
            .post(
                "/aliases",
                json!({"actions": [{"add": {"index": "nowhere", "alias": "x"}}]}),
            )
            .await;
        assert_eq!(status, 404, "{body}");
        assert_eq!(body["error"]["code"], "rejected_by_cluster");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("nowhere")
        );
        assert_eq!(f.writes().len(), 1, "only the well-formed batch was sent");
    }
}

#[tokio::test]
async fn only_an_admin_changes_aliases() {
    let osmem = Osmem::start();
    crate::support::seed_indices(&osmem.url, "al", 1, |_| 0).await;
    let app = spawn_app(&trusted_yaml(&cluster_yaml("prod", &osmem.url))).await;
    let batch = json!({"actions": [{"add": {"index": "al-0000", "alias": "al"}}]});
    let post = |caller| {
        send(as_caller(
            app.client
                .post(app.url("/api/clusters/prod/aliases"))
                .json(&batch),
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
                .starts_with("This needs the admin role on cluster prod")
        );
    }
    let (status, body) = post(&ADMIN).await;
    assert_eq!(status, 200, "{body}");
    let (status, list) = send(as_caller(
        app.client.get(app.url("/api/clusters/prod/aliases")),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 200);
    assert_eq!(list["aliases"][0]["alias"], Value::from("al"));
}
