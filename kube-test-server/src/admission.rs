//! What the API server does to a written object beyond storing it, per kind: schema checks
//! (the body must decode as the kind's official type: k8s-openapi's for built-in kinds, the
//! types of [`crate::gateway`] and [`crate::cert_manager`] for custom resources), the
//! validation a client most often trips on, and the defaults the API server fills in.

use std::sync::Arc;

use k8s_openapi::ByteString;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::gateway_defaults::{default_field, default_gateway_api};
use crate::kind::Kind;
use crate::{cert_manager, gateway, wire};

/// A custom resource is checked against its CRD's schema, which answers 422 `Invalid` (not a
/// decoding 400): the field of the wrong type (the first of `spec`'s lists that is not one, else
/// `spec`) and the schema's note that other rules were not checked.
fn decode_custom<T: DeserializeOwned>(kind: Kind, object: &Value, name: &str) -> Result<(), Value> {
    decode::<T>(kind, object).map_err(|_| {
        let spec = &object["spec"];
        let field = ["hostnames", "parentRefs", "rules", "dnsNames"]
            .into_iter()
            .find(|field| !spec[field].is_null() && !spec[field].is_array())
            .map_or_else(|| "spec".to_owned(), |field| format!("spec.{field}"));
        let message = format!("{field}: Invalid value: the field has the wrong type");
        let unchecked = "<nil>: Invalid value: \"null\": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation";
        let mut details = wire::details(kind.group(), kind.name(), Some(name));
        details["causes"] = json!([
            {"reason": "FieldValueTypeInvalid", "message": message, "field": field},
            {"reason": "FieldValueInvalid", "message": unchecked, "field": "<nil>"},
        ]);
        wire::status(
            422,
            "Invalid",
            &format!(
                "{} is invalid: [{message}, {unchecked}]",
                wire::qualified_name(kind, name)
            ),
            Some(details),
        )
    })
}

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

/// How a field broke the rules, as `causes[].reason` names it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Cause {
    Invalid,
    Required,
}

/// 422 `Invalid` naming the object and the field, with the field as one of `details.causes`.
pub(crate) fn invalid(kind: Kind, name: &str, field: &str, cause: Cause, detail: &str) -> Value {
    let (reason, words) = match cause {
        Cause::Invalid => ("FieldValueInvalid", "Invalid value"),
        Cause::Required => ("FieldValueRequired", "Required value"),
    };
    let message = match detail {
        "" => format!("{field}: {words}"),
        detail => format!("{field}: {words}: {detail}"),
    };
    let mut details = wire::details(kind.group(), kind.name(), Some(name));
    details["causes"] = json!([{"reason": reason, "message": message, "field": field}]);
    wire::status(
        422,
        "Invalid",
        &format!("{} is invalid: {message}", wire::qualified_name(kind, name)),
        Some(details),
    )
}

/// Whether `name` is a lowercase RFC 1123 subdomain, the rule for these kinds' names.
fn is_subdomain(name: &str) -> bool {
    let alphanumeric = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    !name.is_empty()
        && name.len() <= 253
        && name.starts_with(alphanumeric)
        && name.ends_with(alphanumeric)
        && name
            .chars()
            .all(|c| alphanumeric(c) || c == '-' || c == '.')
}

/// Checks a written object (without type meta). Namespaces and ingresses are stored as given.
pub(crate) fn validate(kind: Kind, object: &Value, name: &str) -> Result<(), Value> {
    use k8s_openapi::api::{core::v1, discovery::v1 as discovery};
    if !is_subdomain(name) {
        return Err(invalid(
            kind,
            name,
            "metadata.name",
            Cause::Invalid,
            &format!(
                "\"{name}\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
            ),
        ));
    }
    match kind {
        Kind::Namespace | Kind::Ingress | Kind::IngressClass => Ok(()),
        Kind::Service => decode::<v1::Service>(kind, object),
        Kind::EndpointSlice => decode::<discovery::EndpointSlice>(kind, object),
        Kind::HttpRoute => decode_custom::<gateway::HttpRoute>(kind, object, name),
        // Held as written: the sample's and ingress-dash's tests' routes only, which the
        // real API server's CRDs check in ingress-dash's real-server suites.
        Kind::Gateway | Kind::GrpcRoute | Kind::TlsRoute => Ok(()),
        Kind::Certificate => decode_custom::<cert_manager::Certificate>(kind, object, name),
        Kind::Event => {
            decode::<v1::Event>(kind, object)?;
            let involved = object["involvedObject"]["namespace"].as_str();
            match involved {
                Some(namespace) if Some(namespace) != object["metadata"]["namespace"].as_str() => {
                    Err(invalid(
                        kind,
                        name,
                        "involvedObject.namespace",
                        Cause::Invalid,
                        &format!("\"{namespace}\": does not match event.namespace"),
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
                        return Err(invalid(
                            kind,
                            name,
                            &format!("data[{key}]"),
                            Cause::Required,
                            "",
                        ));
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

/// Defaults applied on create and on replace: the Gateway API CRD schemas', a Service's type,
/// traffic policy, session affinity and port protocols.
pub(crate) fn default_on_write(kind: Kind, object: &mut Value) {
    match kind {
        Kind::Service => default_service(object),
        _ => default_gateway_api(kind, object),
    }
}

fn default_service(object: &mut Value) {
    let spec = &mut object["spec"];
    if !spec.is_object() {
        *spec = json!({});
    }
    if spec["type"].is_null() {
        spec["type"] = json!("ClusterIP");
    }
    if spec["sessionAffinity"].is_null() {
        spec["sessionAffinity"] = json!("None");
    }
    if spec["type"] != "ExternalName" && spec["internalTrafficPolicy"].is_null() {
        spec["internalTrafficPolicy"] = json!("Cluster");
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
}

/// Defaults on create, as the API server does: those of [`default_on_write`], a Service's
/// ClusterIP; a Secret's type and its `stringData` merged into `data` (base64); an
/// Ingress's empty load-balancer status; an Event's reporting fields.
pub(crate) fn default_on_create(kind: Kind, object: &mut Value, namespace: &str, name: &str) {
    default_on_write(kind, object);
    match kind {
        Kind::Service => {
            let spec = &mut object["spec"];
            if spec["type"] != "ExternalName" && spec["clusterIP"].is_null() {
                let ip = cluster_ip(namespace, name);
                spec["clusterIP"] = json!(ip);
                spec["clusterIPs"] = json!([ip]);
                spec["ipFamilies"] = json!(["IPv4"]);
                spec["ipFamilyPolicy"] = json!("SingleStack");
            }
            object["status"] = json!({"loadBalancer": {}});
        }
        Kind::Secret => {
            if object["type"].is_null() {
                object["type"] = json!("Opaque");
            }
            merge_string_data(object);
        }
        Kind::Ingress => default_field(object, "status", json!({"loadBalancer": {}})),
        Kind::Event => {
            default_field(object, "eventTime", Value::Null);
            default_field(object, "reportingComponent", json!(""));
            default_field(object, "reportingInstance", json!(""));
        }
        _ => {}
    }
}

/// Marks the class an Ingress without one gets.
const DEFAULT_CLASS: &str = "ingressclass.kubernetes.io/is-default-class";

/// The `DefaultIngressClass` admission plugin, on create: an Ingress with neither
/// `spec.ingressClassName` nor the legacy `kubernetes.io/ingress.class` annotation gets the
/// class marked as the default; with several, the newest (then the first by name).
pub(crate) fn default_ingress_class(ingress: &mut Value, classes: &[Arc<Value>]) {
    if !ingress["spec"]["ingressClassName"].is_null()
        || !ingress["metadata"]["annotations"]["kubernetes.io/ingress.class"].is_null()
    {
        return;
    }
    let text = |class: &Value, field: &str| class["metadata"][field].as_str().map(str::to_owned);
    let newest = classes
        .iter()
        .filter(|class| class["metadata"]["annotations"][DEFAULT_CLASS] == "true")
        .max_by(|one, other| {
            text(one, "creationTimestamp")
                .cmp(&text(other, "creationTimestamp"))
                .then_with(|| text(other, "name").cmp(&text(one, "name")))
        });
    if let Some(name) = newest.and_then(|class| text(class, "name"))
        && let Some(spec) = ingress
            .as_object_mut()
            .map(|fields| fields.entry("spec").or_insert_with(|| json!({})))
        && let Some(spec) = spec.as_object_mut()
    {
        spec.insert("ingressClassName".into(), json!(name));
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
                        "spec.clusterIPs[0]",
                        Cause::Invalid,
                        &format!("[]string{{{given}}}: may not change once set"),
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
                    "type",
                    Cause::Invalid,
                    "field is immutable",
                ));
            }
            merge_string_data(object);
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(name: &str, created: &str, default: bool) -> Arc<Value> {
        let annotations = match default {
            true => json!({DEFAULT_CLASS: "true"}),
            false => json!({}),
        };
        Arc::new(
            json!({"metadata": {"name": name, "creationTimestamp": created,
            "annotations": annotations}, "spec": {"controller": "k8s.io/ingress-nginx"}}),
        )
    }

    fn defaulted(ingress: Value, classes: &[Arc<Value>]) -> Value {
        let mut ingress = ingress;
        default_ingress_class(&mut ingress, classes);
        ingress["spec"]["ingressClassName"].clone()
    }

    #[test]
    fn an_ingress_without_a_class_gets_the_newest_default() {
        let classes = [
            class("old", "2026-01-01T00:00:00Z", true),
            class("new", "2026-02-01T00:00:00Z", true),
            class("newest", "2026-03-01T00:00:00Z", false),
            class("b", "2026-02-01T00:00:00Z", true),
        ];
        assert_eq!(defaulted(json!({"metadata": {}}), &classes), "b");
        assert_eq!(defaulted(json!({"metadata": {}}), &classes[..2]), "new");
        assert_eq!(
            defaulted(json!({"spec": {"rules": []}}), &classes[..1]),
            "old"
        );
        assert_eq!(
            defaulted(json!({"metadata": {}}), &classes[2..3]),
            Value::Null
        );
    }

    #[test]
    fn a_class_by_field_or_annotation_is_kept() {
        let classes = [class("nginx", "2026-01-01T00:00:00Z", true)];
        let named = json!({"spec": {"ingressClassName": "traefik"}});
        assert_eq!(defaulted(named, &classes), "traefik");
        let legacy =
            json!({"metadata": {"annotations": {"kubernetes.io/ingress.class": "traefik"}}});
        assert_eq!(defaulted(legacy, &classes), Value::Null);
    }
}
