//! What the API server does to a written object beyond storing it, per kind: schema checks
//! (the body must decode as the kind's official type: k8s-openapi's for built-in kinds, the
//! types of [`crate::gateway`] and [`crate::cert_manager`] for custom resources), the
//! validation a client most often trips on, and the defaults the API server fills in.

use k8s_openapi::ByteString;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::kind::Kind;
use crate::{cert_manager, gateway, wire};

fn decode<T: DeserializeOwned>(kind: Kind, object: &Value) -> Result<(), Value> {
    let typed = crate::wire::with_type_meta(kind, object);
    serde_json::from_value::<T>(typed)
        .map(|_| ())
        .map_err(|error| {
            wire::bad_request(&format!(
                "{} in version \"{}\" cannot be handled as a {}: {error}",
                kind.name(),
                kind.version(),
                kind.name()
            ))
        })
}

fn invalid(kind: Kind, name: &str, cause: &str) -> Value {
    wire::status(
        422,
        "Invalid",
        &format!("{} is invalid: {cause}", wire::qualified_name(kind, name)),
        Some(json!({"name": name, "group": kind.group(), "kind": kind.name()})),
    )
}

/// Checks a written object (without type meta). Namespaces and ingresses are stored as given.
pub(crate) fn validate(kind: Kind, object: &Value, name: &str) -> Result<(), Value> {
    use k8s_openapi::api::{core::v1, discovery::v1 as discovery};
    match kind {
        Kind::Namespace | Kind::Ingress => Ok(()),
        Kind::Service => decode::<v1::Service>(kind, object),
        Kind::EndpointSlice => decode::<discovery::EndpointSlice>(kind, object),
        Kind::HttpRoute => decode::<gateway::HttpRoute>(kind, object),
        Kind::Certificate => decode::<cert_manager::Certificate>(kind, object),
        Kind::Event => {
            decode::<v1::Event>(kind, object)?;
            let involved = object["involvedObject"]["namespace"].as_str();
            match involved {
                Some(namespace) if Some(namespace) != object["metadata"]["namespace"].as_str() => {
                    Err(invalid(
                        kind,
                        name,
                        &format!(
                            "involvedObject.namespace: Invalid value: \"{namespace}\": does not match event.namespace"
                        ),
                    ))
                }
                _ => Ok(()),
            }
        }
        Kind::Secret => {
            decode::<v1::Secret>(kind, object)?;
            if object["type"] == "kubernetes.io/tls" {
                for key in ["tls.crt", "tls.key"] {
                    let given = object["data"].get(key).is_some()
                        || object["stringData"].get(key).is_some();
                    if !given {
                        return Err(invalid(kind, name, &format!("data[{key}]: Required value")));
                    }
                }
            }
            Ok(())
        }
    }
}

/// A stable ClusterIP in 10.96.0.0/16 for a Service, as the allocator would hand out.
pub fn cluster_ip(namespace: &str, name: &str) -> String {
    // FNV-1a over `namespace/name`: stable across runs, spread over the range.
    let hash = format!("{namespace}/{name}")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
    let host = (hash % 65_000) as u32 + 10;
    format!("10.96.{}.{}", host / 256, host % 256)
}

/// The defaults of the HTTPRoute CRD's schema, which the API server applies on every write:
/// parentRefs to a `gateway.networking.k8s.io` `Gateway`, one rule matching path prefix `/`,
/// match types `PathPrefix`/`Exact`, backendRefs to a core `Service` with weight 1.
fn default_http_route(object: &mut Value) {
    let spec = &mut object["spec"];
    for parent in spec
        .get_mut("parentRefs")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        default_field(parent, "group", json!("gateway.networking.k8s.io"));
        default_field(parent, "kind", json!("Gateway"));
    }
    let slash = json!({"path": {"type": "PathPrefix", "value": "/"}});
    if spec.is_object() && spec["rules"].is_null() {
        spec["rules"] = json!([{"matches": [slash.clone()]}]);
    }
    for rule in spec
        .get_mut("rules")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        if rule.is_object() && rule["matches"].is_null() {
            rule["matches"] = json!([slash.clone()]);
        }
        for matched in rule
            .get_mut("matches")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if matched.is_object() && matched["path"].is_null() {
                matched["path"] = slash["path"].clone();
            }
            default_field(&mut matched["path"], "type", json!("PathPrefix"));
            default_field(&mut matched["path"], "value", json!("/"));
            for list in ["headers", "queryParams"] {
                for entry in matched
                    .get_mut(list)
                    .and_then(Value::as_array_mut)
                    .into_iter()
                    .flatten()
                {
                    default_field(entry, "type", json!("Exact"));
                }
            }
        }
        for backend in rule
            .get_mut("backendRefs")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            default_field(backend, "group", json!(""));
            default_field(backend, "kind", json!("Service"));
            default_field(backend, "weight", json!(1));
        }
    }
}

fn default_field(object: &mut Value, field: &str, value: Value) {
    if let Some(fields) = object.as_object_mut() {
        fields.entry(field).or_insert(value);
    }
}

/// Defaults applied on create and on replace (the CRD schema's defaults).
pub(crate) fn default_on_write(kind: Kind, object: &mut Value) {
    if kind == Kind::HttpRoute {
        default_http_route(object);
    }
}

/// Defaults on create: a Service's type, ClusterIP and port protocols; a Secret's type and its
/// `stringData` merged into `data` (base64), as the API server does.
pub(crate) fn default_on_create(kind: Kind, object: &mut Value, namespace: &str, name: &str) {
    default_on_write(kind, object);
    match kind {
        Kind::Service => {
            let spec = &mut object["spec"];
            if !spec.is_object() {
                *spec = json!({});
            }
            if spec["type"].is_null() {
                spec["type"] = json!("ClusterIP");
            }
            if spec["type"] != "ExternalName" && spec["clusterIP"].is_null() {
                let ip = cluster_ip(namespace, name);
                spec["clusterIP"] = json!(ip);
                spec["clusterIPs"] = json!([ip]);
                spec["ipFamilies"] = json!(["IPv4"]);
                spec["ipFamilyPolicy"] = json!("SingleStack");
            }
            if spec["sessionAffinity"].is_null() {
                spec["sessionAffinity"] = json!("None");
            }
            for port in spec
                .get_mut("ports")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                if port["protocol"].is_null() {
                    port["protocol"] = json!("TCP");
                }
                if port["targetPort"].is_null() {
                    port["targetPort"] = port["port"].clone();
                }
            }
            object["status"] = json!({"loadBalancer": {}});
        }
        Kind::Secret => {
            if object["type"].is_null() {
                object["type"] = json!("Opaque");
            }
            merge_string_data(object);
        }
        _ => {}
    }
}

fn merge_string_data(object: &mut Value) {
    let Some(string_data) = object
        .as_object_mut()
        .and_then(|fields| fields.remove("stringData"))
    else {
        return;
    };
    if !object["data"].is_object() {
        object["data"] = json!({});
    }
    for (key, value) in string_data.as_object().into_iter().flatten() {
        let bytes = ByteString(value.as_str().unwrap_or_default().as_bytes().to_vec());
        object["data"][key] = serde_json::to_value(bytes).unwrap_or_default();
    }
}

/// On replace: what the API server keeps from the current object (a Service's ClusterIP, which
/// is immutable) and the Secret's `stringData` merge.
pub(crate) fn carry_over(
    kind: Kind,
    current: &Value,
    object: &mut Value,
    name: &str,
) -> Result<(), Value> {
    match kind {
        Kind::Service => {
            let current_ip = &current["spec"]["clusterIP"];
            match &object["spec"]["clusterIP"] {
                Value::Null => {
                    if !object["spec"].is_object() {
                        object["spec"] = json!({});
                    }
                    for field in ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"] {
                        if !current["spec"][field].is_null() {
                            object["spec"][field] = current["spec"][field].clone();
                        }
                    }
                }
                given if given != current_ip && !current_ip.is_null() => {
                    return Err(invalid(
                        kind,
                        name,
                        &format!(
                            "spec.clusterIPs[0]: Invalid value: []string{{{given}}}: may not change once set"
                        ),
                    ));
                }
                _ => {}
            }
        }
        Kind::Secret => {
            if object["type"].is_null() {
                object["type"] = current["type"].clone();
            }
            if object["type"] != current["type"] {
                return Err(invalid(
                    kind,
                    name,
                    "type: Invalid value: field is immutable",
                ));
            }
            merge_string_data(object);
        }
        _ => {}
    }
    Ok(())
}
