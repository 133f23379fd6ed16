//! The stand-in against the real thing: one script of requests, the kinds ingress-dash reads and
//! `make run` serves (namespaces, IngressClasses, Ingresses, Services, EndpointSlices, TLS
//! Secrets, Events, HTTPRoutes on the real Gateway API CRDs), run against kube-test-server and against a real
//! kube-apiserver (the version pinned in versions.env, `test_support::KubeCluster`), and the
//! answers compared: status codes, Status bodies (reason, code, details) and objects with the
//! server's defaults, after setting aside what each server picks for itself (uids, timestamps,
//! resource version values, managed fields, allocated cluster IPs, messages' wording). Every
//! difference is reported at once.

use std::time::Duration;

use futures_util::StreamExt;
use kube_test_server::{Kind, KubeTestServer, Options};
use reqwest::Method;
use serde_json::{Value, json};
use test_support::kube_cluster::KubeCluster;

/// One server under the script.
struct Target {
    name: &'static str,
    base: String,
    client: reqwest::Client,
}

impl Target {
    async fn send(&self, method: Method, path: &str, body: Option<&Value>) -> (u16, Value) {
        let mut request = self.client.request(method, format!("{}{path}", self.base));
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request
            .send()
            .await
            .unwrap_or_else(|error| panic!("{}: {path}: {error}", self.name));
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// The first `count` events of a watch (or fewer when it ends), with a deadline.
    async fn watch(&self, path: &str, count: usize) -> Vec<Value> {
        let response = self
            .client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap();
        if response.status() != 200 {
            return vec![json!({"status": response.status().as_u16()})];
        }
        let mut stream = response.bytes_stream();
        let mut buffer = Vec::new();
        let mut events = Vec::new();
        let read = async {
            while let Some(chunk) = stream.next().await {
                buffer.extend_from_slice(&chunk.unwrap());
                while let Some(end) = buffer.iter().position(|byte| *byte == b'\n') {
                    let line: Vec<u8> = buffer.drain(..=end).collect();
                    events.push(serde_json::from_slice::<Value>(&line).unwrap());
                    if events.len() == count {
                        return;
                    }
                }
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(20), read).await;
        events
    }
}

/// What either server picks for itself, set aside before comparing.
const OWN_CHOICE: [&str; 7] = [
    "uid",
    "creationTimestamp",
    "resourceVersion",
    "managedFields",
    "message",
    "clusterIP",
    "clusterIPs",
];

fn normalised(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| !OWN_CHOICE.contains(&key.as_str()))
                .map(|(key, value)| match key.as_str() {
                    // An opaque token of the server's own making: whether there is one counts.
                    "continue" => (key.clone(), json!("<token>")),
                    _ => (key.clone(), normalised(value)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalised).collect()),
        other => other.clone(),
    }
}

/// The script's steps run on both servers, the differences collected.
struct Script {
    stand_in: Target,
    real: Target,
    differences: Vec<String>,
}

impl Script {
    /// Sends the same request to both; notes a difference; the two answers.
    async fn step(
        &mut self,
        what: &str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> ((u16, Value), (u16, Value)) {
        let stand_in = self
            .stand_in
            .send(method.clone(), path, body.as_ref())
            .await;
        let real = self.real.send(method, path, body.as_ref()).await;
        self.compare(what, &stand_in, &real);
        (stand_in, real)
    }

    /// As [`Self::step`], each server sent a body of its own (made from its own earlier answer:
    /// a replace carries the server's own resource version).
    async fn step_each(
        &mut self,
        what: &str,
        method: Method,
        path: &str,
        bodies: [Value; 2],
    ) -> ((u16, Value), (u16, Value)) {
        let [for_stand_in, for_real] = bodies;
        let stand_in = self
            .stand_in
            .send(method.clone(), path, Some(&for_stand_in))
            .await;
        let real = self.real.send(method, path, Some(&for_real)).await;
        self.compare(what, &stand_in, &real);
        (stand_in, real)
    }

    fn compare(&mut self, what: &str, stand_in: &(u16, Value), real: &(u16, Value)) {
        let (ours, theirs) = (normalised(&stand_in.1), normalised(&real.1));
        if stand_in.0 != real.0 || ours != theirs {
            self.differences.push(format!(
                "{what}:\n  kube-test-server {} {ours}\n  kube-apiserver   {} {theirs}",
                stand_in.0, real.0
            ));
        }
    }

    /// Compares a value each side computed from its own answers.
    fn compare_values(&mut self, what: &str, stand_in: Value, real: Value) {
        if stand_in != real {
            self.differences.push(format!(
                "{what}:\n  kube-test-server {stand_in}\n  kube-apiserver   {real}"
            ));
        }
    }
}

fn names(list: &Value) -> Value {
    list["items"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|item| item["metadata"]["name"].clone())
                .collect()
        })
        .unwrap_or_default()
}

/// The resources of a discovery document the stand-in serves, by name.
fn resources(document: &Value, served: &[&str]) -> Value {
    let mut found: Vec<Value> = document["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|resource| served.contains(&resource["name"].as_str().unwrap_or("")))
        .map(|resource| {
            json!({
                "name": resource["name"],
                "kind": resource["kind"],
                "namespaced": resource["namespaced"],
            })
        })
        .collect();
    found.sort_by_key(|resource| resource["name"].to_string());
    Value::Array(found)
}

#[tokio::test]
async fn the_stand_in_answers_the_script_as_the_real_api_server_does() {
    let real_cluster = tokio::task::spawn_blocking(|| {
        let cluster = KubeCluster::shared();
        cluster.install_gateway_api_crds();
        cluster
    })
    .await
    .unwrap();
    let stand_in_server = KubeTestServer::start(Options::default()).unwrap();
    let mut script = Script {
        stand_in: Target {
            name: "kube-test-server",
            base: stand_in_server.url().to_owned(),
            client: reqwest::Client::new(),
        },
        real: Target {
            name: "kube-apiserver",
            base: real_cluster.url().to_owned(),
            client: real_cluster.admin_client(),
        },
        differences: Vec::new(),
    };
    let ns = "conformance";
    let ingresses = format!("/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses");

    // The stand-in's namespaces are made by its owner (it serves no namespace writes).
    stand_in_server.cluster.add_namespace(ns);
    let (status, body) = script
        .real
        .send(
            Method::POST,
            "/api/v1/namespaces",
            Some(&json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    script
        .step(
            "read the namespace",
            Method::GET,
            &format!("/api/v1/namespaces/{ns}"),
            None,
        )
        .await;

    // IngressClasses (cluster-scoped, made by the owner as namespaces are): read, list, absent.
    let class = json!({
        "apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
        "metadata": {"name": "conformance-nginx",
            "annotations": {"ingressclass.kubernetes.io/is-default-class": "true"}},
        "spec": {"controller": "k8s.io/ingress-nginx"}
    });
    stand_in_server
        .cluster
        .put(Kind::IngressClass, class.clone());
    let (status, body) = script
        .real
        .send(
            Method::POST,
            "/apis/networking.k8s.io/v1/ingressclasses",
            Some(&class),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let classes = "/apis/networking.k8s.io/v1/ingressclasses";
    script
        .step(
            "read an IngressClass",
            Method::GET,
            &format!("{classes}/conformance-nginx"),
            None,
        )
        .await;
    script
        .step(
            "read an IngressClass that does not exist",
            Method::GET,
            &format!("{classes}/absent"),
            None,
        )
        .await;
    script
        .step(
            "list the IngressClasses",
            Method::GET,
            &format!("{classes}?fieldSelector=metadata.name%3Dconformance-nginx"),
            None,
        )
        .await;

    // Ingresses: create, conflict, missing namespace, invalid name, replace, stale replace.
    let ingress = json!({
        "apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {"rules": [{"host": "web.example.com", "http": {"paths": [{
            "path": "/", "pathType": "Prefix",
            "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}],
            "tls": [{"hosts": ["web.example.com"], "secretName": "web-tls"}]}
    });
    let ((_, created), (_, real_created)) = script
        .step(
            "create an Ingress",
            Method::POST,
            &ingresses,
            Some(ingress.clone()),
        )
        .await;
    script
        .step(
            "create it again",
            Method::POST,
            &ingresses,
            Some(ingress.clone()),
        )
        .await;
    script
        .step(
            "create in a namespace that does not exist",
            Method::POST,
            "/apis/networking.k8s.io/v1/namespaces/nowhere/ingresses",
            Some(ingress.clone()),
        )
        .await;
    let mut invalid = ingress.clone();
    invalid["metadata"]["name"] = json!("Not_A_Name");
    script
        .step(
            "create with an invalid name",
            Method::POST,
            &ingresses,
            Some(invalid),
        )
        .await;
    let mut stale = ingress.clone();
    stale["metadata"]["resourceVersion"] = json!("1");
    script
        .step(
            "replace with a stale resourceVersion",
            Method::PUT,
            &format!("{ingresses}/web"),
            Some(stale),
        )
        .await;
    // Each side replaces with its own current version.
    let replacing = |current: &Value| {
        let mut body = ingress.clone();
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"].clone();
        body["spec"]["ingressClassName"] = json!("nginx");
        body
    };
    script
        .step_each(
            "replace with the current version",
            Method::PUT,
            &format!("{ingresses}/web"),
            [replacing(&created), replacing(&real_created)],
        )
        .await;
    script
        .step(
            "read the replaced Ingress",
            Method::GET,
            &format!("{ingresses}/web"),
            None,
        )
        .await;
    script
        .step(
            "read an Ingress that does not exist",
            Method::GET,
            &format!("{ingresses}/absent"),
            None,
        )
        .await;

    // The other kinds, with the defaults each server adds.
    let services = format!("/api/v1/namespaces/{ns}/services");
    let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80}]}});
    let ((_, service_created), (_, real_service_created)) = script
        .step(
            "create a Service",
            Method::POST,
            &services,
            Some(service.clone()),
        )
        .await;
    // A replace without the ClusterIP keeps it; one with another ClusterIP is refused.
    let port_changed = |current: &Value| {
        let mut body = service.clone();
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"].clone();
        body["spec"]["ports"][0]["port"] = json!(8080);
        body
    };
    let ((_, kept), (_, real_kept)) = script
        .step_each(
            "replace a Service without its ClusterIP",
            Method::PUT,
            &format!("{services}/web"),
            [
                port_changed(&service_created),
                port_changed(&real_service_created),
            ],
        )
        .await;
    script.compare_values(
        "the ClusterIP a replace keeps",
        json!(kept["spec"]["clusterIP"] == service_created["spec"]["clusterIP"]),
        json!(real_kept["spec"]["clusterIP"] == real_service_created["spec"]["clusterIP"]),
    );
    let mut other_ip = service.clone();
    other_ip["spec"]["clusterIP"] = json!("10.0.0.1");
    script
        .step(
            "replace a Service with another ClusterIP",
            Method::PUT,
            &format!("{services}/web"),
            Some(other_ip),
        )
        .await;
    script
        .step(
            "create an EndpointSlice",
            Method::POST,
            &format!("/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices"),
            Some(
                json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                "metadata": {"name": "web-abcde", "labels": {"kubernetes.io/service-name": "web"}},
                "addressType": "IPv4",
                "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
                "endpoints": [{"addresses": ["10.1.0.7"], "conditions": {"ready": true}}]}),
            ),
        )
        .await;
    script
        .step(
            "create a TLS Secret",
            Method::POST,
            &format!("/api/v1/namespaces/{ns}/secrets"),
            Some(
                json!({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
                "metadata": {"name": "web-tls"},
                "data": {"tls.crt": "Y2VydA==", "tls.key": "a2V5"}}),
            ),
        )
        .await;
    script
        .step(
            "create a Secret from stringData",
            Method::POST,
            &format!("/api/v1/namespaces/{ns}/secrets"),
            Some(json!({"apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": "creds"}, "stringData": {"user": "admin"}})),
        )
        .await;
    script
        .step(
            "create a TLS Secret without its key",
            Method::POST,
            &format!("/api/v1/namespaces/{ns}/secrets"),
            Some(
                json!({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
                "metadata": {"name": "broken-tls"}, "data": {"tls.crt": "Y2VydA=="}}),
            ),
        )
        .await;
    script
        .step(
            "create an Event",
            Method::POST,
            &format!("/api/v1/namespaces/{ns}/events"),
            Some(json!({"apiVersion": "v1", "kind": "Event",
                "metadata": {"name": "web.1"},
                "involvedObject": {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                    "namespace": ns, "name": "web"},
                "reason": "Sync", "message": "Scheduled for sync", "type": "Normal",
                "source": {"component": "ingress-nginx-controller"},
                "firstTimestamp": "2026-11-28T00:00:00Z", "lastTimestamp": "2026-11-28T00:00:00Z",
                "count": 1})),
        )
        .await;
    script
        .step(
            "create an HTTPRoute that does not fit the CRD's schema",
            Method::POST,
            &format!("/apis/gateway.networking.k8s.io/v1/namespaces/{ns}/httproutes"),
            Some(
                json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
                "metadata": {"name": "bad"}, "spec": {"hostnames": "not-a-list"}}),
            ),
        )
        .await;
    script
        .step(
            "create an HTTPRoute",
            Method::POST,
            &format!("/apis/gateway.networking.k8s.io/v1/namespaces/{ns}/httproutes"),
            Some(
                json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
                "metadata": {"name": "web"},
                "spec": {"parentRefs": [{"name": "gateway"}], "hostnames": ["web.example.com"],
                    "rules": [{"backendRefs": [{"name": "web", "port": 80}]}]}}),
            ),
        )
        .await;

    // Lists: the kind, the items, pages.
    script
        .step(
            "list the namespace's Ingresses",
            Method::GET,
            &ingresses,
            None,
        )
        .await;
    let mut second = ingress.clone();
    second["metadata"]["name"] = json!("api");
    script
        .step(
            "create a second Ingress",
            Method::POST,
            &ingresses,
            Some(second),
        )
        .await;
    let ((_, first), (_, real_first)) = script
        .step(
            "the first page of one",
            Method::GET,
            &format!("{ingresses}?limit=1"),
            None,
        )
        .await;
    let mut pages = Vec::new();
    for (target, first) in [(&script.stand_in, &first), (&script.real, &real_first)] {
        let token = first["metadata"]["continue"].as_str().unwrap_or_default();
        let (status, second) = target
            .send(
                Method::GET,
                &format!("{ingresses}?limit=1&continue={token}"),
                None,
            )
            .await;
        pages.push(json!([
            status,
            names(&second),
            second["metadata"].get("continue")
        ]));
    }
    let real_page = pages.pop().unwrap();
    script.compare_values("the second page", pages.pop().unwrap(), real_page);

    // A watch from the list's version sees a change and a delete.
    let mut seen = Vec::new();
    for target in [&script.stand_in, &script.real] {
        let (_, list) = target.send(Method::GET, &ingresses, None).await;
        let from = list["metadata"]["resourceVersion"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        target
            .send(Method::DELETE, &format!("{ingresses}/api"), None)
            .await;
        let events = target
            .watch(
                &format!("{ingresses}?watch=1&resourceVersion={from}&timeoutSeconds=5"),
                1,
            )
            .await;
        seen.push(json!(
            events
                .iter()
                .map(|event| json!([
                    event["type"],
                    event["object"]["kind"],
                    event["object"]["metadata"]["name"]
                ]))
                .collect::<Vec<_>>()
        ));
    }
    let real_seen = seen.pop().unwrap();
    script.compare_values(
        "a watch from the list's version",
        seen.pop().unwrap(),
        real_seen,
    );

    // Delete, then delete again.
    script
        .step(
            "delete the Ingress",
            Method::DELETE,
            &format!("{ingresses}/web"),
            None,
        )
        .await;
    script
        .step(
            "delete it again",
            Method::DELETE,
            &format!("{ingresses}/web"),
            None,
        )
        .await;

    // Discovery of the groups ingress-dash reads.
    for (group, served) in [
        (
            "/api/v1",
            &["namespaces", "services", "secrets", "events"][..],
        ),
        (
            "/apis/networking.k8s.io/v1",
            &["ingresses", "ingressclasses"][..],
        ),
        ("/apis/discovery.k8s.io/v1", &["endpointslices"][..]),
        (
            "/apis/gateway.networking.k8s.io/v1",
            &["gateways", "httproutes", "grpcroutes", "tlsroutes"][..],
        ),
    ] {
        let (_, ours) = script.stand_in.send(Method::GET, group, None).await;
        let (_, theirs) = script.real.send(Method::GET, group, None).await;
        script.compare_values(
            &format!("discovery {group}"),
            resources(&ours, served),
            resources(&theirs, served),
        );
    }

    assert!(
        script.differences.is_empty(),
        "{} difference(s):\n{}",
        script.differences.len(),
        script.differences.join("\n")
    );
}
