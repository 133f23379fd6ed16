//! A snapshot taken and restored, and the node page's index actions, settings and tasks.

use super::*;

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
