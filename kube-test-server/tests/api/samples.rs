//! The sample set `make run` shows: the ingresses as before, what stands behind them, and each
//! situation a newcomer must see, checked through the API (and the certificates with the real
//! `openssl`).

use std::process::Command;
use std::time::SystemTime;

use kube_test_server::{Kind, KubeTestServer, Options, sample};
use serde_json::Value;
use test_support::TempDir;

fn decode_base64(text: &str) -> Vec<u8> {
    let bytes: k8s_openapi::ByteString = serde_json::from_value(Value::from(text)).unwrap();
    bytes.0
}

/// `openssl x509` on the PEM of `tls.crt`: its notAfter (as seconds from now) and its DNS SANs.
fn inspect(certificate_pem: &[u8]) -> (i64, Vec<String>) {
    let dir = TempDir::new("sample-certificate");
    let file = dir.path().join("tls.crt");
    std::fs::write(&file, certificate_pem).unwrap();
    let output = Command::new("openssl")
        .args([
            "x509",
            "-noout",
            "-enddate",
            "-ext",
            "subjectAltName",
            "-dateopt",
            "iso_8601",
            "-in",
        ])
        .arg(&file)
        .output()
        .expect("running openssl");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let end = text
        .lines()
        .find_map(|line| line.strip_prefix("notAfter="))
        .expect("notAfter");
    let end: k8s_openapi::jiff::Timestamp = end.trim().replace(' ', "T").parse().unwrap();
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let names = text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter_map(|word| word.strip_prefix("DNS:"))
        .map(str::to_owned)
        .collect();
    (end.as_second() - now, names)
}

#[test]
fn the_sample_set_shows_every_situation_and_keeps_the_ingresses() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    let cluster = &server.cluster;
    sample::populate_everything(cluster, 12, 3).unwrap();
    assert_eq!(cluster.ingresses().len(), 12);
    assert_eq!(cluster.list(Kind::Namespace, None).len(), 3);

    // Every backend of a healthy ingress has a Service and ready endpoints.
    let ready = |namespace: &str, service: &str| -> Option<bool> {
        cluster.get(Kind::Service, Some(namespace), service)?;
        let slices = cluster.list(Kind::EndpointSlice, Some(namespace));
        let slice = slices
            .iter()
            .find(|slice| slice["metadata"]["labels"][sample::SERVICE_NAME_LABEL] == service)?;
        Some(
            slice["endpoints"]
                .as_array()
                .unwrap()
                .iter()
                .any(|endpoint| endpoint["conditions"]["ready"] == true),
        )
    };
    assert_eq!(ready("team-000", "app-00003"), Some(true));
    assert_eq!(ready("team-000", "app-00003-api"), Some(true));
    assert_eq!(ready("team-000", "default-http-backend"), Some(true));
    // A broken backend, and a backend Service that does not exist.
    assert_eq!(ready("team-001", "app-00001"), Some(false));
    assert_eq!(ready("team-002", "app-00002"), Some(true));
    assert_eq!(ready("team-002", "app-00002-api"), None);
    let warnings: Vec<String> = cluster
        .list(Kind::Event, Some("team-001"))
        .iter()
        .filter(|event| {
            event["type"] == "Warning" && event["involvedObject"]["name"] == "app-00001"
        })
        .map(|event| event["reason"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");

    // The certificate expiring in 5 days misses the ingress's wildcard host.
    let secret = cluster
        .get(Kind::Secret, Some("team-000"), "app-00000-tls")
        .unwrap();
    assert_eq!(secret["type"], "kubernetes.io/tls");
    let key = decode_base64(secret["data"]["tls.key"].as_str().unwrap());
    assert!(
        String::from_utf8(key)
            .unwrap()
            .starts_with("-----BEGIN PRIVATE KEY-----")
    );
    let (left, names) = inspect(&decode_base64(secret["data"]["tls.crt"].as_str().unwrap()));
    assert!((4 * 86_400 + 86_000..=5 * 86_400).contains(&left), "{left}");
    assert_eq!(names, ["app-00000.team-000.example.com"]);
    let ingress = cluster.ingress("team-000", "app-00000").unwrap();
    let hosts: Vec<&str> = ingress["spec"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|rule| rule["host"].as_str())
        .collect();
    assert!(
        hosts
            .iter()
            .any(|host| !names.iter().any(|name| name == host))
    );
    let certificate = cluster
        .get(Kind::Certificate, Some("team-000"), "app-00000")
        .unwrap();
    assert_eq!(certificate["spec"]["secretName"], "app-00000-tls");
    let not_after: k8s_openapi::jiff::Timestamp = certificate["status"]["notAfter"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap();
    assert!((not_after.as_second() - now.as_secs() as i64 - left).abs() <= 2);
    // ... and one valid for 80 days.
    let secret = cluster
        .get(Kind::Secret, Some("team-002"), "app-00002-tls")
        .unwrap();
    let (left, names) = inspect(&decode_base64(secret["data"]["tls.crt"].as_str().unwrap()));
    assert!((79 * 86_400..=80 * 86_400).contains(&left), "{left}");
    assert_eq!(names, ["app-00002.team-002.example.com"]);

    // Two HTTPRoutes: one resolved, one with a backendRef to a Service that does not exist.
    let conditions = |name: &str| -> Vec<(String, String, String)> {
        let route = cluster
            .get(Kind::HttpRoute, Some("team-000"), name)
            .unwrap();
        route["status"]["parents"][0]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let field = |f: &str| c[f].as_str().unwrap().to_owned();
                (field("type"), field("status"), field("reason"))
            })
            .collect()
    };
    let owned = |t: &str, s: &str, r: &str| (t.to_owned(), s.to_owned(), r.to_owned());
    assert_eq!(
        conditions("storefront"),
        [
            owned("Accepted", "True", "Accepted"),
            owned("ResolvedRefs", "True", "ResolvedRefs")
        ]
    );
    assert_eq!(
        conditions("checkout"),
        [
            owned("Accepted", "True", "Accepted"),
            owned("ResolvedRefs", "False", "BackendNotFound")
        ]
    );
    let checkout = cluster
        .get(Kind::HttpRoute, Some("team-000"), "checkout")
        .unwrap();
    let backend = checkout["spec"]["rules"][0]["backendRefs"][0]["name"]
        .as_str()
        .unwrap();
    assert!(
        cluster
            .get(Kind::Service, Some("team-000"), backend)
            .is_none()
    );
    assert_eq!(ready("team-000", "storefront"), Some(true));
}

#[test]
fn the_sample_set_shows_the_hosts_view_situations() {
    let cluster = kube_test_server::Cluster::new(Options::default());
    sample::populate_everything(&cluster, 40, 10).unwrap();
    assert_eq!(cluster.ingresses().len(), 40);
    // An HTTPRoute beside Ingress app-00020 on its host, claiming its /api, and /v2 twice.
    let route = cluster
        .get(Kind::HttpRoute, Some("team-000"), "app-00020-gateway")
        .expect("the route");
    assert_eq!(
        route["spec"]["hostnames"][0],
        "app-00020.team-000.example.com"
    );
    let paths: Vec<&str> = route["spec"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| rule["matches"][0]["path"]["value"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["/api", "/v2", "/v2"]);
    let ingress = cluster
        .get(Kind::Ingress, Some("team-000"), "app-00020")
        .unwrap();
    assert_eq!(
        ingress["spec"]["rules"][0]["http"]["paths"][1]["path"],
        "/api"
    );
    // Two Secrets for the wildcard host of team-000, each with a certificate for it.
    for (name, secret) in [
        ("app-00010", "wildcard-tls"),
        ("app-00030", "wildcard-old-tls"),
    ] {
        let ingress = cluster.get(Kind::Ingress, Some("team-000"), name).unwrap();
        let tls = ingress["spec"]["tls"].as_array().unwrap();
        assert_eq!(tls.len(), 2, "{ingress}");
        assert_eq!(tls[1]["hosts"][0], "*.team-000.example.com");
        assert_eq!(tls[1]["secretName"], secret);
        let stored = cluster.get(Kind::Secret, Some("team-000"), secret).unwrap();
        let pem = decode_base64(stored["data"]["tls.crt"].as_str().unwrap());
        let (_, names) = inspect(&pem);
        assert_eq!(names, ["*.team-000.example.com"]);
    }
}

#[tokio::test]
async fn the_sample_set_serves_the_ingress_classes_its_ingresses_name() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate_everything(&server.cluster, 12, 3).unwrap();
    let get = |path: &str| {
        let url = format!("{}{path}", server.url());
        async move {
            reqwest::get(url)
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        }
    };
    let classes = get("/apis/networking.k8s.io/v1/ingressclasses").await;
    assert_eq!(classes["kind"], "IngressClassList");
    let controllers: Vec<(&str, &str)> = classes["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|class| {
            let name = class["metadata"]["name"].as_str().unwrap();
            (name, class["spec"]["controller"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        controllers,
        [
            ("haproxy", "haproxy.org/ingress-controller/haproxy"),
            ("nginx", "k8s.io/ingress-nginx"),
            ("traefik", "traefik.io/ingress-controller"),
        ]
    );
    let nginx = get("/apis/networking.k8s.io/v1/ingressclasses/nginx").await;
    assert_eq!(
        nginx["metadata"]["annotations"]["ingressclass.kubernetes.io/is-default-class"],
        "true"
    );
    // Every class an ingress names exists.
    for ingress in server.cluster.ingresses() {
        let class = ingress["spec"]["ingressClassName"]
            .as_str()
            .or(ingress["metadata"]["annotations"]["kubernetes.io/ingress.class"].as_str());
        if let Some(class) = class {
            assert!(
                controllers.iter().any(|(name, _)| *name == class),
                "{class}"
            );
        }
    }
    // app-00004 (team-001 of 3) carries the explainer's other classifications.
    let legacy = server
        .cluster
        .get(Kind::Ingress, Some("team-001"), "app-00004")
        .unwrap();
    let annotations = &legacy["metadata"]["annotations"];
    assert_eq!(legacy["spec"]["ingressClassName"], "nginx");
    for key in [
        "rewrite-target",
        "configuration-snippet",
        "proxy-body-sise",
        "proxy-body-size",
    ] {
        assert!(
            annotations[format!("nginx.ingress.kubernetes.io/{key}")].is_string(),
            "{key} in {annotations}"
        );
    }
}
