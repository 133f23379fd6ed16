//! The stand-in against the real thing: one script of requests, the kinds ingress-dash reads and
//! `make run` serves (namespaces, IngressClasses, Ingresses, Services, EndpointSlices, TLS
//! Secrets, Events, HTTPRoutes on the real Gateway API CRDs), run against kube-test-server and against a real
//! kube-apiserver (the version pinned in versions.env, `test_support::KubeCluster`), and the
//! answers compared: status codes, Status bodies (reason, code, details) and objects with the
//! server's defaults, after setting aside what each server picks for itself (uids, timestamps,
//! resource version values, managed fields, allocated cluster IPs, messages' wording). Every
//! difference of a test is reported at once. Each test has a namespace of its own on the shared
//! real cluster and a stand-in of its own.

mod gateway_api;
mod ingresses;
mod kinds;

use std::time::Duration;

use futures_util::StreamExt;
use kube_test_server::{KubeTestServer, Options};
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

impl Script {
    /// A stand-in of its own and the shared real cluster (with the Gateway API CRDs), each
    /// with namespace `ns`, read on both as the first step.
    async fn start(ns: &str) -> (Self, KubeTestServer) {
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
        (script, stand_in_server)
    }

    /// Fails with every difference noted.
    fn finish(self) {
        assert!(
            self.differences.is_empty(),
            "{} difference(s):\n{}",
            self.differences.len(),
            self.differences.join("\n")
        );
    }
}

#[tokio::test]
async fn discovery_of_the_groups_ingress_dash_reads_is_the_real_servers() {
    let (mut script, _stand_in) = Script::start("conformance-discovery").await;
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

    script.finish();
}
