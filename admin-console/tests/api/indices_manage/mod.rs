//! Managing indices: create, the page of one index, its settings, the actions on a selection
//! and delete, against real nodes of OpenSearch 2 and Elasticsearch 8 (secured) through a
//! recording proxy that shows what the console sent; and who may do which. The nodes are shared
//! with other suites: each test keeps to index names of its own.

mod actions;
mod lifecycle;

use std::time::Duration;

use serde_json::{Value, json};
use test_support::{Distribution, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::support::real::{REAL, Real, real, real_with};
use crate::support::{send, wait_until};

impl Real {
    pub(crate) async fn post(&self, tail: &str, body: Value) -> (u16, Value) {
        send(self.app.client.post(self.url(tail)).json(&body)).await
    }

    /// The indices named `prefix…` in the console's list, with their status.
    async fn statuses(&self, prefix: &str) -> Vec<(String, String)> {
        let (status, body) = self
            .app
            .get_json("/api/clusters/main/indices?size=500")
            .await;
        assert_eq!(status, 200, "{body}");
        let mut rows: Vec<(String, String)> = body["indices"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|row| {
                row["name"]
                    .as_str()
                    .is_some_and(|name| name.starts_with(prefix))
            })
            .map(|row| {
                (
                    row["name"].as_str().unwrap().to_owned(),
                    row["status"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        rows.sort();
        rows
    }
}
