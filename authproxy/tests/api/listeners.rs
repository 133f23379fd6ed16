//! The forward_auth check (identity headers and the managed cluster
//! credential) and `/_metrics` are not served on the public listener, which browsers reach
//! (sign-in, callback, logout); only on the internal listener (`server.internal_port`) that the
//! front door and the scraper use and no Ingress publishes.

use crate::app::{ANN_PASSWORD, Cluster, Users, spawn_app};
use crate::real_security::Flavor;
use crate::support::basic;

#[tokio::test]
async fn the_check_is_answered_on_the_internal_listener_only() {
    let cluster = Cluster::of(Flavor::Elasticsearch).await;
    let local = Users::new();
    let ann = &local.ann;
    let users = cluster.search_yaml(&local);
    // This client (127.0.0.1) is a trusted peer, as any client behind the front door is.
    let app = spawn_app(&format!(
        "server: {{host: 127.0.0.1, port: 0, mode: forward_auth, trusted_proxies: [127.0.0.1]}}\n{users}"
    ))
    .await;
    let ask = |url: String| {
        app.client
            .get(url)
            .header("authorization", basic(ann, ANN_PASSWORD))
            .send()
    };
    for path in ["/auth/check", "/", "/_metrics"] {
        let response = ask(app.public_url(path)).await.unwrap();
        let status = response.status().as_u16();
        let leaked: Vec<_> = ["authorization", "x-auth-request-user"]
            .into_iter()
            .filter(|name| response.headers().contains_key(*name))
            .collect();
        assert_eq!(
            (status, leaked),
            (404, vec![]),
            "{path} on the public listener"
        );
    }
    assert!(
        cluster.cluster_user(ann).await.is_none(),
        "no cluster user was made"
    );

    // The front door's way in: the internal listener.
    let check = format!("{}/auth/check", app.internal);
    let response = ask(check).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["x-auth-request-user"], ann.as_str());
    let credential = response.headers()["authorization"].to_str().unwrap();
    assert_eq!(cluster.node.who(credential).await.0, 200);
    let metrics = app
        .client
        .get(format!("{}/_metrics", app.internal))
        .send()
        .await
        .unwrap();
    assert_eq!(metrics.status(), 200);
}

#[tokio::test]
async fn standalone_serves_metrics_on_the_internal_listener_and_no_check_there() {
    let users = Users::new().yaml_towards("http://127.0.0.1:1");
    let app = spawn_app(&format!(
        "server: {{host: 127.0.0.1, port: 0, mode: standalone}}\n{users}"
    ))
    .await;
    let internal = |path: &str| app.client.get(format!("{}{path}", app.internal)).send();
    assert_eq!(internal("/_metrics").await.unwrap().status(), 200);
    assert_eq!(internal("/auth/check").await.unwrap().status(), 404);
}
