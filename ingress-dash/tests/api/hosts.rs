//! The Hosts view (`GET /api/hosts`) against the real kube-apiserver: the sample of `make run`
//! (`real_kube::sample_cluster`, Gateway API CRDs and cert-manager's Certificate CRD installed)
//! shows a conflict between an Ingress and an HTTPRoute on one host, a duplicate rule, two
//! Secrets for one wildcard host and conflicts on it, each backend's endpoints and
//! cert-manager's status; and a caller limited to some namespaces learns nothing, not even a
//! conflict, of an object in another.

use std::time::Duration;

use serde_json::{Value, json};
use test_support::eventually_with;
use test_support::kube_cluster::KubeCluster;

use crate::real_kube::sample_cluster::sample_cluster;
use crate::real_kube::{Cluster, INGRESS, RealApp, spawn_real, spawn_real_server};

const WAIT: Duration = Duration::from_secs(30);

/// The test client (127.0.0.1) plays the sign-in proxy.
const LOOPBACK_IS_TRUSTED: &str = "  trusted_proxies: [127.0.0.0/8, \"::1\"]\n";

fn host<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["host"] == name)
        .unwrap_or_else(|| panic!("no host {name} in {report}"))
}

fn keys(entry: &Value) -> Vec<String> {
    let mut keys: Vec<String> = entry["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|object| object["key"].as_str().unwrap().to_owned())
        .collect();
    keys.sort();
    keys
}

/// `/api/hosts{query}` once the sample's backends are known (every backend has a state).
async fn hosts_when_joined(app: &RealApp, query: &str) -> Value {
    eventually_with("the hosts with their backends", WAIT, async || {
        let (status, body) = app.get_json(&format!("/api/hosts{query}")).await;
        let joined = body["hosts"].as_array().is_some_and(|hosts| {
            hosts
                .iter()
                .flat_map(|entry| entry["paths"].as_array().into_iter().flatten())
                .flat_map(|path| path["backends"].as_array().into_iter().flatten())
                .filter(|backend| backend["kind"] == "Service")
                .all(|backend| backend.get("state").is_some())
        });
        if status == 200 && joined && !body["hosts"].as_array().unwrap().is_empty() {
            Ok(body)
        } else {
            Err(format!("{status} {body}"))
        }
    })
    .await
}

#[tokio::test]
async fn the_sample_shows_an_ingress_and_an_httproute_in_conflict_on_one_host() {
    let app = spawn_real(Cluster::Shared(sample_cluster()), None, "", "").await;
    let report = hosts_when_joined(&app, "?namespaces=team-000").await;
    assert_eq!(report["errors"], json!([]));
    let shared = host(&report, "app-00020.team-000.example.com");
    assert_eq!(
        keys(shared),
        [
            "grpcroute/team-000/app-00020-grpc",
            "httproute/team-000/app-00020-gateway",
            "team-000/app-00020"
        ]
    );
    let route = shared["objects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|object| object["kind"] == "HTTPRoute")
        .unwrap();
    assert_eq!(route["listeners"], json!(["gateway-system/public/https"]));
    assert_eq!(shared["conflict"], true);
    assert_eq!(
        shared["conflicts"],
        json!([{"matched": "PathPrefix /api", "objects": ["httproute/team-000/app-00020-gateway", "team-000/app-00020"]}])
    );
    assert_eq!(shared["duplicate"], true);
    assert_eq!(
        shared["duplicates"],
        json!([{"matched": "PathPrefix /v2", "object": "httproute/team-000/app-00020-gateway", "times": 2}])
    );
    // The Ingress's `/` goes to Service app-00020, whose endpoints are all ready.
    let root = shared["paths"]
        .as_array()
        .unwrap()
        .iter()
        .find(|path| path["matched"] == "PathPrefix /" && path["object"] == "team-000/app-00020")
        .unwrap();
    let backend = &root["backends"][0];
    assert_eq!(
        (&backend["name"], &backend["state"]),
        (&json!("app-00020"), &json!("ready"))
    );
    assert!(backend["totalEndpoints"].as_u64().unwrap() > 0);
    assert_eq!(backend["readyEndpoints"], backend["totalEndpoints"]);
    // The Ingress's own Secret and the certificate of listener `https` the HTTPRoute comes
    // through: two Secrets, a TLS overlap.
    assert_eq!(shared["tlsOverlap"], true);
    let secrets: Vec<String> = shared["tls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tls| {
            format!(
                "{}/{} {}",
                tls["namespace"], tls["secretName"], tls["listener"]
            )
        })
        .collect();
    assert_eq!(
        secrets,
        [
            r#""team-000"/"app-00020-tls" null"#,
            r#""gateway-system"/"public-tls" "gateway-system/public/https""#,
        ],
        "{shared}"
    );
}

#[tokio::test]
async fn the_sample_shows_a_grpc_route_and_two_tls_routes_on_one_sni_host() {
    let app = spawn_real(Cluster::Shared(sample_cluster()), None, "", "").await;
    let report = hosts_when_joined(&app, "?namespaces=team-000").await;
    let shared = host(&report, "app-00020.team-000.example.com");
    let grpc = shared["objects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|object| object["kind"] == "GRPCRoute")
        .unwrap_or_else(|| panic!("{shared}"));
    assert_eq!(grpc["listeners"], json!(["gateway-system/public/grpc"]));
    // Gateway gateway-system/public of the sample, read for the answer: its listener grpc
    // allows HTTPRoutes only.
    assert_eq!(grpc["attachments"][0]["listeners"], json!([]));
    assert_eq!(
        grpc["attachments"][0]["problem"],
        "listener grpc does not allow GRPCRoute"
    );
    let method = shared["paths"]
        .as_array()
        .unwrap()
        .iter()
        .find(|path| path["object"] == "grpcroute/team-000/app-00020-grpc")
        .unwrap_or_else(|| panic!("{shared}"));
    assert_eq!(method["matched"], "gRPC shop.Cart/AddItem");
    assert_eq!(method["backends"][0]["state"], "ready");
    let db = host(&report, "db.team-000.example.com");
    assert_eq!(
        keys(db),
        ["tlsroute/team-000/db", "tlsroute/team-000/db-replica"]
    );
    assert_eq!(
        db["conflicts"],
        json!([{"matched": "SNI", "objects": ["tlsroute/team-000/db", "tlsroute/team-000/db-replica"]}])
    );
    let states: Vec<&Value> = db["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|path| &path["backends"][0]["state"])
        .collect();
    assert_eq!(states, [&json!("ready"), &json!("missing_service")]);
    assert_eq!(
        db["objects"][0]["attachments"][0]["problem"],
        "no such listener: Gateway gateway-system/public has no listener named tls"
    );
}

#[tokio::test]
async fn the_sample_shows_two_secrets_for_one_wildcard_and_cert_manager_s_status() {
    let app = spawn_real(Cluster::Shared(sample_cluster()), None, "", "").await;
    let report = hosts_when_joined(&app, "?namespaces=team-000").await;
    let wildcard = host(&report, "*.team-000.example.com");
    assert_eq!(wildcard["tlsOverlap"], true);
    let mut secrets: Vec<&str> = wildcard["tls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tls| tls["secretName"].as_str().unwrap())
        .collect();
    secrets.sort();
    assert_eq!(secrets, ["wildcard-old-tls", "wildcard-tls"]);
    // Every fifth sample ingress routes the wildcard's `/` to a resource backend.
    assert_eq!(wildcard["conflict"], true);
    assert_eq!(
        wildcard["conflicts"][0]["matched"],
        "ImplementationSpecific /"
    );
    assert_eq!(
        wildcard["conflicts"][0]["objects"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    // app-00000's certificate comes from its cert-manager Certificate, Ready.
    let tls = &host(&report, "app-00000.team-000.example.com")["tls"][0];
    assert_eq!(tls["source"], "cert_manager", "{tls}");
    assert_eq!(tls["certManagerReady"], true);
    assert!(tls["notAfter"].as_str().is_some());
    assert!(report["counts"]["conflicts"].as_u64().unwrap() >= 2);
    assert!(report["counts"]["tlsOverlaps"].as_u64().unwrap() >= 1);

    // Search and the flagged filter narrow the hosts.
    let (_, found) = app
        .get_json("/api/hosts?namespaces=team-000&search=APP-00020-gateway")
        .await;
    let names: Vec<&str> = found["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["host"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["app-00020.team-000.example.com"]);
    let (_, flagged) = app
        .get_json("/api/hosts?namespaces=team-000&flagged=true")
        .await;
    let flagged = flagged["hosts"].as_array().unwrap();
    assert!(flagged.len() >= 2);
    assert!(flagged.iter().all(|entry| entry["conflict"] == true
        || entry["tlsOverlap"] == true
        || entry["duplicate"] == true));
    let (status, body) = app.get_json("/api/hosts?flagged=maybe").await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (400, &json!("invalid_parameter"))
    );
}

/// `GET path` as a user of `groups`, as the sign-in proxy forwards it.
async fn get_as(app: &RealApp, path: &str, groups: &str) -> (u16, Value) {
    let response = app
        .client
        .get(format!("{}{path}", app.address))
        .header("X-Auth-Request-User", "someone")
        .header("X-Auth-Request-Groups", groups)
        .send()
        .await
        .expect("request sent");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON body"))
}

fn ingress(namespace: &str, name: &str, secret: &str) -> Value {
    json!({
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "rules": [{"host": "shared.hosts.example.com", "http": {"paths": [
                {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": name, "port": {"number": 80}}}},
            ]}}],
            "tls": [{"hosts": ["shared.hosts.example.com"], "secretName": secret}],
        },
    })
}

#[tokio::test]
async fn a_user_limited_to_one_namespace_learns_nothing_of_another_s_objects_on_its_hosts() {
    let mapping = "access:\n  mode: trusted_headers\n  namespaces_by_group:\n    \
                   shop: [hosts-shop]\n    sre: [\"*\"]\n";
    let app = spawn_real_server(
        Cluster::Shared(KubeCluster::shared()),
        None,
        LOOPBACK_IS_TRUSTED,
        "",
        mapping,
    )
    .await;
    let (shop, hidden) = ("hosts-shop", "hosts-hidden");
    app.kube.namespaces(&[shop, hidden]).await;
    app.kube
        .put(INGRESS, ingress(shop, "web", "shop-tls"))
        .await;
    app.kube
        .put(INGRESS, ingress(hidden, "hidden-copy", "hidden-secret-tls"))
        .await;

    // Everyone's view: the two Ingresses conflict and present two Secrets.
    let everyone = eventually_with("both ingresses on the host", WAIT, async || {
        let (status, body) = get_as(
            &app,
            &format!("/api/hosts?namespaces={shop},{hidden}"),
            "sre",
        )
        .await;
        match body["hosts"].as_array() {
            Some(hosts)
                if status == 200
                    && hosts.len() == 1
                    && hosts[0]["objects"].as_array().is_some_and(|o| o.len() == 2) =>
            {
                Ok(body)
            }
            _ => Err(format!("{status} {body}")),
        }
    })
    .await;
    let entry = host(&everyone, "shared.hosts.example.com");
    assert_eq!(
        (&entry["conflict"], &entry["tlsOverlap"]),
        (&json!(true), &json!(true))
    );

    // The shop's view: its own Ingress only, nothing flagged, no word of the other namespace.
    for path in [
        "/api/hosts",
        "/api/hosts?search=shared",
        "/api/hosts?flagged=true",
    ] {
        let (status, body) = get_as(&app, path, "shop").await;
        assert_eq!(status, 200, "{body}");
        let text = body.to_string();
        for secret in [hidden, "hidden-copy", "hidden-secret-tls"] {
            assert!(!text.contains(secret), "{path}: {text}");
        }
        if path.contains("flagged") {
            assert_eq!(body["hosts"], json!([]), "{text}");
            continue;
        }
        let entry = host(&body, "shared.hosts.example.com");
        assert_eq!(keys(entry), [format!("{shop}/web")]);
        assert_eq!(
            (
                &entry["conflict"],
                &entry["tlsOverlap"],
                &entry["conflicts"]
            ),
            (&json!(false), &json!(false), &json!([]))
        );
        assert_eq!(
            body["counts"],
            json!({"hosts": 1, "conflicts": 0, "tlsOverlaps": 0, "duplicates": 0})
        );
    }
    let (status, body) = get_as(&app, &format!("/api/hosts?namespaces={hidden}"), "shop").await;
    assert_eq!((status, &body["error"]["code"]), (403, &json!("forbidden")));
    let unauthenticated = app.get("/api/hosts").await;
    assert_eq!(unauthenticated.status(), 401);
}
