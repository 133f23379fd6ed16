//! What is refused before any call, who may do what, and a verification the cluster fails.

use super::*;

#[tokio::test]
async fn bad_input_is_refused_before_any_cluster_call() {
    let f = fixture(Distribution::OpenSearch2, "bad-backups", "", false).await;
    f.proxy.clear_requests();
    use reqwest::Method as M;
    let cases: Vec<(M, &str, Option<Value>, &str)> = vec![
        (
            M::PUT,
            "/repositories/_all",
            Some(json!({"type": "fs", "settings": {"location": "/x"}})),
            "must not start with '_'",
        ),
        (
            M::PUT,
            "/repositories/b",
            Some(json!({"type": "fs", "settings": {}})),
            "needs settings.location",
        ),
        (
            M::PUT,
            "/repositories/b",
            Some(json!({"type": "s3", "settings": {}})),
            "unknown variant `s3`",
        ),
        (
            M::PUT,
            "/repositories/b",
            Some(json!({"type": "url", "settings": {"url": "gopher://x/"}})),
            "schemes",
        ),
        (
            M::POST,
            "/repositories/b/snapshots",
            Some(json!({"name": "Nightly"})),
            "must be lowercase",
        ),
        (
            M::POST,
            "/repositories/b/snapshots",
            Some(json!({"name": "a", "indices": ["x,y"]})),
            "must not contain ','",
        ),
        (
            M::POST,
            "/repositories/b/snapshots",
            Some(json!({"name": "a", "partial": true})),
            "unknown field `partial`",
        ),
        (
            M::POST,
            "/repositories/b/snapshots/a/restore",
            Some(json!({"renamePattern": "(.+)"})),
            "needs a rename replacement",
        ),
        (
            M::POST,
            "/repositories/b/snapshots/a/restore",
            Some(json!({"renamePattern": "(.+)", "renameReplacement": "A-$1"})),
            "must be lowercase",
        ),
        (
            M::POST,
            "/repositories/b/snapshots/a%2A/restore",
            Some(json!({})),
            "must not contain '*'",
        ),
        (
            M::DELETE,
            "/repositories/b/snapshots/a*?confirm=a*",
            None,
            "must not contain '*'",
        ),
        (
            M::GET,
            "/repositories/b/snapshots/a?sizes=yes",
            None,
            "sizes must be true or false",
        ),
    ];
    for (method, path, body, says) in cases {
        let (status, answer) = f.call(method.clone(), path, body).await;
        assert_eq!(status, 400, "{method} {path}: {answer}");
        assert_eq!(answer["error"]["code"], "bad_request", "{path}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{method} {path}: {message}");
    }
    let (status, answer) = send(
        f.app
            .client
            .post(f.url("/repositories/b/snapshots"))
            .header("content-type", "application/json")
            .body("{not json"),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not valid")
    );
    assert!(f.snapshot_calls().is_empty(), "{:?}", f.snapshot_calls());

    // An encoded slash is decoded before the check: refused, never sent as a path separator.
    let (status, answer) = f
        .call(
            M::GET,
            "/repositories/a%2Fb/snapshots/..%2F..%2F_cluster",
            None,
        )
        .await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"a/b\" must not contain '/'"),
        "{answer}"
    );
    assert!(f.snapshot_calls().is_empty());
}

#[tokio::test]
async fn a_viewer_may_only_look_an_operator_may_verify_and_take_and_an_admin_may_do_the_rest() {
    let dir = TempDir::new("snapshot-audit");
    let audit = dir.path().join("audit.log");
    let f = fixture(
        Distribution::OpenSearch2,
        "ro-backups",
        &format!("audit:\n  file: {}\n", audit.display()),
        true,
    )
    .await;
    seed_indices(&f.proxy.url, "libros", 1, |_| 1).await;
    f.proxy.clear_requests();
    let register = json!({"type": "fs", "settings": {"location": f.location}});
    let call = |method: reqwest::Method, path: &str, body: Option<&Value>| {
        let mut request = f.app.client.request(method, f.url(path));
        if let Some(body) = body {
            request = request.json(body);
        }
        request
    };
    use reqwest::Method as M;
    let snapshot = json!({"name": "s1", "indices": ["libros-0000"]});
    let restore = json!({"renamePattern": "(.+)", "renameReplacement": "r-$1"});
    let admin_only: Vec<(M, &str, Option<&Value>)> = vec![
        (M::PUT, "/repositories/ro-backups", Some(&register)),
        (
            M::POST,
            "/repositories/ro-backups/snapshots/s1/restore",
            Some(&restore),
        ),
        (
            M::DELETE,
            "/repositories/ro-backups/snapshots/s1?confirm=s1",
            None,
        ),
        (
            M::DELETE,
            "/repositories/ro-backups?confirm=ro-backups",
            None,
        ),
    ];
    let operator: Vec<(M, &str, Option<&Value>)> = vec![
        (M::POST, "/repositories/ro-backups/verify", None),
        (
            M::POST,
            "/repositories/ro-backups/snapshots",
            Some(&snapshot),
        ),
    ];
    for (method, path, body) in admin_only.iter().chain(&operator) {
        let (status, answer) = send(as_caller(call(method.clone(), path, *body), &VIEWER)).await;
        assert_eq!(status, 403, "viewer {method} {path}: {answer}");
    }
    for (method, path, body) in &admin_only {
        let (status, answer) = send(as_caller(call(method.clone(), path, *body), &OPERATOR)).await;
        assert_eq!(status, 403, "operator {method} {path}: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("needs the admin role"),
            "{answer}"
        );
    }
    assert!(
        f.snapshot_calls().iter().all(|r| r.method == "GET"),
        "nothing refused reached the cluster"
    );

    // Reading is a viewer's.
    for path in ["/repositories", "/repositories/ro-backups/snapshots"] {
        let (status, answer) = send(as_caller(call(M::GET, path, None), &VIEWER)).await;
        assert!(
            status == 200 || status == 404,
            "viewer GET {path}: {status} {answer}"
        );
        assert_ne!(status, 403);
    }
    // The admin registers; the operator verifies and takes a snapshot.
    let (status, answer) = send(as_caller(
        call(M::PUT, "/repositories/ro-backups", Some(&register)),
        &ADMIN,
    ))
    .await;
    assert_eq!(status, 200, "{answer}");
    for (method, path, body) in &operator {
        let (status, answer) = send(as_caller(call(method.clone(), path, *body), &OPERATOR)).await;
        assert_eq!(status, 200, "operator {method} {path}: {answer}");
    }
    f.finished_as(&ADMIN, "ro-backups", "s1").await;
    for (index, (method, path, body)) in admin_only.iter().enumerate().skip(1) {
        let (status, answer) = send(as_caller(call(method.clone(), path, *body), &ADMIN)).await;
        assert_eq!(status, 200, "admin {method} {path}: {answer}");
        if index == 1 {
            // A snapshot being restored from cannot be deleted: the restore ends first.
            let deadline = std::time::Instant::now() + Duration::from_secs(60);
            loop {
                let (_, list) = send(as_caller(
                    call(M::GET, "/indices?filter=r-libros", None),
                    &ADMIN,
                ))
                .await;
                if list["indices"][0]["docsCount"] == 1 {
                    break;
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "the restored index within 60 s: {list}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }

    // Every refusal is in the audit log, with who and what.
    let path = audit.clone();
    wait_until("the audit lines", Duration::from_secs(10), move || {
        std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .count()
            >= 16
    })
    .await;
    let lines: Vec<Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let denied: Vec<&Value> = lines.iter().filter(|l| l["outcome"] == "denied").collect();
    assert_eq!(denied.len(), 10, "{lines:#?}");
    assert!(denied.iter().any(|l| l["user"] == "vera"
        && l["method"] == "POST"
        && l["path"] == "/api/clusters/main/repositories/ro-backups/snapshots"));
    assert!(denied.iter().any(|l| l["user"] == "otto"
        && l["path"] == "/api/clusters/main/repositories/ro-backups/snapshots/s1/restore"));
}

impl Fixture {
    /// [`Fixture::finished`] for a caller of the trusted-headers set-up.
    async fn finished_as(&self, caller: &crate::access::Caller, repo: &str, snapshot: &str) {
        let url = self.url(&format!("/repositories/{repo}/snapshots/{snapshot}"));
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let (status, detail) = send(as_caller(self.app.client.get(&url), caller)).await;
            if status == 200 && detail["snapshot"]["state"] != "IN_PROGRESS" {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "still running: {detail}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

#[tokio::test]
async fn a_verification_the_cluster_fails_is_a_result_with_its_reason() {
    let f = fixture(Distribution::Elasticsearch8Secured, "vf-backups", "", false).await;
    f.register("vf-backups").await;
    f.proxy.set_unavailable(true);
    let (status, answer) = f
        .call(
            reqwest::Method::POST,
            "/repositories/vf-backups/verify",
            None,
        )
        .await;
    f.proxy.set_unavailable(false);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["verified"], false);
    assert_eq!(answer["nodes"], json!([]));
    let error = answer["error"].as_str().unwrap();
    assert!(error.contains("answered 503"), "{error}");
}
