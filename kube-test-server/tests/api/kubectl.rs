//! Fidelity proof: the real kubectl talks to the server over plain HTTP.

use std::process::Command;

use kube_test_server::{KubeTestServer, Options, sample};
use test_support::TempDir;

fn kubectl(server: &KubeTestServer, args: &[&str]) -> String {
    let dir = TempDir::new("kubectl");
    let config = dir.path().join("kubeconfig");
    std::fs::write(&config, server.kubeconfig()).unwrap();
    let output = Command::new("/usr/bin/kubectl")
        .arg("--kubeconfig")
        .arg(&config)
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .args(args)
        .env_remove("KUBECONFIG")
        .output()
        .expect("running kubectl");
    assert!(
        output.status.success(),
        "kubectl {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn kubectl_get_ingress_all_namespaces_as_json() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate(&server.cluster, 6, 2);
    let output = kubectl(&server, &["get", "ingress", "-A", "-o", "json"]);
    let list: serde_json::Value = serde_json::from_str(&output).unwrap();
    assert_eq!(list["kind"], "List");
    assert_eq!(list["apiVersion"], "v1");
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 6);
    for item in items {
        assert_eq!(item["kind"], "Ingress");
        assert_eq!(item["apiVersion"], "networking.k8s.io/v1");
        assert!(item["metadata"]["resourceVersion"].as_str().is_some());
        assert!(item["metadata"]["uid"].as_str().is_some());
    }
    let names: Vec<(&str, &str)> = items
        .iter()
        .map(|item| {
            (
                item["metadata"]["namespace"].as_str().unwrap(),
                item["metadata"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(names.contains(&("team-000", "app-00000")));
    assert!(names.contains(&("team-001", "app-00005")));
    assert_eq!(
        items[0]["spec"]["rules"][0]["host"],
        "app-00000.team-000.example.com"
    );
}

#[test]
fn kubectl_get_namespaces_prints_the_server_table() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate(&server.cluster, 0, 3);
    let output = kubectl(&server, &["get", "ns"]);
    let lines: Vec<Vec<&str>> = output
        .lines()
        .map(|line| line.split_whitespace().collect())
        .collect();
    assert_eq!(lines[0], ["NAME", "STATUS", "AGE"]);
    let rows: Vec<(&str, &str)> = lines[1..].iter().map(|row| (row[0], row[1])).collect();
    assert_eq!(
        rows,
        [
            ("team-000", "Active"),
            ("team-001", "Active"),
            ("team-002", "Active")
        ]
    );
}

#[test]
fn kubectl_get_ingressclasses_prints_the_server_table() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate_ingress_classes(&server.cluster);
    let output = kubectl(&server, &["get", "ingressclass"]);
    let lines = rows(&output);
    assert_eq!(
        lines[0],
        ["NAME", "CONTROLLER", "PARAMETERS", "AGE"],
        "{output}"
    );
    let rows: Vec<&[&str]> = lines[1..].iter().map(|row| &row[..3]).collect();
    assert_eq!(
        rows,
        [
            &[
                "haproxy",
                "haproxy.org/ingress-controller/haproxy",
                "<none>"
            ][..],
            &["nginx", "k8s.io/ingress-nginx", "<none>"][..],
            &["traefik", "traefik.io/ingress-controller", "<none>"][..],
        ],
        "{output}"
    );
    let one = kubectl(&server, &["get", "ingressclass", "nginx", "-o", "json"]);
    let one: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(one["kind"], "IngressClass");
    assert_eq!(one["spec"]["controller"], "k8s.io/ingress-nginx");
}

/// Splits kubectl's table output into rows of cells (cells never hold spaces here except in
/// the events' messages, which are the last column).
fn rows(output: &str) -> Vec<Vec<&str>> {
    output
        .lines()
        .map(|line| line.split_whitespace().collect())
        .collect()
}

#[test]
fn kubectl_gets_every_kind_of_the_sample_set_across_namespaces() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate_everything(&server.cluster, 6, 3).unwrap();
    let output = kubectl(
        &server,
        &[
            "get",
            "services,endpointslices,secrets,events,httproutes",
            "-A",
        ],
    );
    let rows = rows(&output);
    let row = |prefix: &[&str]| -> Vec<&str> {
        rows.iter()
            .find(|row| row.starts_with(prefix))
            .unwrap_or_else(|| panic!("no row {prefix:?} in\n{output}"))
            .clone()
    };
    let headers: Vec<&Vec<&str>> = rows
        .iter()
        .filter(|row| row.first() == Some(&"NAMESPACE"))
        .collect();
    assert_eq!(headers.len(), 5, "{output}");
    assert_eq!(
        *headers[0],
        [
            "NAMESPACE",
            "NAME",
            "TYPE",
            "CLUSTER-IP",
            "EXTERNAL-IP",
            "PORT(S)",
            "AGE"
        ]
    );
    let service = row(&["team-001", "service/app-00001"]);
    assert_eq!(service[2..6], ["ClusterIP", service[3], "<none>", "80/TCP"]);
    assert!(service[3].starts_with("10.96."));
    assert!(!output.contains("service/app-00002-api"), "{output}");
    assert!(headers.iter().any(|h| **h
        == [
            "NAMESPACE",
            "NAME",
            "ADDRESSTYPE",
            "PORTS",
            "ENDPOINTS",
            "AGE"
        ]));
    let slice = rows
        .iter()
        .find(|row| {
            row.len() > 1
                && row[0] == "team-000"
                && row[1].starts_with("endpointslice.discovery.k8s.io/app-00000-")
        })
        .unwrap_or_else(|| panic!("no slice of app-00000 in\n{output}"));
    assert_eq!(slice[2..4], ["IPv4", "8080"]);
    assert_eq!(
        row(&["team-000", "secret/app-00000-tls"])[2..4],
        ["kubernetes.io/tls", "3"]
    );
    assert!(headers.iter().any(|h| h.starts_with(&[
        "NAMESPACE",
        "LAST",
        "SEEN",
        "TYPE",
        "REASON",
        "OBJECT"
    ])));
    let warning = rows
        .iter()
        .find(|row| row.contains(&"NoReadyEndpoints"))
        .unwrap_or_else(|| panic!("no NoReadyEndpoints event in\n{output}"));
    assert_eq!(warning[0], "team-001");
    assert!(
        warning.contains(&"Warning") && warning.contains(&"ingress/app-00001"),
        "{warning:?}"
    );
    assert_eq!(
        row(&["team-000", "httproute.gateway.networking.k8s.io/checkout"])[2],
        "[\"checkout.team-000.example.com\"]"
    );

    // As JSON, each item carries its kind and group version.
    for (resource, kind, api_version) in [
        ("services", "Service", "v1"),
        ("endpointslices", "EndpointSlice", "discovery.k8s.io/v1"),
        ("secrets", "Secret", "v1"),
        ("events", "Event", "v1"),
        ("httproutes", "HTTPRoute", "gateway.networking.k8s.io/v1"),
        ("certificates", "Certificate", "cert-manager.io/v1"),
    ] {
        let list: serde_json::Value =
            serde_json::from_str(&kubectl(&server, &["get", resource, "-A", "-o", "json"]))
                .unwrap();
        let items = list["items"].as_array().unwrap();
        assert!(!items.is_empty(), "{resource}");
        for item in items {
            assert_eq!(
                (item["kind"].as_str(), item["apiVersion"].as_str()),
                (Some(kind), Some(api_version))
            );
        }
    }
    // kubectl's own event filter is the field selector the server implements.
    let warnings = kubectl(
        &server,
        &[
            "get",
            "events",
            "-n",
            "team-001",
            "--field-selector",
            "involvedObject.name=app-00001,type=Warning",
            "-o",
            "name",
        ],
    );
    assert_eq!(warnings.lines().count(), 2, "{warnings}");
}
