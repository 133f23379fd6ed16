//! Snapshot repositories and snapshots against real nodes of OpenSearch 2 and Elasticsearch 8
//! (secured), through a recording proxy: the calls the console sends (asserted from the proxy's
//! record), the answers it reads, the restore that creates indices beside the live ones, the
//! checks that refuse bad input before any call, and who may do what. Repositories are file
//! system ones in the node's `path.repo`; a snapshot that stays in progress long enough to be
//! read is one of a repository throttled to a few kilobytes a second (aborted by its delete).
//! The proxy's fault mode answers 503 for a verification the cluster fails. The nodes are
//! shared with other suites: each test keeps to repository and index names of its own.

use std::time::Duration;

use reqwest::RequestBuilder;
use search_test_server::Recorded;
use serde_json::{Value, json};
use test_support::{Distribution, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::support::real::{REAL, Real, real_with};
use crate::support::{get_json_blocking, seed_indices, wait_until};

struct Fixture {
    real: Real,
    /// A folder of the test's own in the node's `path.repo`.
    location: String,
}

impl std::ops::Deref for Fixture {
    type Target = Real;
    fn deref(&self) -> &Real {
        &self.real
    }
}

/// The console before the shared node of `distribution`, with `extra_yaml` after its clusters
/// (trusted headers when `trusted`); `repository` names the location's folder.
async fn fixture(
    distribution: Distribution,
    repository: &str,
    extra_yaml: &str,
    trusted: bool,
) -> Fixture {
    let real = real_with(distribution, |clusters| {
        // A snapshot's delete waits for its abort, and a repository change waits for that
        // delete: on a loaded machine the console's default 30 s per call is not enough.
        let clusters = clusters.replace("    url: ", "    timeouts: {request: 120s}\n    url: ");
        let clusters = clusters.as_str();
        let yaml = if trusted {
            trusted_yaml(clusters)
        } else {
            format!("clusters:\n{clusters}")
        };
        format!("{yaml}{extra_yaml}")
    })
    .await;
    let location = real
        .cluster
        .repo_path()
        .join(repository)
        .display()
        .to_string();
    Fixture { real, location }
}

async fn send(request: RequestBuilder) -> (u16, Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

impl Fixture {
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = self.app.client.request(method, self.url(path));
        if let Some(body) = body {
            request = request.json(&body);
        }
        send(request).await
    }

    /// The `_snapshot` calls the proxy received since the last clear.
    fn snapshot_calls(&self) -> Vec<Recorded> {
        self.sent("/_snapshot")
    }

    async fn register(&self, repo: &str) {
        self.register_with(repo, json!({})).await;
    }

    /// Registers `repo` at the fixture's location, with `extra` settings.
    async fn register_with(&self, repo: &str, extra: Value) {
        let mut settings = json!({"location": self.location, "compress": true});
        settings
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let (status, body) = self
            .call(
                reqwest::Method::PUT,
                &format!("/repositories/{repo}"),
                Some(json!({"type": "fs", "settings": settings})),
            )
            .await;
        assert_eq!(
            (status, &body["acknowledged"]),
            (200, &json!(true)),
            "{body}"
        );
    }

    /// Waits until the snapshot's detail says it is no longer in progress; returns the detail.
    async fn finished(&self, repo: &str, snapshot: &str) -> Value {
        let url = self.url(&format!("/repositories/{repo}/snapshots/{snapshot}"));
        let probe = url.clone();
        wait_until(
            "the snapshot to finish",
            Duration::from_secs(60),
            move || {
                get_json_blocking(&probe)
                    .is_some_and(|detail| detail["snapshot"]["state"] != "IN_PROGRESS")
            },
        )
        .await;
        let (status, detail) = send(self.app.client.get(url)).await;
        assert_eq!(status, 200, "{detail}");
        detail
    }
}

#[tokio::test]
async fn repositories_are_registered_listed_verified_and_deleted_in_both_flavors() {
    for distribution in REAL {
        let f = fixture(distribution, "rv-backups", "", false).await;
        f.proxy.clear_requests();
        f.register("rv-backups").await;
        let sent = f.snapshot_calls();
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert_eq!(
            (sent[0].method.as_str(), sent[0].path.as_str()),
            ("PUT", "/_snapshot/rv-backups")
        );
        assert_eq!(
            sent[0].body,
            Some(json!({"type": "fs", "settings": {"location": f.location, "compress": true}}))
        );

        let (status, list) = f.call(reqwest::Method::GET, "/repositories", None).await;
        assert_eq!(status, 200, "{list}");
        let repos = list["repositories"].as_array().unwrap();
        let backups = repos
            .iter()
            .find(|r| r["name"] == "rv-backups")
            .expect("listed");
        assert_eq!(backups["type"], "fs", "{distribution:?}");
        assert_eq!(backups["settings"]["location"], json!(f.location));

        f.proxy.clear_requests();
        let (status, verified) = f
            .call(
                reqwest::Method::POST,
                "/repositories/rv-backups/verify",
                None,
            )
            .await;
        assert_eq!(status, 200, "{verified}");
        assert_eq!(verified["verified"], true, "{verified}");
        assert!(
            !verified["nodes"].as_array().unwrap().is_empty(),
            "{verified}"
        );
        assert!(verified["nodes"][0]["name"].is_string());
        let sent = f.snapshot_calls();
        assert_eq!(
            (sent[0].method.as_str(), sent[0].path.as_str()),
            ("POST", "/_snapshot/rv-backups/_verify")
        );

        // A missing repository is the cluster's 404, passed on.
        let (status, missing) = f
            .call(
                reqwest::Method::POST,
                "/repositories/rv-nowhere/verify",
                None,
            )
            .await;
        assert_eq!(status, 404, "{missing}");
        assert_eq!(missing["error"]["code"], "rejected_by_cluster");

        // Deleting needs the name typed; nothing is sent without it.
        f.proxy.clear_requests();
        for query in ["", "?confirm=rv-back", "?confirm=*"] {
            let (status, refused) = f
                .call(
                    reqwest::Method::DELETE,
                    &format!("/repositories/rv-backups{query}"),
                    None,
                )
                .await;
            assert_eq!(status, 400, "{query}: {refused}");
        }
        assert!(f.snapshot_calls().is_empty());
        let (status, deleted) = f
            .call(
                reqwest::Method::DELETE,
                "/repositories/rv-backups?confirm=rv-backups",
                None,
            )
            .await;
        assert_eq!(
            (status, &deleted["acknowledged"]),
            (200, &json!(true)),
            "{deleted}"
        );
        let (_, list) = f.call(reqwest::Method::GET, "/repositories", None).await;
        assert!(
            !list["repositories"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["name"] == "rv-backups"),
            "{list}"
        );
    }
}

#[tokio::test]
async fn a_snapshot_is_taken_followed_restored_beside_the_live_index_and_deleted_in_both_flavors() {
    for distribution in REAL {
        let f = fixture(distribution, "st-backups", "", false).await;
        seed_indices(&f.proxy.url, "books", 1, |_| 3).await;
        f.register("st-backups").await;

        f.proxy.clear_requests();
        let (status, taken) = f
            .call(
                reqwest::Method::POST,
                "/repositories/st-backups/snapshots",
                Some(
                    json!({"name": "snap-1", "indices": ["books-*"], "includeGlobalState": false}),
                ),
            )
            .await;
        assert_eq!(status, 200, "{distribution:?}: {taken}");
        assert_eq!(taken, json!({"name": "snap-1", "accepted": true}));
        let sent = f.snapshot_calls();
        assert_eq!(
            (sent[0].method.as_str(), sent[0].path.as_str()),
            ("PUT", "/_snapshot/st-backups/snap-1")
        );
        assert_eq!(
            sent[0].param("wait_for_completion").as_deref(),
            Some("false")
        );
        assert_eq!(
            sent[0].body,
            Some(json!({"indices": "books-*", "include_global_state": false}))
        );

        let detail = f.finished("st-backups", "snap-1").await;
        assert_eq!(detail["snapshot"]["state"], "SUCCESS", "{detail}");
        assert_eq!(detail["indices"], json!(["books-0000"]));
        assert_eq!(detail["snapshot"]["shardsSuccessful"], 1, "{detail}");
        // Followed with _status while it ran; a finished one is read without it (the
        // documentation's advice: it reads every shard from the repository) unless asked.
        assert_eq!(detail["progress"], Value::Null, "{detail}");
        assert_eq!(detail["progressError"], Value::Null, "{detail}");
        let statuses = |f: &Fixture| {
            f.snapshot_calls()
                .iter()
                .filter(|r| r.path == "/_snapshot/st-backups/snap-1/_status")
                .count()
        };
        f.proxy.clear_requests();
        let (_, detail) = f
            .call(
                reqwest::Method::GET,
                "/repositories/st-backups/snapshots/snap-1",
                None,
            )
            .await;
        assert_eq!(detail["progress"], Value::Null);
        assert_eq!(statuses(&f), 0);
        let (status, sized) = f
            .call(
                reqwest::Method::GET,
                "/repositories/st-backups/snapshots/snap-1?sizes=true",
                None,
            )
            .await;
        assert_eq!(status, 200, "{sized}");
        assert_eq!(statuses(&f), 1);
        let progress = &sized["progress"];
        assert_eq!(progress["state"], "SUCCESS", "{sized}");
        assert_eq!(progress["shardsDone"], progress["shardsTotal"], "{sized}");
        assert!(progress["shardsTotal"].as_u64().unwrap() >= 1, "{sized}");
        assert_eq!(progress["bytesDone"], progress["bytesTotal"], "{sized}");
        assert!(progress["bytesTotal"].as_u64().unwrap() > 0, "{sized}");

        let (status, list) = f
            .call(
                reqwest::Method::GET,
                "/repositories/st-backups/snapshots",
                None,
            )
            .await;
        assert_eq!(status, 200, "{list}");
        let row = &list["snapshots"][0];
        assert_eq!(row["name"], "snap-1");
        assert_eq!(row["state"], "SUCCESS");
        assert_eq!(row["indexCount"], 1);
        assert_eq!(row["shardsFailed"], 0);
        assert_eq!(row["includeGlobalState"], false);
        assert!(row["startMillis"].as_u64().unwrap() <= row["endMillis"].as_u64().unwrap());

        // The same name twice: the cluster's refusal.
        let (status, again) = f
            .call(
                reqwest::Method::POST,
                "/repositories/st-backups/snapshots",
                Some(json!({"name": "snap-1"})),
            )
            .await;
        assert_eq!(status, 400, "{again}");
        assert_eq!(again["error"]["code"], "rejected_by_cluster");

        // Restored under its own name next to the open index: the cluster refuses, said as is.
        let (status, refused) = f
            .call(
                reqwest::Method::POST,
                "/repositories/st-backups/snapshots/snap-1/restore",
                Some(json!({"indices": ["books-0000"]})),
            )
            .await;
        // The cluster's 500 snapshot_restore_exception: an upstream error with its reason.
        assert_eq!(status, 502, "{refused}");
        assert_eq!(refused["error"]["code"], "upstream_error");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("an open index with same name already exists"),
            "{message}"
        );

        // The index list is cached by the console; a restore must show at once.
        let (_, before) = f
            .app
            .get_json("/api/clusters/main/indices?filter=restored-books")
            .await;
        assert_eq!(before["total"], 0, "{before}");
        f.proxy.clear_requests();
        let (status, restored) = f
            .call(
                reqwest::Method::POST,
                "/repositories/st-backups/snapshots/snap-1/restore",
                Some(json!({
                    "indices": ["books-0000"],
                    "renamePattern": "(.+)",
                    "renameReplacement": "restored-$1",
                    "includeGlobalState": false
                })),
            )
            .await;
        assert_eq!(status, 200, "{restored}");
        assert_eq!(restored["accepted"], true);
        let sent = f.snapshot_calls();
        assert_eq!(
            (sent[0].method.as_str(), sent[0].path.as_str()),
            ("POST", "/_snapshot/st-backups/snap-1/_restore")
        );
        assert_eq!(
            sent[0].body,
            Some(json!({
                "indices": "books-0000",
                "rename_pattern": "(.+)",
                "rename_replacement": "restored-$1",
                "include_global_state": false
            }))
        );
        let (_, after) = f
            .app
            .get_json("/api/clusters/main/indices?filter=restored-books")
            .await;
        assert_eq!(after["total"], 1, "the cached list was dropped: {after}");
        assert_eq!(after["indices"][0]["name"], "restored-books-0000");
        let restored_url = f.url("/indices?filter=restored-books");
        wait_until(
            "the restored documents",
            Duration::from_secs(60),
            move || {
                get_json_blocking(&restored_url)
                    .is_some_and(|page| page["indices"][0]["docsCount"] == 3)
            },
        )
        .await;

        // Deleting needs the name typed.
        let (status, _) = f
            .call(
                reqwest::Method::DELETE,
                "/repositories/st-backups/snapshots/snap-1",
                None,
            )
            .await;
        assert_eq!(status, 400);
        let (status, deleted) = f
            .call(
                reqwest::Method::DELETE,
                "/repositories/st-backups/snapshots/snap-1?confirm=snap-1",
                None,
            )
            .await;
        assert_eq!(
            (status, &deleted["acknowledged"]),
            (200, &json!(true)),
            "{deleted}"
        );
        let (_, list) = f
            .call(
                reqwest::Method::GET,
                "/repositories/st-backups/snapshots",
                None,
            )
            .await;
        assert_eq!(list["snapshots"], json!([]), "{list}");
        let (status, gone) = f
            .call(
                reqwest::Method::GET,
                "/repositories/st-backups/snapshots/snap-1",
                None,
            )
            .await;
        assert_eq!(status, 404, "{gone}");
    }
}

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

#[tokio::test]
async fn a_running_snapshot_is_read_with_its_progress_in_both_flavors() {
    for distribution in REAL {
        let f = fixture(distribution, "run-backups", "", false).await;
        // Enough data that, at 2 KB a second, the snapshot runs for many seconds.
        seed_indices(&f.proxy.url, "running", 2, |_| 3000).await;
        f.register_with("run-backups", json!({"max_snapshot_bytes_per_sec": "2kb"}))
            .await;
        let (status, taken) = f
            .call(
                reqwest::Method::POST,
                "/repositories/run-backups/snapshots",
                // Without the global state, which on Elasticsearch 8 brings the security
                // index's feature state along.
                Some(json!({"name": "long-1", "indices": ["running-*"], "includeGlobalState": false})),
            )
            .await;
        assert_eq!(status, 200, "{taken}");
        f.proxy.clear_requests();
        let (status, detail) = f
            .call(
                reqwest::Method::GET,
                "/repositories/run-backups/snapshots/long-1",
                None,
            )
            .await;
        assert_eq!(status, 200, "{detail}");
        assert_eq!(
            detail["snapshot"]["state"], "IN_PROGRESS",
            "{distribution:?}: {detail}"
        );
        assert_eq!(detail["snapshot"]["endMillis"], Value::Null, "{detail}");
        assert_eq!(
            detail["snapshot"]["durationMillis"],
            Value::Null,
            "{detail}"
        );
        let progress = &detail["progress"];
        assert_eq!(progress["state"], "IN_PROGRESS", "{detail}");
        assert_eq!(progress["shardsTotal"], 2, "{detail}");
        assert!(progress["shardsDone"].as_u64().unwrap() < 2, "{detail}");
        let sent: Vec<(String, String)> = f
            .snapshot_calls()
            .into_iter()
            .map(|r| (r.method, r.path))
            .collect();
        assert_eq!(
            sent,
            [
                ("GET".to_owned(), "/_snapshot/run-backups/long-1".to_owned()),
                (
                    "GET".to_owned(),
                    "/_snapshot/run-backups/long-1/_status".to_owned()
                ),
            ]
        );
        let (_, list) = f
            .call(
                reqwest::Method::GET,
                "/repositories/run-backups/snapshots",
                None,
            )
            .await;
        assert_eq!(list["snapshots"][0]["state"], "IN_PROGRESS", "{list}");

        // Deleting a running snapshot aborts it.
        let (status, deleted) = f
            .call(
                reqwest::Method::DELETE,
                "/repositories/run-backups/snapshots/long-1?confirm=long-1",
                None,
            )
            .await;
        assert_eq!(status, 200, "{deleted}");
        let (_, list) = f
            .call(
                reqwest::Method::GET,
                "/repositories/run-backups/snapshots",
                None,
            )
            .await;
        assert_eq!(list["snapshots"], json!([]), "{list}");
    }
}
