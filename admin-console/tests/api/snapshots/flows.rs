//! Repositories and snapshots end to end: register, take, follow, restore, delete.

use super::*;

#[tokio::test]
async fn repositories_are_registered_listed_verified_and_deleted_in_both_flavors() {
    for distribution in REAL {
        let f = fixture(distribution, "rv-backups", "", false).await;
        f.proxy.clear_requests();
        f.register("rv-backups").await;
        let sent = f.snapshot_calls();
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert_eq!(call_of(&sent[0]), ("PUT", "/_snapshot/rv-backups"));
        assert_eq!(
            sent[0].body,
            Some(json!({"type": "fs", "settings": {"location": f.location, "compress": true}}))
        );

        let (status, list) = f.get("/repositories").await;
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
        assert_eq!(call_of(&sent[0]), ("POST", "/_snapshot/rv-backups/_verify"));

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
            let (status, refused) = f.delete(&format!("/repositories/rv-backups{query}")).await;
            assert_eq!(status, 400, "{query}: {refused}");
        }
        assert!(f.snapshot_calls().is_empty());
        let (status, deleted) = f
            .delete("/repositories/rv-backups?confirm=rv-backups")
            .await;
        acknowledged(status, &deleted);
        let (_, list) = f.get("/repositories").await;
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
        assert_eq!(call_of(&sent[0]), ("PUT", "/_snapshot/st-backups/snap-1"));
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
        let (_, detail) = f.get("/repositories/st-backups/snapshots/snap-1").await;
        assert_eq!(detail["progress"], Value::Null);
        assert_eq!(statuses(&f), 0);
        let (status, sized) = f
            .get("/repositories/st-backups/snapshots/snap-1?sizes=true")
            .await;
        assert_eq!(status, 200, "{sized}");
        assert_eq!(statuses(&f), 1);
        let progress = &sized["progress"];
        assert_eq!(progress["state"], "SUCCESS", "{sized}");
        assert_eq!(progress["shardsDone"], progress["shardsTotal"], "{sized}");
        assert!(progress["shardsTotal"].as_u64().unwrap() >= 1, "{sized}");
        assert_eq!(progress["bytesDone"], progress["bytesTotal"], "{sized}");
        assert!(progress["bytesTotal"].as_u64().unwrap() > 0, "{sized}");

        let (status, list) = f.get("/repositories/st-backups/snapshots").await;
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
            call_of(&sent[0]),
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
        let (status, _) = f.delete("/repositories/st-backups/snapshots/snap-1").await;
        assert_eq!(status, 400);
        let (status, deleted) = f
            .delete("/repositories/st-backups/snapshots/snap-1?confirm=snap-1")
            .await;
        acknowledged(status, &deleted);
        let (_, list) = f.get("/repositories/st-backups/snapshots").await;
        assert_eq!(list["snapshots"], json!([]), "{list}");
        let (status, gone) = f.get("/repositories/st-backups/snapshots/snap-1").await;
        assert_eq!(status, 404, "{gone}");
    }
}

#[tokio::test]
async fn a_running_snapshot_is_read_with_its_progress_in_both_flavors() {
    for distribution in REAL {
        let f = fixture(distribution, "run-backups", "", false).await;
        // Enough data that, at 2 KB a second, the snapshot runs for many seconds.
        seed_indices(&f.proxy.url, "running", 2, |_| 3000).await;
        f.register_with("run-backups", json!({"max_snapshot_bytes_per_sec": "2kb"}))
            .await;
        // Without the global state, which on Elasticsearch 8 brings the security index's
        // feature state along.
        let long = json!({"name": "long-1", "indices": ["running-*"], "includeGlobalState": false});
        let (status, taken) = f
            .call(
                reqwest::Method::POST,
                "/repositories/run-backups/snapshots",
                Some(long),
            )
            .await;
        assert_eq!(status, 200, "{taken}");
        f.proxy.clear_requests();
        let (status, detail) = f.get("/repositories/run-backups/snapshots/long-1").await;
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
        let (_, list) = f.get("/repositories/run-backups/snapshots").await;
        assert_eq!(list["snapshots"][0]["state"], "IN_PROGRESS", "{list}");

        // Deleting a running snapshot aborts it.
        let (status, deleted) = f
            .delete("/repositories/run-backups/snapshots/long-1?confirm=long-1")
            .await;
        assert_eq!(status, 200, "{deleted}");
        let (_, list) = f.get("/repositories/run-backups/snapshots").await;
        assert_eq!(list["snapshots"], json!([]), "{list}");
    }
}
