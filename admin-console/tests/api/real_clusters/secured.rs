//! The secured Elasticsearch 8: its root document, and a monitor-only credential.

use super::*;

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
