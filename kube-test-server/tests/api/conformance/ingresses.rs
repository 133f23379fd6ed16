//! Namespaces, IngressClasses and Ingresses: create, conflict, invalid, replace, read, list in
//! pages, watch from a list's version, delete.

use kube_test_server::Kind;
use reqwest::Method;
use serde_json::{Value, json};

use super::{Script, names};

#[tokio::test]
async fn ingresses_and_their_classes_are_answered_as_the_real_server_does() {
    let ns = "conformance";
    let (mut script, stand_in_server) = Script::start(ns).await;
    let ingresses = format!("/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses");

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

    script.finish();
}
