//! Who may do what (`access:`): identity headers believed only from trusted proxies, roles from
//! groups, per-cluster mappings, read-only clusters, the read-only console set and its path
//! tricks, the allocation lock; against the shared real OpenSearch 2 node through a recording
//! proxy of each test's own (index names `access-…`). What a refused call would have sent is the
//! proxy's record. The allocation lock is cluster-wide and other suites move it: an allowed
//! lock change is seen at the proxy, which answers it 503 instead of letting it reach the node.

use reqwest::RequestBuilder;
use search_test_server::Proxy;
use serde_json::{Value, json};
use test_support::Distribution;

use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::real::{proxy_before, sent, shared};
use crate::support::send;

/// A caller as authproxy's forward_auth describes it.
pub(crate) struct Caller {
    pub(crate) user: &'static str,
    pub(crate) groups: &'static str,
}

pub(crate) const VIEWER: Caller = Caller {
    user: "vera",
    groups: "staff",
};
pub(crate) const OPERATOR: Caller = Caller {
    user: "otto",
    groups: "staff,sre-oncall",
};
pub(crate) const ADMIN: Caller = Caller {
    user: "ada",
    groups: "dba",
};

pub(crate) fn as_caller(request: RequestBuilder, caller: &Caller) -> RequestBuilder {
    request
        .header("x-auth-request-user", caller.user)
        .header(
            "x-auth-request-email",
            format!("{}@example.com", caller.user),
        )
        .header("x-auth-request-groups", caller.groups)
}

/// trusted_headers behind 127.0.0.1 (the tests' own address), sre-* operator, dba admin.
pub(crate) fn trusted_yaml(clusters: &str) -> String {
    format!(
        "  trusted_proxies: [127.0.0.1]
access:
  mode: trusted_headers
  roles:
    - {{group: 'sre-*', role: operator}}
    - {{group: dba, role: admin}}
clusters:
{clusters}"
    )
}

fn proxy(app: &TestApp, cluster: &str, tail: &str) -> String {
    app.url(&format!("/api/clusters/{cluster}/proxy{tail}"))
}

/// A recording proxy of the test's own before the shared OpenSearch 2 node.
async fn node() -> Proxy {
    proxy_before(shared(Distribution::OpenSearch2).await)
}

/// The lock changes the proxy received (answered 503, the node untouched).
fn lock_changes(recorder: &Proxy) -> usize {
    sent(recorder, "/_cluster/settings")
        .iter()
        .filter(|r| r.method == "PUT")
        .count()
}

#[tokio::test]
async fn identity_headers_from_an_untrusted_peer_are_ignored() {
    let recorder = node().await;
    let app = spawn_app(&format!(
        "  trusted_proxies: [10.0.0.0/8]
access: {{mode: trusted_headers, default_role: admin}}
clusters:
{}",
        cluster_yaml("prod", &recorder.url)
    ))
    .await;
    for path in [
        "/api/whoami",
        "/api/clusters",
        "/api/clusters/prod/overview",
        "/api/clusters/prod/proxy/_cluster/health",
        "/",
    ] {
        let (status, body) = send(as_caller(app.client.get(app.url(path)), &ADMIN)).await;
        assert_eq!(status, 401, "{path}");
        assert_eq!(body["error"]["code"], "unauthenticated", "{path}");
    }
    let (status, _) = send(as_caller(
        app.client
            .put(app.url("/api/clusters/prod/allocation"))
            .json(&json!({"enable": "primaries"})),
        &ADMIN,
    ))
    .await;
    assert_eq!(status, 401);
    // The liveness probe and the scrape (on the internal listener) stay open.
    assert_eq!(
        app.client
            .get(app.url("/api/live"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(
        app.client
            .get(format!("{}/_metrics", app.internal))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
}

#[tokio::test]
async fn a_trusted_proxy_must_name_a_user() {
    let recorder = node().await;
    let app = spawn_app(&trusted_yaml(&cluster_yaml("prod", &recorder.url))).await;
    let (status, body) = send(
        app.client
            .get(app.url("/api/whoami"))
            .header("x-auth-request-groups", "dba"),
    )
    .await;
    assert_eq!(status, 401);
    assert_eq!(body["error"]["code"], "unauthenticated");
    let (status, _) = send(
        app.client
            .get(app.url("/api/whoami"))
            .header("x-auth-request-user", "ada")
            .header("x-auth-request-user", "root"),
    )
    .await;
    assert_eq!(status, 401, "a user header sent twice is not guessed at");
}

#[tokio::test]
async fn groups_map_to_roles_per_cluster_and_read_only_caps_them() {
    let recorder = node().await;
    let clusters = format!(
        "{}{}    read_only: true\n{}    access:\n      default_role: none\n      roles: [{{group: team-a, role: operator}}]\n",
        cluster_yaml("prod", &recorder.url),
        cluster_yaml("archive", &recorder.url),
        cluster_yaml("team", &recorder.url),
    );
    let app = spawn_app(&trusted_yaml(&clusters)).await;
    let whoami = |caller: &'static Caller| {
        let request = as_caller(app.client.get(app.url("/api/whoami")), caller);
        async move { send(request).await }
    };
    let (status, body) = whoami(&VIEWER).await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"mode": "trusted_headers", "user": "vera", "email": "vera@example.com",
               "groups": ["staff"], "roles": {"prod": "viewer", "archive": "viewer"}})
    );
    assert_eq!(
        whoami(&OPERATOR).await.1["roles"],
        json!({"prod": "operator", "archive": "viewer"})
    );
    assert_eq!(
        whoami(&ADMIN).await.1["roles"],
        json!({"prod": "admin", "archive": "viewer"})
    );
    const TEAM: Caller = Caller {
        user: "tim",
        groups: "team-a",
    };
    assert_eq!(
        whoami(&TEAM).await.1["roles"],
        json!({"prod": "viewer", "archive": "viewer", "team": "operator"})
    );

    // A cluster the caller may not see is hidden: not listed, and 404 like an unknown id.
    let (_, list) = send(as_caller(app.client.get(app.url("/api/clusters")), &ADMIN)).await;
    let ids: Vec<&str> = list["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cluster| cluster["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["prod", "archive"]);
    for path in [
        "/api/clusters/team",
        "/api/clusters/team/proxy/_cluster/health",
    ] {
        let (status, body) = send(as_caller(app.client.get(app.url(path)), &ADMIN)).await;
        assert_eq!(status, 404, "{path}");
        assert_eq!(body["error"]["code"], "unknown_cluster");
    }
    let (status, _) = send(as_caller(
        app.client
            .get(app.url("/api/clusters/team/proxy/_cluster/health")),
        &TEAM,
    ))
    .await;
    assert_eq!(status, 200);

    // Read-only: even dba is a viewer on archive.
    let (status, body) = send(as_caller(
        app.client.put(proxy(&app, "archive", "/new-index")),
        &ADMIN,
    ))
    .await;
    assert_eq!(status, 403);
    assert_eq!(body["error"]["code"], "forbidden");
    assert_eq!(
        body["error"]["message"],
        "This needs the admin role on cluster archive; you have viewer."
    );
}

#[tokio::test]
async fn a_viewer_may_use_every_read_only_endpoint_but_not_close_an_index() {
    let recorder = node().await;
    crate::support::seed_indices(&recorder.url, "access-books", 1, |_| 3).await;
    let app = spawn_app(&trusted_yaml(&cluster_yaml("prod", &recorder.url))).await;
    let search = json!({"query": {"match_all": {}}});
    let ndjson = "{}\n{\"query\":{\"match_all\":{}}}\n";
    for (tail, body) in [
        ("/_search", search.to_string()),
        ("/access-books-0000/_search?size=1", search.to_string()),
        ("/_count", search.to_string()),
        ("/access-books-0000/_count", search.to_string()),
        (
            "/_mget",
            json!({"docs": [{"_index": "access-books-0000", "_id": "1"}]}).to_string(),
        ),
        (
            "/access-books-0000/_mget",
            json!({"ids": ["1"]}).to_string(),
        ),
        ("/access-books-0000/_field_caps?fields=*", String::new()),
        ("/_field_caps?fields=n", String::new()),
        ("/access-books-0000/_validate/query", search.to_string()),
        ("/_validate/query", search.to_string()),
        ("/access-books-0000/_explain/1", search.to_string()),
    ] {
        let response = as_caller(
            app.client
                .post(proxy(&app, "prod", tail))
                .header("content-type", "application/json")
                .body(body),
            &VIEWER,
        )
        .send()
        .await
        .unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        assert_ne!(status, 403, "{tail}: {text}");
        assert!(!text.contains("\"forbidden\""), "{tail}: {text}");
    }
    for tail in ["/_msearch", "/access-books-0000/_msearch"] {
        let response = as_caller(
            app.client
                .post(proxy(&app, "prod", tail))
                .header("content-type", "application/x-ndjson")
                .body(ndjson),
            &VIEWER,
        )
        .send()
        .await
        .unwrap();
        assert_eq!(response.status(), 200, "{tail}");
    }
    let (status, body) = send(as_caller(
        app.client
            .post(proxy(&app, "prod", "/access-books-0000/_search"))
            .json(&search),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 200);
    assert_eq!(body["hits"]["total"]["value"], 3);
    assert!(
        sent(&recorder, "/access-books-0000/_close").is_empty(),
        "the refused close never reached the node"
    );

    let (status, body) = send(as_caller(
        app.client
            .post(proxy(&app, "prod", "/access-books-0000/_close")),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 403);
    assert_eq!(
        body["error"],
        json!({"code": "forbidden",
               "message": "This needs the operator role on cluster prod; you have viewer."})
    );
    // Index writes and deletions are admin's.
    for (caller, expected) in [(&VIEWER, 403), (&OPERATOR, 403)] {
        let (status, body) = send(as_caller(
            app.client.delete(proxy(&app, "prod", "/access-books-0000")),
            caller,
        ))
        .await;
        assert_eq!(status, expected, "{}", caller.user);
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("This needs the admin role on cluster prod")
        );
    }
    let (status, _) = send(as_caller(
        app.client
            .post(proxy(&app, "prod", "/access-books-0000/_close")),
        &OPERATOR,
    ))
    .await;
    assert_eq!(status, 200, "an operator closes the index");
    let (status, _) = send(as_caller(
        app.client
            .post(proxy(&app, "prod", "/access-books-0000/_open")),
        &OPERATOR,
    ))
    .await;
    assert_eq!(status, 200, "and opens it again");
}

#[tokio::test]
async fn sql_is_read_only_for_a_select_and_its_body_reaches_the_cluster_whole() {
    let recorder = node().await;
    let app = spawn_app(&trusted_yaml(&cluster_yaml("prod", &recorder.url))).await;
    let select =
        json!({"query": "SELECT * FROM logs WHERE a = 'x;y' LIMIT 5", "fetch_size": 5}).to_string();
    for tail in ["/_sql?format=json", "/_plugins/_sql", "/_opendistro/_sql"] {
        let (status, body) = send(as_caller(
            app.client
                .post(proxy(&app, "prod", tail))
                .header("content-type", "application/json")
                .body(select.clone()),
            &VIEWER,
        ))
        .await;
        // A quoted ';' is refused rather than parsed: only plain single statements are read-only.
        assert_eq!(status, 403, "{tail}: {body}");
    }
    assert!(
        !recorder.requests().iter().any(|r| r.method == "POST"),
        "nothing refused reached the node"
    );
    let select = json!({"query": "SELECT * FROM logs LIMIT 5", "fetch_size": 5}).to_string();
    for tail in ["/_sql?format=json", "/_plugins/_sql", "/_opendistro/_sql"] {
        let (status, body) = send(as_caller(
            app.client
                .post(proxy(&app, "prod", tail))
                .header("content-type", "application/json")
                .body(select.clone()),
            &VIEWER,
        ))
        .await;
        // The node may have no SQL plugin: whatever it answers, the console let it through.
        assert_ne!(status, 403, "{tail}: {body}");
        let path = tail.split('?').next().unwrap();
        let relayed = sent(&recorder, path);
        assert_eq!(relayed.len(), 1, "{tail}: {relayed:?}");
        assert_eq!(relayed[0].method, "POST");
        assert_eq!(
            relayed[0].body,
            Some(serde_json::from_str::<Value>(&select).unwrap()),
            "{tail}: the body is relayed whole"
        );
        recorder.clear_requests();
    }
    for body in [
        json!({"query": "DELETE FROM logs"}).to_string(),
        r#"{"query":"SELECT 1","query":"DELETE FROM logs"}"#.to_owned(),
        "not json".to_owned(),
        json!({"query": format!("SELECT 1 {}", " ".repeat(70_000))}).to_string(),
    ] {
        let (status, answer) = send(as_caller(
            app.client
                .post(proxy(&app, "prod", "/_plugins/_sql"))
                .header("content-type", "application/json")
                .body(body),
            &VIEWER,
        ))
        .await;
        assert_eq!(status, 403, "{answer}");
        assert_eq!(answer["error"]["code"], "forbidden");
    }
    let (status, _) = send(as_caller(
        app.client
            .post(proxy(&app, "prod", "/_sql?sql=DELETE%20FROM%20logs"))
            .header("content-type", "application/json")
            .body(select.clone()),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 403, "a sql= parameter is not read-only");
    assert!(
        !recorder.requests().iter().any(|r| r.method == "POST"),
        "nothing refused reached the node"
    );
    // An admin's SQL is not read by the console at all.
    let (status, body) = send(as_caller(
        app.client
            .post(proxy(&app, "prod", "/_plugins/_sql"))
            .body(json!({"query": "DELETE FROM logs"}).to_string()),
        &ADMIN,
    ))
    .await;
    assert_ne!(status, 403, "{body}");
    assert_eq!(sent(&recorder, "/_plugins/_sql").len(), 1);
}

#[tokio::test]
async fn path_tricks_never_pass_as_read_only() {
    let recorder = node().await;
    let app = spawn_app(&trusted_yaml(&cluster_yaml("prod", &recorder.url))).await;
    for tail in [
        "/_search_evil",
        "/x/_searchx",
        "/x/_search/%2e%2e/_delete",
        "/x/_search/%252e%252e/_close",
        "/x%2F_search",
        "/x//_search",
        "/x/_search/extra",
        "/_cluster/_search",
    ] {
        let (status, body) = send(as_caller(
            app.client.post(proxy(&app, "prod", tail)),
            &VIEWER,
        ))
        .await;
        assert_eq!(status, 403, "{tail}: {body}");
        assert_eq!(body["error"]["code"], "forbidden", "{tail}");
    }
    // A literal `..` (which a client library would normalise away) over a raw connection.
    let host_port = app.address.trim_start_matches("http://").to_owned();
    let raw = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(&host_port).unwrap();
        write!(
            stream,
            "POST /api/clusters/prod/proxy/x/_search/../_delete HTTP/1.0\r\nHost: {host_port}\r\n\
             x-requested-by: admin-console\r\nx-auth-request-user: vera\r\n\
             Content-Length: 0\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    })
    .await
    .unwrap();
    assert!(raw.starts_with("HTTP/1.0 403"), "{raw}");
    assert!(raw.contains("\"forbidden\""), "{raw}");
    let reached: Vec<_> = recorder
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .collect();
    assert!(reached.is_empty(), "refused, yet sent: {reached:?}");
}

#[tokio::test]
async fn the_allocation_lock_needs_operator() {
    let recorder = node().await;
    let app = spawn_app(&trusted_yaml(&cluster_yaml("prod", &recorder.url))).await;
    let put = |caller: &'static Caller| {
        as_caller(
            app.client
                .put(app.url("/api/clusters/prod/allocation"))
                .json(&json!({"enable": "primaries"})),
            caller,
        )
    };
    let (status, body) = send(put(&VIEWER)).await;
    assert_eq!(status, 403);
    assert_eq!(
        body["error"]["message"],
        "This needs the operator role on cluster prod; you have viewer."
    );
    assert_eq!(lock_changes(&recorder), 0);
    recorder.set_unavailable(true);
    let (status, body) = send(put(&OPERATOR)).await;
    recorder.set_unavailable(false);
    assert_eq!(status, 502, "passed the role check, sent: {body}");
    assert_eq!(lock_changes(&recorder), 1);
    let (status, _) = send(as_caller(
        app.client.get(app.url("/api/clusters/prod/allocation")),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 200, "every view is a viewer's");
}

#[tokio::test]
async fn open_mode_is_admin_except_on_read_only_clusters() {
    let recorder = node().await;
    let app = spawn_app(&format!(
        "clusters:\n{}{}    read_only: true\n",
        cluster_yaml("prod", &recorder.url),
        cluster_yaml("archive", &recorder.url)
    ))
    .await;
    let (status, body) = app.get_json("/api/whoami").await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"mode": "open", "user": null, "email": null, "groups": [],
               "roles": {"prod": "admin", "archive": "viewer"}})
    );
    // Identity headers mean nothing in open mode.
    let (_, body) = send(as_caller(app.client.get(app.url("/api/whoami")), &ADMIN)).await;
    assert_eq!(body["user"], Value::Null);
    let lock = |cluster: &str| {
        app.client
            .put(app.url(&format!("/api/clusters/{cluster}/allocation")))
            .json(&json!({"enable": "all"}))
    };
    recorder.set_unavailable(true);
    assert_eq!(send(lock("prod")).await.0, 502, "sent");
    recorder.set_unavailable(false);
    assert_eq!(lock_changes(&recorder), 1);
    let (status, body) = send(lock("archive")).await;
    assert_eq!(status, 403);
    assert_eq!(
        body["error"]["message"],
        "This needs the operator role on cluster archive; you have viewer."
    );
    assert_eq!(lock_changes(&recorder), 1, "the archive's was not sent");
    let (status, _) = send(
        app.client
            .post(proxy(&app, "archive", "/_search"))
            .json(&json!({})),
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn only_an_admin_may_make_the_console_call_a_metrics_server() {
    let recorder = node().await;
    let app = spawn_app(&trusted_yaml(&cluster_yaml("prod", &recorder.url))).await;
    let validate = |caller: &'static Caller| {
        as_caller(
            app.client
                .post(app.url("/api/metrics_server/validate"))
                .json(&json!({"url": "http://127.0.0.1:1", "job_name": null, "labels": {}})),
            caller,
        )
    };
    for caller in [&VIEWER, &OPERATOR] {
        let (status, body) = send(validate(caller)).await;
        assert_eq!(status, 403, "{}: {body}", caller.user);
        assert_eq!(body["error"]["code"], "forbidden");
    }
    let (status, body) = send(validate(&ADMIN)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["reachable"], false);
}
