//! The fault proxy before the real API server: what it passes on unchanged (lists, objects, the
//! events of a watch) and each fault it injects, as a client of the API sees them.

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use test_support::kube_cluster::{KubeCluster, KubeFaultProxy};

struct Fixture {
    proxy: KubeFaultProxy,
    client: reqwest::Client,
    namespace: String,
}

/// The shared API server with a namespace of the test's own, and a proxy before it.
async fn fixture(namespace: &str) -> Fixture {
    let cluster = tokio::task::spawn_blocking(KubeCluster::shared)
        .await
        .unwrap();
    let owned = namespace.to_owned();
    tokio::task::spawn_blocking(move || KubeCluster::shared().create_namespaces(&[&owned]))
        .await
        .unwrap();
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        format!("Bearer {}", cluster.admin_token()).parse().unwrap(),
    );
    Fixture {
        proxy: KubeFaultProxy::start(cluster),
        client: reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .unwrap(),
        namespace: namespace.to_owned(),
    }
}

impl Fixture {
    fn ingresses(&self) -> String {
        format!(
            "{}/apis/networking.k8s.io/v1/namespaces/{}/ingresses",
            self.proxy.url, self.namespace
        )
    }

    async fn get(&self, url: &str) -> (StatusCode, reqwest::header::HeaderMap, Value) {
        let response = self.client.get(url).send().await.unwrap();
        let (status, headers) = (response.status(), response.headers().clone());
        (
            status,
            headers,
            response.json().await.unwrap_or(Value::Null),
        )
    }

    async fn create_ingress(&self, name: &str) {
        let response = self
            .client
            .post(self.ingresses())
            .json(
                &json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                "metadata": {"name": name}, "spec": {"defaultBackend": {"service": {
                    "name": "web", "port": {"number": 80}}}}}),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
    }
}

#[tokio::test]
async fn requests_pass_unchanged_and_are_counted() {
    let f = fixture("fault-proxy-pass").await;
    f.create_ingress("web").await;
    let (status, _, list) = f.get(&f.ingresses()).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["kind"], "IngressList");
    assert_eq!(list["items"][0]["metadata"]["name"], "web");
    let (status, _, object) = f.get(&format!("{}/web", f.ingresses())).await;
    assert_eq!(
        (status, &object["kind"]),
        (StatusCode::OK, &json!("Ingress"))
    );
    assert_eq!(
        f.proxy.faults.list_requests(),
        1,
        "the object read is no list"
    );
    assert_eq!(f.proxy.faults.watch_requests(), 0);
}

#[tokio::test]
async fn a_burst_of_server_errors_then_the_real_answers() {
    let f = fixture("fault-proxy-burst").await;
    f.proxy.faults.fail_next(2, 503);
    for _ in 0..2 {
        let (status, _, body) = f.get(&f.ingresses()).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            (&body["kind"], &body["reason"], &body["code"]),
            (&json!("Status"), &json!("ServiceUnavailable"), &json!(503))
        );
    }
    let (status, _, _) = f.get(&f.ingresses()).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn watches_refused_while_lists_work() {
    let f = fixture("fault-proxy-watch-refused").await;
    f.proxy.faults.fail_next_watches(1, 429);
    let (status, _, _) = f.get(&f.ingresses()).await;
    assert_eq!(status, StatusCode::OK, "a list is no watch");
    let (status, headers, body) = f.get(&format!("{}?watch=1", f.ingresses())).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(headers["retry-after"], "1");
    assert_eq!(body["reason"], "TooManyRequests");
    assert_eq!(f.proxy.faults.watch_requests(), 1);
}

/// The lines of a watch until `count` or its end, with a deadline; `Err` with what came when
/// the connection broke.
async fn watch_lines(f: &Fixture, query: &str, count: usize) -> Result<Vec<Value>, String> {
    let response = open_watch(f, query).await;
    let mut stream = response.bytes_stream();
    let mut buffer = Vec::new();
    let mut lines = Vec::new();
    let read = async {
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|error| {
                format!(
                    "{error:?} after {} lines and: {}",
                    lines.len(),
                    String::from_utf8_lossy(&buffer)
                )
            })?;
            buffer.extend_from_slice(&chunk);
            while let Some(end) = buffer.iter().position(|byte| *byte == b'\n') {
                let line: Vec<u8> = buffer.drain(..=end).collect();
                lines.push(serde_json::from_slice(&line).unwrap());
                if lines.len() == count {
                    return Ok::<(), String>(());
                }
            }
        }
        Ok(())
    };
    tokio::time::timeout(Duration::from_secs(20), read)
        .await
        .expect("the watch answered within 20 s")?;
    Ok(lines)
}

#[tokio::test]
async fn an_expired_watch_gets_one_410_event() {
    let f = fixture("fault-proxy-expired").await;
    f.proxy.faults.expire_next_watches(1);
    let events = watch_lines(&f, "resourceVersion=1", 2).await.unwrap();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["type"], "ERROR");
    assert_eq!(events[0]["object"]["code"], 410);
    assert_eq!(events[0]["object"]["reason"], "Expired");
}

#[tokio::test]
async fn a_watch_streams_the_real_events_and_can_be_cut_mid_event() {
    let f = fixture("fault-proxy-cut").await;
    f.create_ingress("first").await;
    let (_, _, list) = f.get(&f.ingresses()).await;
    let from = list["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    f.create_ingress("second").await;
    let events = watch_lines(&f, &format!("resourceVersion={from}"), 1)
        .await
        .unwrap();
    assert_eq!(events[0]["type"], "ADDED");
    assert_eq!(events[0]["object"]["metadata"]["name"], "second");

    // A proxy of its own: the first watch's stream may still be open upstream of the proxy
    // (the client has gone, the proxy learns of it at its next write) and would take the cut.
    let f = Fixture {
        proxy: KubeFaultProxy::start(KubeCluster::shared()),
        ..f
    };
    f.proxy.faults.cut_next_events(1);
    f.create_ingress("third").await;
    let cut = watch_lines(&f, &format!("resourceVersion={from}"), 2).await;
    let broken = cut.expect_err("the connection breaks in the middle of the event");
    assert!(broken.contains("{\"type\":\"ADDED\""), "{broken}");
}

#[tokio::test]
async fn latency_delays_every_answer() {
    let f = fixture("fault-proxy-latency").await;
    f.proxy.faults.set_latency(Duration::from_millis(300));
    let started = std::time::Instant::now();
    let (status, _, _) = f.get(&f.ingresses()).await;
    assert_eq!(status, StatusCode::OK);
    assert!(started.elapsed() >= Duration::from_millis(300));
}

/// A watch of the fixture's ingresses with `query`, its body open.
async fn open_watch(f: &Fixture, query: &str) -> reqwest::Response {
    let response = f
        .client
        .get(format!("{}?watch=1&{query}", f.ingresses()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response
}

#[tokio::test]
async fn open_watches_are_counted_and_dropped_all_at_once() {
    let f = fixture("fault-proxy-drop").await;
    let first = open_watch(&f, "").await;
    let second = open_watch(&f, "").await;
    assert_eq!(f.proxy.faults.open_watches(), 2);
    f.proxy.faults.drop_watches();
    for watch in [first, second] {
        let mut body = watch.bytes_stream();
        let ended = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                match body.next().await {
                    Some(Ok(_)) => continue,
                    Some(Err(error)) => return Err(error),
                    None => return Ok(()),
                }
            }
        })
        .await
        .expect("the dropped watch ends within 20 s");
        assert!(ended.is_err(), "broken, not ended cleanly");
    }
    test_support::eventually("no watch counted", Duration::from_secs(10), async || {
        f.proxy.faults.open_watches() == 0
    })
    .await;
    // A watch opened after the drop is not touched by it.
    let third = open_watch(&f, "").await;
    f.create_ingress("after-the-drop").await;
    let mut body = third.bytes_stream();
    let chunk = tokio::time::timeout(Duration::from_secs(20), body.next())
        .await
        .expect("an event within 20 s")
        .expect("the stream goes on")
        .unwrap();
    assert!(
        String::from_utf8_lossy(&chunk).contains("after-the-drop"),
        "{chunk:?}"
    );
    assert_eq!(f.proxy.faults.open_watches(), 1);
    // A client that leaves is no longer counted once the proxy writes to it again (the proxy
    // learns of it then): an event each round.
    drop(body);
    let mut round = 0;
    test_support::eventually(
        "the left watch uncounted",
        Duration::from_secs(20),
        async || {
            round += 1;
            f.create_ingress(&format!("after-leaving-{round}")).await;
            f.proxy.faults.open_watches() == 0
        },
    )
    .await;
}

#[tokio::test]
async fn connections_are_refused_for_a_while_then_served_again() {
    let f = fixture("fault-proxy-refuse").await;
    let watch = open_watch(&f, "").await;
    f.proxy.refuse_connections().await;
    let error = f
        .client
        .get(f.ingresses())
        .send()
        .await
        .expect_err("nothing listens");
    assert!(error.is_connect(), "{error:?}");
    // The open watch went with the server.
    let mut body = watch.bytes_stream();
    let end = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(Ok(_)) = body.next().await {}
    })
    .await;
    assert!(end.is_ok(), "the open watch was not dropped");
    f.proxy.accept_connections().await;
    let (status, _, _) = f.get(&f.ingresses()).await;
    assert_eq!(status, StatusCode::OK);
}
