//! Server-side printing: the `meta.k8s.io/v1` `Table` kubectl asks for, with the columns the API
//! server prints for each built-in kind and the `additionalPrinterColumns` of the Gateway API
//! and cert-manager CRDs. Columns with priority 1 are the ones `-o wide` adds.

use std::sync::Arc;

use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

use crate::kind::Kind;
use crate::wire;

const NAME: &str = "Name must be unique within a namespace.";
const AGE: &str =
    "CreationTimestamp is a timestamp representing the server time when this object was created.";

fn column(name: &str, kind: &str, format: &str, description: &str, priority: u8) -> Value {
    json!({"name": name, "type": kind, "format": format, "description": description, "priority": priority})
}

fn text(name: &str, description: &str) -> Value {
    column(name, "string", "", description, 0)
}

fn wide(name: &str, description: &str) -> Value {
    column(name, "string", "", description, 1)
}

fn columns(kind: Kind) -> Vec<Value> {
    let name = column("Name", "string", "name", NAME, 0);
    let age = text("Age", AGE);
    match kind {
        Kind::Namespace => vec![name, text("Status", "The status of the namespace"), age],
        Kind::IngressClass => vec![
            name,
            text(
                "Controller",
                "Controller that is responsible for handling this class",
            ),
            text(
                "Parameters",
                "A reference to a resource with additional parameters",
            ),
            age,
        ],
        Kind::Ingress => vec![
            name,
            text("Class", "The name of the IngressClass resource."),
            text("Hosts", "Hosts that incoming requests are matched against."),
            text(
                "Address",
                "Address is a list containing ingress points for the load-balancer.",
            ),
            text("Ports", "Ports of TLS configurations that open."),
            age,
        ],
        Kind::Service => vec![
            name,
            text("Type", "type determines how the Service is exposed."),
            text("Cluster-IP", "clusterIP is the IP address of the service."),
            text(
                "External-IP",
                "externalIPs and the load-balancer's ingress points.",
            ),
            text(
                "Port(s)",
                "The list of ports that are exposed by this service.",
            ),
            age,
            wide(
                "Selector",
                "Route service traffic to pods with label keys and values matching this selector.",
            ),
        ],
        Kind::Secret => vec![
            name,
            text("Type", "The type of the secret"),
            column(
                "Data",
                "integer",
                "",
                "The number of entries in the secret",
                0,
            ),
            age,
        ],
        Kind::Event => vec![
            text(
                "Last Seen",
                "The time at which the most recent occurrence of this event was recorded.",
            ),
            text("Type", "Type of this event (Normal, Warning)."),
            text(
                "Reason",
                "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
            ),
            text("Object", "The object that this event is about."),
            wide(
                "Subobject",
                "The field of the object this event is about (involvedObject.fieldPath).",
            ),
            wide("Source", "The component reporting this event."),
            text(
                "Message",
                "A human-readable description of the status of this operation.",
            ),
            wide(
                "First Seen",
                "The time at which the event was first recorded.",
            ),
            column(
                "Count",
                "integer",
                "",
                "The number of times this event has occurred.",
                1,
            ),
            column("Name", "string", "name", NAME, 1),
        ],
        Kind::EndpointSlice => vec![
            name,
            text(
                "AddressType",
                "The type of address carried by this EndpointSlice.",
            ),
            text("Ports", "Ports of this EndpointSlice."),
            text(
                "Endpoints",
                "Addresses of the endpoints of this EndpointSlice.",
            ),
            age,
        ],
        Kind::TlsRoute => vec![name, column("Age", "date", "", "", 0)],
        Kind::Gateway => vec![
            name,
            text("Class", ""),
            text("Address", ""),
            text("Programmed", ""),
            column("Age", "date", "", "", 0),
        ],
        Kind::HttpRoute | Kind::GrpcRoute => vec![
            name,
            text("Hostnames", ""),
            column("Age", "date", "", "", 0),
        ],
        Kind::Certificate => vec![
            name,
            text("Ready", ""),
            text("Secret", ""),
            wide("Issuer", ""),
            wide("Status", ""),
            column("Age", "date", "", AGE, 0),
        ],
    }
}

/// A `meta.k8s.io/v1` `Table` with the columns `kubectl get` prints for the kind.
pub fn table(kind: Kind, revision: u64, items: &[Arc<Value>]) -> Value {
    let rows: Vec<Value> = items
        .iter()
        .map(|item| {
            let age = age(item["metadata"]["creationTimestamp"].as_str());
            json!({
                "cells": cells(kind, item, age),
                "object": {
                    "kind": "PartialObjectMetadata",
                    "apiVersion": "meta.k8s.io/v1",
                    "metadata": item["metadata"],
                },
            })
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": revision.to_string()},
        "columnDefinitions": columns(kind),
        "rows": rows,
    })
}

fn strings<'a>(value: &'a Value, field: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(move |entry| entry[field].as_str())
}

fn or(value: String, empty: &str) -> String {
    if value.is_empty() {
        empty.to_owned()
    } else {
        value
    }
}

fn cells(kind: Kind, item: &Value, age: String) -> Value {
    let name = &item["metadata"]["name"];
    match kind {
        Kind::Namespace => json!([
            name,
            item["status"]["phase"].as_str().unwrap_or("Active"),
            age
        ]),
        Kind::IngressClass => {
            let parameters = &item["spec"]["parameters"];
            // As kubectl prints it: `<kind>[.<apiGroup>]/<name>`.
            let parameters = match parameters["name"].as_str() {
                Some(parameter) => {
                    let kind = parameters["kind"].as_str().unwrap_or_default();
                    match parameters["apiGroup"].as_str() {
                        Some(group) => format!("{kind}.{group}/{parameter}"),
                        None => format!("{kind}/{parameter}"),
                    }
                }
                None => "<none>".to_owned(),
            };
            json!([
                name,
                item["spec"]["controller"].as_str().unwrap_or_default(),
                parameters,
                age
            ])
        }
        Kind::Ingress => ingress_cells(item, age),
        Kind::Service => service_cells(item, age),
        Kind::Secret => {
            let data = item["data"].as_object().map_or(0, |data| data.len());
            json!([name, item["type"].as_str().unwrap_or("Opaque"), data, age])
        }
        Kind::Event => event_cells(item),
        Kind::EndpointSlice => {
            let ports: Vec<String> = item["ports"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|port| port["port"].as_u64().map(|port| port.to_string()))
                .collect();
            let addresses: Vec<&str> = item["endpoints"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|endpoint| endpoint["addresses"].as_array().into_iter().flatten())
                .filter_map(Value::as_str)
                .collect();
            let endpoints = match addresses.len() {
                0 => "<unset>".to_owned(),
                1..=3 => addresses.join(","),
                more => format!("{} + {} more...", addresses[..3].join(","), more - 3),
            };
            json!([
                name,
                item["addressType"],
                or(ports.join(","), "<unset>"),
                endpoints,
                age
            ])
        }
        Kind::TlsRoute => json!([name, age]),
        Kind::Gateway => {
            let addresses: Vec<&str> = item["status"]["addresses"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|address| address["value"].as_str())
                .collect();
            let programmed = item["status"]["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|condition| condition["type"] == "Programmed")
                .map_or(Value::Null, |condition| condition["status"].clone());
            let address = if addresses.is_empty() {
                Value::Null
            } else {
                json!(addresses.join(" "))
            };
            json!([
                name,
                item["spec"]["gatewayClassName"],
                address,
                programmed,
                age
            ])
        }
        Kind::HttpRoute | Kind::GrpcRoute => {
            let hostnames = &item["spec"]["hostnames"];
            let hostnames = if hostnames.is_array() {
                json!(hostnames.to_string())
            } else {
                Value::Null
            };
            json!([name, hostnames, age])
        }
        Kind::Certificate => {
            let ready = item["status"]["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|condition| condition["type"] == "Ready");
            json!([
                name,
                ready.map_or(&Value::Null, |c| &c["status"]),
                item["spec"]["secretName"],
                item["spec"]["issuerRef"]["name"],
                ready.map_or(&Value::Null, |c| &c["message"]),
                age
            ])
        }
    }
}

fn ingress_cells(item: &Value, age: String) -> Value {
    let hosts: Vec<&str> = strings(&item["spec"]["rules"], "host").collect();
    let addresses: Vec<&str> = item["status"]["loadBalancer"]["ingress"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| entry["ip"].as_str().or(entry["hostname"].as_str()))
        .collect();
    let ports = if item["spec"]["tls"]
        .as_array()
        .is_some_and(|tls| !tls.is_empty())
    {
        "80, 443"
    } else {
        "80"
    };
    json!([
        item["metadata"]["name"],
        item["spec"]["ingressClassName"]
            .as_str()
            .unwrap_or("<none>"),
        or(hosts.join(","), "*"),
        addresses.join(","),
        ports,
        age
    ])
}

fn service_cells(item: &Value, age: String) -> Value {
    let spec = &item["spec"];
    let kind = spec["type"].as_str().unwrap_or("ClusterIP");
    let mut external: Vec<String> = Vec::new();
    external.extend(
        spec["externalIPs"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|ip| ip.as_str().map(str::to_owned)),
    );
    let external = match kind {
        "LoadBalancer" => {
            external.extend(
                item["status"]["loadBalancer"]["ingress"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|entry| entry["ip"].as_str().or(entry["hostname"].as_str()))
                    .map(str::to_owned),
            );
            or(external.join(","), "<pending>")
        }
        "ExternalName" => spec["externalName"].as_str().unwrap_or("<none>").to_owned(),
        _ => or(external.join(","), "<none>"),
    };
    let ports: Vec<String> = spec["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|port| {
            let protocol = port["protocol"].as_str().unwrap_or("TCP");
            match port["nodePort"].as_u64() {
                Some(node) => format!("{}:{node}/{protocol}", port["port"]),
                None => format!("{}/{protocol}", port["port"]),
            }
        })
        .collect();
    let selector: Vec<String> = spec["selector"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(key, value)| format!("{key}={}", value.as_str().unwrap_or_default()))
        .collect();
    json!([
        item["metadata"]["name"],
        kind,
        spec["clusterIP"].as_str().unwrap_or("<none>"),
        external,
        or(ports.join(","), "<none>"),
        age,
        or(selector.join(","), "<none>")
    ])
}

fn event_cells(item: &Value) -> Value {
    let last_seen = item["series"]["lastObservedTime"]
        .as_str()
        .or(item["lastTimestamp"].as_str())
        .or(item["eventTime"].as_str());
    let first_seen = item["firstTimestamp"]
        .as_str()
        .or(item["eventTime"].as_str());
    let involved = &item["involvedObject"];
    let object = format!(
        "{}/{}",
        involved["kind"].as_str().unwrap_or_default().to_lowercase(),
        involved["name"].as_str().unwrap_or_default()
    );
    let source = match item["source"]["component"].as_str() {
        Some(component) => match item["source"]["host"].as_str() {
            Some(host) => format!("{component}, {host}"),
            None => component.to_owned(),
        },
        None => item["reportingComponent"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    };
    json!([
        age(last_seen),
        item["type"],
        item["reason"],
        object,
        involved["fieldPath"].as_str().unwrap_or_default(),
        source,
        item["message"],
        age(first_seen),
        item["count"].as_u64().unwrap_or(1),
        item["metadata"]["name"]
    ])
}

/// kubectl's short age: `45s`, `12m`, `5h`, `3d`.
fn age(created: Option<&str>) -> String {
    let Some(created) = created.and_then(|text| text.parse::<Timestamp>().ok()) else {
        return "<unknown>".to_owned();
    };
    let seconds = wire::now().as_second() - created.as_second();
    match seconds.max(0) {
        s if s < 120 => format!("{s}s"),
        s if s < 3600 * 3 => format!("{}m", s / 60),
        s if s < 86400 * 2 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86400),
    }
}
