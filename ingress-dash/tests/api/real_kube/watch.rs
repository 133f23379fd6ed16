//! The initial list and the live watch of Ingresses, and their backends from Services and
//! EndpointSlices, as the real API server lists, versions and streams them.

use serde_json::json;

use super::{
    ENDPOINT_SLICE, INGRESS, SERVICE, WAIT, endpoint_slice, ingress, names, record, service,
    spawn_shared,
};

#[tokio::test]
async fn ingresses_are_listed_then_created_modified_and_deleted_live_in_order() {
    let app = spawn_shared("", "").await;
    let kube = &app.kube;
    let ns = "rk-watch";
    kube.namespaces(&[ns]).await;
    let alpha = kube
        .put(INGRESS, ingress(ns, "alpha", "alpha.example.com", "web"))
        .await;
    kube.put(INGRESS, ingress(ns, "beta", "beta.example.com", "web"))
        .await;

    let mut stream = app.stream(&format!("?namespaces={ns}"), None).await;
    let first = stream.next_event(WAIT).await.expect("a snapshot");
    assert_eq!(first.event, "snapshot");
    assert_eq!(names(&first.data), ["alpha", "beta"]);
    assert_eq!(first.data["errors"], json!([]));
    let listed = record(&first.data, "Ingress", "alpha");
    // The record carries what the API server assigned.
    assert_eq!(listed["uid"], alpha["metadata"]["uid"]);
    assert_eq!(
        listed["resourceVersion"],
        alpha["metadata"]["resourceVersion"]
    );
    assert_eq!(listed["hosts"], json!(["alpha.example.com"]));

    let gamma = kube
        .put(INGRESS, ingress(ns, "gamma", "gamma.example.com", "web"))
        .await;
    let modified = kube
        .put(INGRESS, ingress(ns, "beta", "beta2.example.com", "web"))
        .await;
    assert!(kube.delete(INGRESS, ns, "alpha").await);
    let events = stream.events_until(WAIT, |events| events.len() == 3).await;
    let seen: Vec<(&str, &str)> = events
        .iter()
        .map(|event| (event.event.as_str(), event.data["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        seen,
        [
            ("added", "gamma"),
            ("modified", "beta"),
            ("deleted", "alpha")
        ]
    );
    assert_eq!(events[0].data["uid"], gamma["metadata"]["uid"]);
    assert_eq!(events[1].data["hosts"], json!(["beta2.example.com"]));
    assert_eq!(
        events[1].data["resourceVersion"],
        modified["metadata"]["resourceVersion"]
    );
    let ids: Vec<u64> = events.iter().map(|e| e.id.parse().unwrap()).collect();
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "{ids:?}");

    // The snapshot from the watcher's memory says the same, with the stream position.
    let (status, body) = app
        .get_json(&format!("/api/ingresses?namespaces={ns}"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(names(&body), ["beta", "gamma"]);
    assert_eq!(body["eventId"], json!(ids[2]), "{body}");
    // Nothing else follows: no event repeated.
    assert!(
        stream
            .next_event(std::time::Duration::from_secs(2))
            .await
            .is_none()
    );
}

#[tokio::test]
async fn the_cluster_wide_watcher_lists_every_namespace_and_follows_namespaces_created_later() {
    let app = spawn_shared("", "").await;
    let kube = &app.kube;
    kube.namespaces(&["rk-wide-a"]).await;
    kube.put(INGRESS, ingress("rk-wide-a", "web", "a.example.com", "web"))
        .await;
    let mut stream = app.stream("", None).await;
    let first = stream.next_event(WAIT).await.expect("a snapshot");
    assert_eq!(first.event, "snapshot");
    assert!(
        first.data["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|item| item["namespace"] == "rk-wide-a"),
        "{}",
        first.data
    );
    // Other tests write to the shared cluster too: wait for this namespace's event.
    kube.namespaces(&["rk-wide-b"]).await;
    kube.put(INGRESS, ingress("rk-wide-b", "web", "b.example.com", "web"))
        .await;
    let events = stream
        .events_until(WAIT, |events| {
            events
                .iter()
                .any(|event| event.data["namespace"] == "rk-wide-b")
        })
        .await;
    let added = events.last().unwrap();
    assert_eq!(added.event, "added");
    assert_eq!(added.data["hosts"], json!(["b.example.com"]));
}

#[tokio::test]
async fn backends_follow_real_services_and_endpoint_slices() {
    let app = spawn_shared("", "").await;
    let kube = &app.kube;
    let ns = "rk-backends";
    kube.namespaces(&[ns]).await;
    let stored = kube.put(SERVICE, service(ns, "web")).await;
    // The API server allocated the Service a cluster IP from its range.
    assert!(
        stored["spec"]["clusterIP"]
            .as_str()
            .is_some_and(|ip| ip.starts_with("10.0.0.")),
        "{stored}"
    );
    kube.put(ENDPOINT_SLICE, endpoint_slice(ns, "web", 2, false))
        .await;
    kube.put(INGRESS, ingress(ns, "web", "web.example.com", "web"))
        .await;
    kube.put(
        INGRESS,
        ingress(ns, "orphan", "orphan.example.com", "nowhere"),
    )
    .await;

    let mut stream = app.stream(&format!("?namespaces={ns}"), None).await;
    let first = stream.next_event(WAIT).await.expect("a snapshot");
    assert_eq!(first.event, "snapshot");
    assert_eq!(first.data["errors"], json!([]));
    assert_eq!(
        record(&first.data, "Ingress", "web")["backends"],
        json!([{"service": "web", "namespace": ns, "port": 80, "state": "no_ready_endpoints",
                "readyEndpoints": 0, "totalEndpoints": 2}])
    );
    assert_eq!(
        record(&first.data, "Ingress", "orphan")["backends"][0]["state"],
        "missing_service"
    );

    // The pods become ready: one `modified`.
    kube.put(ENDPOINT_SLICE, endpoint_slice(ns, "web", 2, true))
        .await;
    let event = stream.next_event(WAIT).await.expect("an event");
    assert_eq!(
        (event.event.as_str(), event.data["name"].as_str()),
        ("modified", Some("web")),
        "{:?}",
        event.data
    );
    assert_eq!(event.data["backends"][0]["state"], "ready");
    assert_eq!(event.data["backends"][0]["readyEndpoints"], 2);
    // No second `modified` follows: the next event is a change made afterwards. The same
    // slice written again (a new resourceVersion, the same endpoints) sends nothing either.
    let mut same = endpoint_slice(ns, "web", 2, true);
    same["metadata"]["annotations"] = json!({"touched": "again"});
    kube.put(ENDPOINT_SLICE, same).await;
    kube.put(
        INGRESS,
        ingress(ns, "sentinel", "sentinel.example.com", "web"),
    )
    .await;
    let next = stream.next_event(WAIT).await.expect("an event");
    assert_eq!(
        (next.event.as_str(), next.data["name"].as_str()),
        ("added", Some("sentinel"))
    );
    assert_eq!(next.data["backends"][0]["state"], "ready");
    // The snapshot says the same.
    let (status, body) = app
        .get_json(&format!("/api/ingresses?namespaces={ns}"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        record(&body, "Ingress", "web")["backends"][0]["state"],
        "ready"
    );

    // The missing Service is created: the orphan's backend has a Service without endpoints.
    kube.put(SERVICE, service(ns, "nowhere")).await;
    let event = stream.next_event(WAIT).await.expect("an event");
    assert_eq!(
        (event.event.as_str(), event.data["name"].as_str()),
        ("modified", Some("orphan"))
    );
    assert_eq!(event.data["backends"][0]["state"], "no_ready_endpoints");
    // Its slice, with no endpoints at all: the API server answers `"endpoints": null`.
    let empty = kube
        .put(ENDPOINT_SLICE, endpoint_slice(ns, "nowhere", 0, false))
        .await;
    assert_eq!(empty["endpoints"], json!(null), "{empty}");
    // Nothing a client sees changed; the next change still arrives, the slice understood.
    kube.put(ENDPOINT_SLICE, endpoint_slice(ns, "nowhere", 1, true))
        .await;
    let event = stream.next_event(WAIT).await.expect("an event");
    assert_eq!(
        (event.event.as_str(), event.data["name"].as_str()),
        ("modified", Some("orphan"))
    );
    assert_eq!(event.data["backends"][0]["state"], "ready");
    assert_eq!(event.data["backends"][0]["totalEndpoints"], 1);

    // The Service goes (its slice stays: no garbage collector runs): missing, for both
    // ingresses that route to it.
    assert!(kube.delete(SERVICE, ns, "web").await);
    let mut states = Vec::new();
    while states.len() < 2 {
        let event = stream.next_event(WAIT).await.expect("an event");
        assert_eq!(event.event, "modified");
        states.push((
            event.data["name"].as_str().unwrap().to_owned(),
            event.data["backends"][0]["state"].clone(),
        ));
    }
    states.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        states,
        [
            ("sentinel".to_owned(), json!("missing_service")),
            ("web".to_owned(), json!("missing_service"))
        ]
    );
}

#[tokio::test]
async fn backends_can_be_switched_off() {
    let app = spawn_shared("", "backends:\n  enabled: false\n").await;
    let ns = "rk-backends-off";
    app.kube.namespaces(&[ns]).await;
    app.kube.put(SERVICE, service(ns, "web")).await;
    app.kube
        .put(INGRESS, ingress(ns, "web", "web.example.com", "web"))
        .await;
    let (status, body) = app
        .get_json(&format!("/api/ingresses?namespaces={ns}"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(record(&body, "Ingress", "web")["backends"], json!([]));
}

/// Shapes the real API server accepts and stores with fields left out: an ingress with only a
/// default backend (a named Service port), one with a resource backend and a rule without a
/// host, a TLS entry without hosts, and a headless Service without ports behind a backend.
#[tokio::test]
async fn ingresses_with_the_fields_the_server_leaves_out_are_records() {
    let app = spawn_shared("", "").await;
    let kube = &app.kube;
    let ns = "rk-shapes";
    kube.namespaces(&[ns]).await;
    kube.put(
        SERVICE,
        json!({"metadata": {"name": "headless", "namespace": ns},
               "spec": {"clusterIP": "None", "selector": {"app": "headless"}}}),
    )
    .await;
    kube.put(
        INGRESS,
        json!({"metadata": {"name": "fallback", "namespace": ns},
               "spec": {"defaultBackend": {"service": {"name": "headless", "port": {"name": "http"}}},
                        "tls": [{"secretName": "fallback-tls"}]}}),
    )
    .await;
    let stored = kube
        .put(
            INGRESS,
            json!({"metadata": {"name": "bucket", "namespace": ns},
                   "spec": {"rules": [{"http": {"paths": [
                       {"path": "/static", "pathType": "ImplementationSpecific",
                        "backend": {"resource": {"apiGroup": "k8s.example.com", "kind": "StorageBucket", "name": "static"}}},
                   ]}}]}}),
        )
        .await;
    assert!(stored["spec"]["rules"][0].get("host").is_none(), "{stored}");
    let (status, body) = app
        .get_json(&format!("/api/ingresses?namespaces={ns}"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["errors"], json!([]));
    let fallback = record(&body, "Ingress", "fallback");
    assert_eq!(fallback["hosts"], json!([]), "{fallback}");
    assert_eq!(
        fallback["defaultBackend"],
        json!({"service": {"name": "headless", "port": "http"}}),
        "{fallback}"
    );
    assert_eq!(
        fallback["tls"],
        json!([{"secretName": "fallback-tls"}]),
        "{fallback}"
    );
    let backend = &fallback["backends"][0];
    assert_eq!(
        (backend["service"].as_str(), backend["port"].as_str()),
        (Some("headless"), Some("http")),
        "{fallback}"
    );
    assert_eq!(backend["state"], "no_ready_endpoints", "{fallback}");
    let bucket = record(&body, "Ingress", "bucket");
    assert_eq!(bucket["hosts"], json!([]), "{bucket}");
    assert_eq!(
        bucket["rules"][0]["paths"][0]["backend"],
        json!({"resource": {"apiGroup": "k8s.example.com", "kind": "StorageBucket", "name": "static"}}),
        "{bucket}"
    );
    assert_eq!(bucket["backends"], json!([]), "{bucket}");
}
