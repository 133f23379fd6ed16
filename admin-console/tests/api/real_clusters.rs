//! The console against real single nodes of OpenSearch 2.19, OpenSearch 3, Elasticsearch 7.10
//! and Elasticsearch 8.19 with x-pack security (the versions pinned in versions.env, from Maven):
//! every view and the management routes once, with what the real server answers rather than
//! what a stand-in thinks it answers. One node per distribution is shared by the tests of this
//! module; each keeps to index, alias and template names of its own. The secured Elasticsearch 8
//! is reached over HTTPS with the harness's CA as the cluster's `tls.ca_file` and the `elastic`
//! superuser's password as its basic-auth credential; its `GET /` comes from the small
//! `root-info` plugin the install script adds (the integ-test zip has no `rest-root` module).

use serde_json::{Value, json};
use test_support::{Distribution, SearchCluster};

use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::indices_manage::send;

/// Each test runs against each.
const DISTRIBUTIONS: [Distribution; 4] = [
    Distribution::OpenSearch2,
    Distribution::OpenSearch3,
    Distribution::Elasticsearch7,
    Distribution::Elasticsearch8Secured,
];

async fn console(distribution: Distribution) -> (TestApp, &'static SearchCluster) {
    let cluster = tokio::task::spawn_blocking(move || SearchCluster::shared(distribution))
        .await
        .unwrap();
    let mut yaml = cluster_yaml("real", &cluster.url);
    if let Some(security) = &cluster.security {
        yaml.push_str(&format!(
            "    auth:\n      username: {}\n      password: '{}'\n    tls:\n      ca_file: {}\n",
            security.admin_user,
            security.admin_password,
            security.ca_file.display()
        ));
    }
    let app = spawn_app(&format!("clusters:\n{yaml}")).await;
    (app, cluster)
}

fn api(app: &TestApp, tail: &str) -> String {
    app.url(&format!("/api/clusters/real{tail}"))
}

async fn get(app: &TestApp, tail: &str) -> Value {
    let (status, body) = send(app.client.get(api(app, tail))).await;
    assert_eq!(status, 200, "GET {tail}: {body}");
    body
}

async fn post(app: &TestApp, tail: &str, body: Value) -> Value {
    let (status, answer) = send(app.client.post(api(app, tail)).json(&body)).await;
    assert_eq!(status, 200, "POST {tail} {body}: {answer}");
    answer
}

async fn put(app: &TestApp, tail: &str, body: Value) -> Value {
    let (status, answer) = send(app.client.put(api(app, tail)).json(&body)).await;
    assert_eq!(status, 200, "PUT {tail} {body}: {answer}");
    answer
}

async fn create_index(app: &TestApp, name: &str, replicas: u32) {
    let created = post(
        app,
        "/indices",
        json!({
            "name": name,
            "shards": 1,
            "replicas": replicas,
            "mappings": {"properties": {"sku": {"type": "keyword"}}}
        }),
    )
    .await;
    assert_eq!(created["index"], name, "{created}");
    assert_eq!(created["acknowledged"], true, "{created}");
}

#[tokio::test]
async fn the_views_show_the_real_version_health_and_node() {
    for distribution in DISTRIBUTIONS {
        let (app, cluster) = console(distribution).await;
        let (status, list) = app.get_json("/api/clusters").await;
        assert_eq!(status, 200, "{list}");
        let summary = &list["clusters"][0];
        assert_eq!(summary["reachable"], true, "{summary}");
        assert_eq!(summary["version"], cluster.version().as_str(), "{summary}");
        let expected = match distribution {
            Distribution::OpenSearch2
            | Distribution::OpenSearch2Secured
            | Distribution::OpenSearch3 => ("opensearch", "cluster_manager"),
            Distribution::Elasticsearch7
            | Distribution::Elasticsearch8Secured
            | Distribution::Elasticsearch8 => ("elasticsearch", "master"),
        };
        assert_eq!(summary["distribution"], expected.0, "{summary}");
        assert!(
            ["green", "yellow"].contains(&summary["health"].as_str().unwrap_or("")),
            "{summary}"
        );

        let dialect = get(&app, "/dialect").await;
        let major: u64 = cluster
            .version()
            .split('.')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(
            dialect,
            json!({"distribution": expected.0, "major": major}),
            "read from the node's GET /"
        );
        get(&app, "/overview").await;
        let nodes = get(&app, "/nodes").await;
        let text = nodes.to_string();
        assert!(text.contains(expected.1), "{nodes}");
        let metrics = get(&app, "/metrics").await;
        assert_eq!(metrics["nodeCount"], 1, "{metrics}");
        get(&app, "/settings").await;
        get(&app, "/tasks").await;
        get(&app, "/allocation").await;
    }
}

#[tokio::test]
async fn an_index_is_created_listed_changed_and_deleted() {
    for distribution in DISTRIBUTIONS {
        let (app, _cluster) = console(distribution).await;
        create_index(&app, "compat-orders", 0).await;
        let listed = get(&app, "/indices?size=500").await;
        let row = listed["indices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["name"] == "compat-orders")
            .unwrap_or_else(|| panic!("compat-orders listed: {listed}"))
            .clone();
        assert_eq!(row["status"], "open", "{row}");
        get(&app, "/indices/compat-orders").await;
        put(
            &app,
            "/indices/compat-orders/settings",
            json!({"settings": {"index.refresh_interval": "5s"}}),
        )
        .await;
        for action in ["close", "open"] {
            let answer = post(
                &app,
                &format!("/indices/_actions/{action}"),
                json!({"indices": ["compat-orders"]}),
            )
            .await;
            assert_eq!(answer["results"][0]["ok"], true, "{action}: {answer}");
        }
        let (status, body) = send(
            app.client
                .delete(api(&app, "/indices/compat-orders?confirm=compat-orders")),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let listed = get(&app, "/indices?size=500").await;
        assert!(!listed.to_string().contains("compat-orders"), "{listed}");
    }
}

#[tokio::test]
async fn the_console_relays_to_the_real_cluster() {
    for distribution in DISTRIBUTIONS {
        let (app, _cluster) = console(distribution).await;
        create_index(&app, "compat-relay", 0).await;
        let (status, body) = send(
            app.client
                .put(api(&app, "/proxy/compat-relay/_doc/1?refresh=true"))
                .json(&json!({"sku": "a-1"})),
        )
        .await;
        assert_eq!(status, 201, "{body}");
        let (status, found) = send(
            app.client
                .post(api(&app, "/proxy/compat-relay/_search"))
                .json(&json!({"query": {"term": {"sku": "a-1"}}})),
        )
        .await;
        assert_eq!(status, 200, "{found}");
        assert_eq!(found["hits"]["total"]["value"], 1, "{found}");
    }
}

#[tokio::test]
async fn an_unassigned_replica_on_one_node_is_shown_and_explained() {
    for distribution in DISTRIBUTIONS {
        let (app, _cluster) = console(distribution).await;
        create_index(&app, "compat-replica", 1).await;
        let grid = get(&app, "/shards").await;
        let entry = grid["indices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|entry| entry["name"] == "compat-replica")
            .unwrap_or_else(|| panic!("compat-replica in {grid}"))
            .clone();
        let copies = entry["shards"].as_array().unwrap();
        assert_eq!(copies.len(), 2, "{entry}");
        assert!(
            copies
                .iter()
                .any(|copy| copy["primary"] == false && copy["state"] == "unassigned"),
            "a replica cannot be on the primary's only node: {entry}"
        );
        let explained = get(
            &app,
            "/shards/explain?index=compat-replica&shard=0&primary=false",
        )
        .await;
        assert!(
            explained.to_string().to_lowercase().contains("same"),
            "the reason names the same-node rule: {explained}"
        );
    }
}

#[tokio::test]
async fn aliases_and_templates_round_trip() {
    for distribution in DISTRIBUTIONS {
        let (app, _cluster) = console(distribution).await;
        create_index(&app, "compat-alias-1", 0).await;
        let applied = post(
            &app,
            "/aliases",
            json!({"actions": [{"add": {"index": "compat-alias-1", "alias": "compat-alias"}}]}),
        )
        .await;
        assert_eq!(applied["acknowledged"], true, "{applied}");
        let aliases = get(&app, "/aliases").await;
        assert!(aliases.to_string().contains("compat-alias"), "{aliases}");

        put(
            &app,
            "/templates/component/compat-base",
            json!({"definition": {"template": {"settings": {"index.number_of_shards": 1}}, "version": 1}, "create": true}),
        )
        .await;
        put(
            &app,
            "/templates/index/compat-logs",
            json!({"definition": {"index_patterns": ["compat-logs-*"], "priority": 7, "composed_of": ["compat-base"]}}),
        )
        .await;
        let template = get(&app, "/templates/index/compat-logs").await;
        assert!(template.to_string().contains("compat-base"), "{template}");
        let simulated = post(
            &app,
            "/templates/simulate",
            json!({"index": "compat-logs-1"}),
        )
        .await;
        assert!(simulated.to_string().contains("compat-logs"), "{simulated}");
        for tail in [
            "/templates/index/compat-logs?confirm=compat-logs",
            "/templates/component/compat-base?confirm=compat-base",
        ] {
            let (status, body) = send(app.client.delete(api(&app, tail))).await;
            assert_eq!(status, 200, "DELETE {tail}: {body}");
        }
    }
}

#[tokio::test]
async fn a_snapshot_is_taken_restored_and_deleted_in_a_file_system_repository() {
    for distribution in DISTRIBUTIONS {
        let (app, cluster) = console(distribution).await;
        create_index(&app, "compat-snap", 0).await;
        let (status, body) = send(
            app.client
                .put(api(&app, "/proxy/compat-snap/_doc/1?refresh=true"))
                .json(&json!({"sku": "kept"})),
        )
        .await;
        assert_eq!(status, 201, "{body}");

        let location = cluster.repo_path().join("compat-backups");
        let registered = put(
            &app,
            "/repositories/compat-backups",
            json!({"type": "fs", "settings": {"location": location.display().to_string()}}),
        )
        .await;
        assert_eq!(registered["acknowledged"], true, "{registered}");
        let verified = post(&app, "/repositories/compat-backups/verify", json!({})).await;
        assert_eq!(verified["verified"], true, "{verified}");
        assert_eq!(verified["nodes"].as_array().unwrap().len(), 1, "{verified}");

        let taken = post(
            &app,
            "/repositories/compat-backups/snapshots",
            json!({"name": "snap-1", "indices": ["compat-snap"], "includeGlobalState": false}),
        )
        .await;
        assert_eq!(taken["accepted"], true, "{taken}");
        let detail = until(&app, "/repositories/compat-backups/snapshots/snap-1", |d| {
            d["snapshot"]["state"] != "IN_PROGRESS"
        })
        .await;
        assert_eq!(detail["snapshot"]["state"], "SUCCESS", "{detail}");
        assert_eq!(detail["indices"], json!(["compat-snap"]), "{detail}");
        assert_eq!(detail["snapshot"]["shardsSuccessful"], 1, "{detail}");
        let listed = get(&app, "/repositories/compat-backups/snapshots").await;
        assert_eq!(listed["snapshots"][0]["name"], "snap-1", "{listed}");

        let (status, body) = send(
            app.client
                .delete(api(&app, "/indices/compat-snap?confirm=compat-snap")),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        post(
            &app,
            "/repositories/compat-backups/snapshots/snap-1/restore",
            json!({"indices": ["compat-snap"]}),
        )
        .await;
        let search = json!({"query": {"term": {"sku": "kept"}}});
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let (status, found) = send(
                app.client
                    .post(api(&app, "/proxy/compat-snap/_search"))
                    .json(&search),
            )
            .await;
            if status == 200 && found["hits"]["total"]["value"] == 1 {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the restored document within 60 s: {status} {found}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }

        for tail in [
            "/repositories/compat-backups/snapshots/snap-1?confirm=snap-1",
            "/repositories/compat-backups?confirm=compat-backups",
            "/indices/compat-snap?confirm=compat-snap",
        ] {
            let (status, body) = send(app.client.delete(api(&app, tail))).await;
            assert_eq!(status, 200, "DELETE {tail}: {body}");
        }
        let repositories = get(&app, "/repositories").await;
        assert!(
            !repositories.to_string().contains("compat-backups"),
            "{repositories}"
        );
    }
}

/// `GET tail` until `done` holds for the answer, for at most 60 s.
async fn until(app: &TestApp, tail: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let answer = get(app, tail).await;
        if done(&answer) {
            return answer;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "GET {tail} within 60 s: {answer}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn the_node_page_index_actions_settings_legacy_templates_and_tasks() {
    for distribution in DISTRIBUTIONS {
        let (app, cluster) = console(distribution).await;
        let grid = get(&app, "/shards").await;
        let id = grid["nodes"][0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{distribution:?}: a node in {grid}"))
            .to_owned();
        let detail = get(&app, &format!("/nodes/{id}")).await;
        assert_eq!(detail["id"], id.as_str(), "{detail}");
        let heap = detail["jvm"]["heapMaxBytes"].as_u64().unwrap_or(0);
        assert!(
            (256 << 20..=512 << 20).contains(&heap),
            "{distribution:?}: the harness's 512 MB heap: {detail}"
        );
        assert!(
            !detail["threadPools"]
                .as_array()
                .unwrap_or(&vec![])
                .is_empty(),
            "{distribution:?}: {detail}"
        );

        create_index(&app, "compat-actions", 0).await;
        for action in [
            "refresh",
            "flush",
            "clear_cache",
            "block_write",
            "unblock_write",
        ] {
            let answer = post(
                &app,
                &format!("/indices/_actions/{action}"),
                json!({"indices": ["compat-actions"]}),
            )
            .await;
            assert_eq!(
                answer["results"][0]["ok"], true,
                "{distribution:?} {action}: {answer}"
            );
        }
        let answer = post(
            &app,
            "/indices/_actions/forcemerge",
            json!({"indices": ["compat-actions"], "maxNumSegments": 1}),
        )
        .await;
        assert_eq!(answer["results"][0]["ok"], true, "forcemerge: {answer}");
        let (status, body) = send(
            app.client
                .delete(api(&app, "/indices/compat-actions?confirm=compat-actions")),
        )
        .await;
        assert_eq!(status, 200, "{body}");

        // Persistent and transient (deprecated on Elasticsearch 8, still accepted) settings.
        for (scope, key, value, reset) in [
            (
                "persistent",
                "cluster.max_shards_per_node",
                json!(2000),
                json!(null),
            ),
            (
                "transient",
                "indices.recovery.max_bytes_per_sec",
                json!("50mb"),
                json!(null),
            ),
        ] {
            let set = put(
                &app,
                "/settings",
                json!({"scope": scope, "key": key, "value": value}),
            )
            .await;
            assert_eq!(
                set[scope][key].as_str(),
                Some(value.to_string().trim_matches('"')),
                "{distribution:?}: {set}"
            );
            put(
                &app,
                "/settings",
                json!({"scope": scope, "key": key, "value": reset}),
            )
            .await;
        }
        let all = get(&app, "/settings?includeDefaults=true").await;
        assert!(
            all["defaults"].as_object().is_some_and(|d| d.len() > 50),
            "{distribution:?}: the defaults"
        );

        // A legacy template (deprecated on Elasticsearch 8, still served).
        put(
            &app,
            "/templates/legacy/compat-old",
            json!({"definition": {"index_patterns": ["compat-old-*"], "order": 3, "version": 7}}),
        )
        .await;
        let list = get(&app, "/templates").await;
        let legacy = list["legacy"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["name"] == "compat-old")
            .unwrap_or_else(|| panic!("{distribution:?}: compat-old in {list}"))
            .clone();
        assert_eq!(legacy["order"], 3, "{legacy}");
        assert_eq!(list["errors"], json!([]), "{distribution:?}: {list}");
        get(&app, "/templates/legacy/compat-old").await;
        let (status, body) = send(
            app.client
                .delete(api(&app, "/templates/legacy/compat-old?confirm=compat-old")),
        )
        .await;
        assert_eq!(status, 200, "{body}");

        // The task list holds at least the list call itself; one of them read back by id.
        let tasks = get(&app, "/tasks").await;
        assert_eq!(tasks["nodeFailures"], json!([]), "{tasks}");
        let first = tasks["tasks"][0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{distribution:?}: a task in {tasks}"))
            .to_owned();
        let (status, body) = send(app.client.get(api(&app, &format!("/tasks/{first}")))).await;
        // The listed task may have ended since: the cluster's 404 is an answer too.
        assert!(
            status == 200 || status == 404,
            "{distribution:?} GET /tasks/{first}: {status} {body}"
        );
        let _ = cluster;
    }
}

/// The secured Elasticsearch 8's `GET /` comes from the install script's `root-info` plugin (the
/// integ-test zip has no `rest-root` module): the documented fields, the node's own values.
#[tokio::test]
async fn the_secured_elasticsearch_8_root_document_is_the_nodes_own() {
    let (app, cluster) = console(Distribution::Elasticsearch8Secured).await;
    let security = cluster.security.as_ref().unwrap();
    let client = security.client();
    let root: Value = client
        .get(&cluster.url)
        .header("authorization", security.admin_authorization())
        .send()
        .await
        .unwrap()
        .error_for_status()
        .unwrap()
        .json()
        .await
        .unwrap();
    let port = cluster.url.rsplit(':').next().unwrap();
    assert_eq!(root["name"], format!("node-{port}"), "{root}");
    assert_eq!(root["cluster_name"], format!("test-{port}"), "{root}");
    let health = get(&app, "/overview").await;
    assert_eq!(root["cluster_name"], health["clusterName"], "{root}");
    let uuid = root["cluster_uuid"].as_str().unwrap_or_default();
    assert!(uuid.len() >= 20 && uuid != "_na_", "{root}");
    let version = &root["version"];
    assert_eq!(version["number"], cluster.version().as_str(), "{root}");
    assert_eq!(version["build_flavor"], "default", "{root}");
    assert_eq!(version["build_snapshot"], false, "{root}");
    for field in [
        "build_type",
        "build_hash",
        "build_date",
        "lucene_version",
        "minimum_wire_compatibility_version",
        "minimum_index_compatibility_version",
    ] {
        assert!(
            version[field]
                .as_str()
                .is_some_and(|value| !value.is_empty()),
            "{field}: {root}"
        );
    }
    assert_eq!(root["tagline"], "You Know, for Search", "{root}");

    let head = client
        .head(&cluster.url)
        .header("authorization", security.admin_authorization())
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), 200);
    let anonymous = client.get(&cluster.url).send().await.unwrap();
    assert_eq!(anonymous.status(), 401, "x-pack security still asks who");
}

/// The console with a credential of the `monitor` privileges only (a read-only cluster in
/// admin-console's config) on the secured Elasticsearch 8: the views answer; what the role does
/// not grant is the cluster's 403 with its reason, not an empty page.
#[tokio::test]
async fn a_monitor_only_credential_sees_the_views_and_the_clusters_403() {
    let (_admin, cluster) = console(Distribution::Elasticsearch8Secured).await;
    let security = cluster.security.as_ref().unwrap();
    let client = security.client();
    for (path, body) in [
        (
            "/_security/role/compat_console_viewer",
            json!({"cluster": ["monitor"],
                   "indices": [{"names": ["*"], "privileges": ["monitor", "view_index_metadata"]}]}),
        ),
        (
            "/_security/user/compat_console_viewer",
            json!({"password": "viewer-password-1", "roles": ["compat_console_viewer"]}),
        ),
    ] {
        let answer = client
            .put(format!("{}{path}", cluster.url))
            .header("authorization", security.admin_authorization())
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(answer.status().is_success(), "PUT {path}: {answer:?}");
    }
    let app = spawn_app(&format!(
        "clusters:\n{}    read_only: true\n    auth:\n      username: compat_console_viewer\n      \
         password: 'viewer-password-1'\n    tls:\n      ca_file: {}\n",
        cluster_yaml("real", &cluster.url),
        security.ca_file.display()
    ))
    .await;
    let (status, list) = app.get_json("/api/clusters").await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["clusters"][0]["reachable"], true, "{list}");
    assert_eq!(
        list["clusters"][0]["version"],
        cluster.version().as_str(),
        "{list}"
    );
    for tail in [
        "/dialect",
        "/overview",
        "/nodes",
        "/metrics",
        "/allocation",
        "/indices",
        "/shards",
        "/templates",
        "/aliases",
        "/tasks",
        "/settings",
    ] {
        get(&app, tail).await;
    }
    // Listing repositories needs monitor_snapshot (or more), which the role lacks.
    let (status, body) = send(app.client.get(api(&app, "/repositories"))).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["code"], "rejected_by_cluster", "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("cluster:admin/repository/get") && message.contains("monitor_snapshot"),
        "the cluster's reason: {body}"
    );
}
