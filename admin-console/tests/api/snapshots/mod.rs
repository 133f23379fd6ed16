//! Snapshot repositories and snapshots against real nodes of OpenSearch 2 and Elasticsearch 8
//! (secured), through a recording proxy: the calls the console sends (asserted from the proxy's
//! record), the answers it reads, the restore that creates indices beside the live ones, the
//! checks that refuse bad input before any call, and who may do what. Repositories are file
//! system ones in the node's `path.repo`; a snapshot that stays in progress long enough to be
//! read is one of a repository throttled to a few kilobytes a second (aborted by its delete).
//! The proxy's fault mode answers 503 for a verification the cluster fails. The nodes are
//! shared with other suites: each test keeps to repository and index names of its own.

mod flows;
mod rules;

use std::time::Duration;

use search_test_server::Recorded;
use serde_json::{Value, json};
use test_support::{Distribution, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::support::real::{REAL, Real, real_with};
use crate::support::{get_json_blocking, seed_indices, send, wait_until};

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

impl Fixture {
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = self.app.client.request(method, self.url(path));
        if let Some(body) = body {
            request = request.json(&body);
        }
        send(request).await
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        self.call(reqwest::Method::GET, path, None).await
    }

    async fn delete(&self, path: &str) -> (u16, Value) {
        self.call(reqwest::Method::DELETE, path, None).await
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
        acknowledged(status, &body);
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

/// A call the cluster received: its method and path.
fn call_of(recorded: &Recorded) -> (&str, &str) {
    (recorded.method.as_str(), recorded.path.as_str())
}

/// The console's answer to a change the cluster acknowledged.
fn acknowledged(status: u16, body: &Value) {
    assert_eq!(
        (status, &body["acknowledged"]),
        (200, &json!(true)),
        "{body}"
    );
}
