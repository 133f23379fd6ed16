//! Actions on a selection, the write block, and who may do which.

use super::*;

#[tokio::test]
async fn actions_on_a_selection_answer_one_result_per_index() {
    for distribution in REAL {
        actions_on_a_selection(distribution).await;
    }
}

async fn actions_on_a_selection(distribution: Distribution) {
    let f = real(distribution).await;
    crate::support::seed_indices(&f.proxy.url, "sel", 2, |_| 2).await;
    assert_eq!(f.statuses("sel-").await.len(), 2);
    f.proxy.clear_requests();

    // Close two indices and one that does not exist: two successes, one failure with the
    // cluster's reason, and the list shows the new status at once.
    let (status, body) = f
        .post(
            "/indices/_actions/close",
            json!({"indices": ["sel-0000", "sel-missing", "sel-0001", "sel-0000"]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["action"], "close");
    let results = body["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "duplicates are dropped: {body}");
    assert_eq!(
        results[0],
        json!({"index": "sel-0000", "ok": true, "message": null})
    );
    assert_eq!(results[1]["index"], "sel-missing");
    assert_eq!(results[1]["ok"], false);
    assert!(
        results[1]["message"]
            .as_str()
            .unwrap()
            .contains("no such index [sel-missing]"),
        "{body}"
    );
    assert_eq!(results[2]["ok"], true);
    assert_eq!(
        f.statuses("sel-").await,
        [
            ("sel-0000".to_owned(), "close".to_owned()),
            ("sel-0001".to_owned(), "close".to_owned())
        ]
    );
    // A closed index's page has no stats.
    let (status, page) = f.app.get_json("/api/clusters/main/indices/sel-0000").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["status"], "close");
    assert_eq!(page["stats"], Value::Null);

    let (status, body) = f
        .post(
            "/indices/_actions/open",
            json!({"indices": ["sel-0000", "sel-0001"]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["ok"] == true)
    );
    assert!(
        f.statuses("sel-")
            .await
            .iter()
            .all(|(_, status)| status == "open")
    );

    for (action, extra) in [
        ("refresh", json!({})),
        ("flush", json!({})),
        ("forcemerge", json!({"maxNumSegments": 1})),
        ("clear_cache", json!({})),
        ("unblock_write", json!({})),
    ] {
        let mut request = json!({"indices": ["sel-0001"]});
        request
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let (status, body) = f
            .post(&format!("/indices/_actions/{action}"), request)
            .await;
        assert_eq!(status, 200, "{action}: {body}");
        assert_eq!(body["results"][0]["ok"], true, "{action}: {body}");
    }
    let writes = f.writes();
    // The calls of one selection run a few at a time: their order is the cluster's.
    let mut calls: Vec<(&str, &str, &str)> = writes
        .iter()
        .map(|(m, p, q, _)| (m.as_str(), p.as_str(), q.as_str()))
        .collect();
    calls.sort();
    let mut expected = vec![
        ("POST", "/sel-0000/_close", ""),
        ("POST", "/sel-missing/_close", ""),
        ("POST", "/sel-0001/_close", ""),
        ("POST", "/sel-0000/_open", ""),
        ("POST", "/sel-0001/_open", ""),
        ("POST", "/sel-0001/_refresh", ""),
        ("POST", "/sel-0001/_flush", ""),
        ("POST", "/sel-0001/_forcemerge", "max_num_segments=1"),
        ("POST", "/sel-0001/_cache/clear", ""),
        ("PUT", "/sel-0001/_settings", ""),
    ];
    expected.sort();
    assert_eq!(calls, expected);
    assert_eq!(
        writes.last().unwrap().3,
        Some(json!({"index.blocks.write": false}))
    );

    // A bulk delete with its typed confirmation.
    f.proxy.clear_requests();
    let (status, body) = f
        .post(
            "/indices/_actions/delete",
            json!({"indices": ["sel-0000", "sel-0001"], "confirm": "delete 2 indices"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["ok"] == true)
    );
    assert!(f.statuses("sel-").await.is_empty());
}

#[tokio::test]
async fn a_write_block_is_added_with_the_block_api_and_removed_with_its_setting() {
    for distribution in REAL {
        write_block(distribution).await;
    }
}

async fn write_block(distribution: Distribution) {
    let f = real(distribution).await;
    crate::support::seed_indices(&f.proxy.url, "blk", 1, |_| 0).await;
    f.proxy.clear_requests();
    let (status, body) = f
        .post(
            "/indices/_actions/block_write",
            json!({"indices": ["blk-0000"]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["results"][0],
        json!({"index": "blk-0000", "ok": true, "message": null}),
        "{body}"
    );
    let blocked = |value: &'static str| {
        let url = format!("{}/blk-0000/_settings?flat_settings=true", f.proxy.url);
        move || {
            crate::support::get_json_blocking(&url)
                .is_some_and(|s| s["blk-0000"]["settings"]["index.blocks.write"] == value)
        }
    };
    wait_until("the write block", Duration::from_secs(5), blocked("true")).await;
    let (status, unblocked) = f
        .post(
            "/indices/_actions/unblock_write",
            json!({"indices": ["blk-0000"]}),
        )
        .await;
    assert_eq!(status, 200, "{unblocked}");
    assert_eq!(unblocked["results"][0]["ok"], true, "{unblocked}");
    wait_until("no write block", Duration::from_secs(5), blocked("false")).await;
    let writes = f.writes();
    assert_eq!(
        (writes[0].0.as_str(), writes[0].1.as_str()),
        ("PUT", "/blk-0000/_block/write")
    );
    assert_eq!(
        writes[1],
        (
            "PUT".to_owned(),
            "/blk-0000/_settings".to_owned(),
            String::new(),
            Some(json!({"index.blocks.write": false}))
        )
    );
}

#[tokio::test]
async fn a_viewer_is_refused_every_change_an_operator_only_the_admin_ones() {
    let dir = TempDir::new("indices-audit");
    let file = dir.path().join("audit.log");
    let f = real_with(Distribution::OpenSearch2, |clusters| {
        format!(
            "{}audit:\n  file: {}\n",
            trusted_yaml(clusters),
            file.display()
        )
    })
    .await;
    crate::support::seed_indices(&f.proxy.url, "roles", 1, |_| 1).await;
    let app = &f.app;
    let url = |tail: &str| f.url(tail);
    let changes: Vec<(&str, String, Option<Value>)> = vec![
        ("POST", url("/indices"), Some(json!({"name": "roles-new"}))),
        (
            "POST",
            url("/indices/_actions/close"),
            Some(json!({"indices": ["roles-0000"]})),
        ),
        (
            "POST",
            url("/indices/_actions/block_write"),
            Some(json!({"indices": ["roles-0000"]})),
        ),
        (
            "PUT",
            url("/indices/roles-0000/settings"),
            Some(json!({"settings": {"index.number_of_replicas": 0}})),
        ),
        (
            "DELETE",
            url("/indices/roles-0000?confirm=roles-0000"),
            None,
        ),
    ];
    let call = |method: &str, target: &str, body: &Option<Value>, caller| {
        let mut request = app.client.request(method.parse().unwrap(), target);
        if let Some(body) = body {
            request = request.json(body);
        }
        send(as_caller(request, caller))
    };
    for (method, target, body) in &changes {
        let (status, answer) = call(method, target, body, &VIEWER).await;
        assert_eq!(status, 403, "{method} {target}: {answer}");
        assert_eq!(answer["error"]["code"], "forbidden");
    }
    // An operator may close (and reopen) but not create, delete, block or edit settings.
    for (method, target, body) in &changes {
        let (status, answer) = call(method, target, body, &OPERATOR).await;
        let expected = if target.ends_with("/_actions/close") {
            200
        } else {
            403
        };
        assert_eq!(status, expected, "{method} {target}: {answer}");
    }
    let (status, _) = call(
        "POST",
        &url("/indices/_actions/open"),
        &Some(json!({"indices": ["roles-0000"]})),
        &OPERATOR,
    )
    .await;
    assert_eq!(status, 200);
    // Every view stays a viewer's.
    let (status, page) = call("GET", &url("/indices/roles-0000"), &None, &VIEWER).await;
    assert_eq!(status, 200, "{page}");
    // An admin may do everything; the delete goes last.
    for (method, target, body) in &changes {
        let (status, answer) = call(method, target, body, &ADMIN).await;
        assert_eq!(status, 200, "{method} {target}: {answer}");
    }

    let path = file.clone();
    wait_until("the audit lines", Duration::from_secs(10), move || {
        std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .count()
            >= 5 + 5 + 1 + 5
    })
    .await;
    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let denied: Vec<&Value> = lines.iter().filter(|line| line["user"] == "vera").collect();
    assert_eq!(denied.len(), 5);
    assert!(
        denied
            .iter()
            .all(|line| line["outcome"] == "denied" && line["status"] == 403)
    );
    assert_eq!(denied[4]["method"], "DELETE");
    assert_eq!(
        denied[4]["path"],
        "/api/clusters/main/indices/roles-0000?confirm=roles-0000"
    );
}
