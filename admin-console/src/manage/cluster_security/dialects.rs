//! The translation between the dialect-neutral model and each cluster's security API.
//!
//! Both list answers are objects keyed by name (`GET <kind path>` and `GET <kind path>/<name>`):
//! - OpenSearch `_plugins/_security/api/internalusers`: `{"<name>": {"hash": "", "reserved",
//!   "hidden", "static", "backend_roles", "attributes", "opendistro_security_roles",
//!   "description"}}`; `roles`: `{"cluster_permissions", "index_permissions": [{"index_patterns",
//!   "allowed_actions", "dls", "fls", "masked_fields"}], "tenant_permissions", "reserved", ...}`;
//!   `rolesmapping`: `{"users", "backend_roles", "hosts", "and_backend_roles", "reserved", ...}`,
//!   keyed by the role it maps.
//! - Elasticsearch `_security/user`: `{"<name>": {"username", "roles", "full_name", "email",
//!   "metadata": {"_reserved"}, "enabled"}}`; `_security/role`: `{"cluster", "indices":
//!   [{"names", "privileges", "field_security", "query"}], "applications", "run_as", "metadata",
//!   "transient_metadata", "description"}`; `_security/role_mapping`: `{"enabled", "roles",
//!   "rules", "metadata"}`.
//!
//! A write starts from the entry as the cluster has it (when it exists) so that what the
//! console does not model is kept; the read-only flags and any secret are dropped from it.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::model::*;
use crate::cluster::dialect::Distribution;
use crate::error::Error;
use crate::manage::templates::strings;

fn text(value: &Value) -> Option<String> {
    value
        .as_str()
        .filter(|text| !text.is_empty())
        .map(str::to_owned)
}

/// The `(name, entry)` pairs of a list answer, each entry's secrets stripped, sorted by name.
pub(crate) fn entries(answer: Value) -> Result<Vec<(String, Value)>, Error> {
    let Value::Object(map) = answer else {
        return Err(Error::upstream(
            "The security API answered something else than an object of entries.".to_owned(),
        ));
    };
    // A Map iterates in key order (serde_json without preserve_order).
    Ok(map
        .into_iter()
        .map(|(name, mut entry)| {
            strip_secrets(&mut entry);
            (name, entry)
        })
        .collect())
}

/// The attributes of a user: OpenSearch's `attributes`, Elasticsearch's text metadata not
/// starting with `_` (those are the cluster's own).
fn attributes(distribution: Distribution, entry: &Value) -> BTreeMap<String, String> {
    let source = match distribution {
        Distribution::OpenSearch => &entry["attributes"],
        Distribution::Elasticsearch => &entry["metadata"],
    };
    source
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| !key.starts_with('_'))
        .filter_map(|(key, value)| Some((key.clone(), value.as_str()?.to_owned())))
        .collect()
}

pub(crate) fn user(distribution: Distribution, name: &str, entry: &Value) -> SecurityUser {
    let reserved = is_reserved(distribution, entry);
    let attributes = attributes(distribution, entry);
    match distribution {
        Distribution::OpenSearch => SecurityUser {
            name: name.to_owned(),
            roles: strings(&entry["opendistro_security_roles"]),
            backend_roles: strings(&entry["backend_roles"]),
            full_name: None,
            email: None,
            enabled: true,
            attributes,
            reserved,
        },
        Distribution::Elasticsearch => SecurityUser {
            name: name.to_owned(),
            roles: strings(&entry["roles"]),
            backend_roles: Vec::new(),
            full_name: text(&entry["full_name"]),
            email: text(&entry["email"]),
            enabled: entry["enabled"].as_bool().unwrap_or(true),
            attributes,
            reserved,
        },
    }
}

/// A role's field names: cluster permissions, index permissions, and in each of those the
/// index patterns and the actions.
fn role_fields(
    distribution: Distribution,
) -> (&'static str, &'static str, &'static str, &'static str) {
    match distribution {
        Distribution::OpenSearch => (
            "cluster_permissions",
            "index_permissions",
            "index_patterns",
            "allowed_actions",
        ),
        Distribution::Elasticsearch => ("cluster", "indices", "names", "privileges"),
    }
}

pub(crate) fn role(distribution: Distribution, name: &str, entry: &Value) -> SecurityRole {
    let (cluster, indices, patterns, actions) = role_fields(distribution);
    SecurityRole {
        name: name.to_owned(),
        description: text(&entry["description"]),
        cluster_permissions: strings(&entry[cluster]),
        index_permissions: entry[indices]
            .as_array()
            .into_iter()
            .flatten()
            .map(|permission| IndexPermission {
                index_patterns: strings(&permission[patterns]),
                actions: strings(&permission[actions]),
            })
            .collect(),
        reserved: is_reserved(distribution, entry),
    }
}

/// The user names and groups of Elasticsearch mapping rules, and whether the rules hold
/// anything else (`all`, `except`, other fields such as `realm.name` or `dn`).
fn rule_names(rules: &Value, users: &mut Vec<String>, groups: &mut Vec<String>) -> bool {
    let mut other = false;
    if let Some(any) = rules["any"].as_array() {
        for rule in any {
            other |= rule_names(rule, users, groups);
        }
    } else if let Some(field) = rules["field"].as_object() {
        for (key, value) in field {
            let target = match key.as_str() {
                "username" => &mut *users,
                "groups" => &mut *groups,
                _ => {
                    other = true;
                    continue;
                }
            };
            match value {
                Value::String(name) => target.push(name.clone()),
                Value::Array(_) => target.extend(strings(value)),
                _ => other = true,
            }
        }
    } else if !rules.is_null() {
        other = true;
    }
    other
}

pub(crate) fn role_mapping(
    distribution: Distribution,
    name: &str,
    entry: &Value,
) -> SecurityRoleMapping {
    let reserved = is_reserved(distribution, entry);
    match distribution {
        Distribution::OpenSearch => SecurityRoleMapping {
            name: name.to_owned(),
            roles: vec![name.to_owned()],
            users: strings(&entry["users"]),
            backend_roles: strings(&entry["backend_roles"]),
            enabled: true,
            other_rules: !strings(&entry["hosts"]).is_empty()
                || !strings(&entry["and_backend_roles"]).is_empty(),
            reserved,
        },
        Distribution::Elasticsearch => {
            let (mut users, mut groups) = (Vec::new(), Vec::new());
            let other_rules = rule_names(&entry["rules"], &mut users, &mut groups)
                || entry["role_templates"].is_array();
            SecurityRoleMapping {
                name: name.to_owned(),
                roles: strings(&entry["roles"]),
                users,
                backend_roles: groups,
                enabled: entry["enabled"].as_bool().unwrap_or(true),
                other_rules,
                reserved,
            }
        }
    }
}

/// The entry as it is now, without its read-only flags and secrets: what a write starts from.
fn base(current: Option<&Value>) -> Map<String, Value> {
    let mut base = match current.cloned() {
        Some(mut entry) => {
            strip_secrets(&mut entry);
            match entry {
                Value::Object(map) => map,
                _ => Map::new(),
            }
        }
        None => Map::new(),
    };
    for read_only in [
        "reserved",
        "static",
        "hidden",
        "username",
        "transient_metadata",
    ] {
        base.remove(read_only);
    }
    base
}

/// The `enabled` of an Elasticsearch write: the change's, else the entry's current value (an
/// edit that leaves it out must not re-enable a disabled user or mapping), else true (new).
fn enabled(change: Option<bool>, current: Option<&Value>) -> bool {
    change
        .or_else(|| current.and_then(|entry| entry["enabled"].as_bool()))
        .unwrap_or(true)
}

fn bad(message: &str) -> Error {
    Error::BadRequest(message.to_owned())
}

/// The body of the cluster's `PUT <users path>/<name>`; `current` is the user as the cluster
/// has it (None: a new user, which needs a password).
pub(crate) fn user_body(
    distribution: Distribution,
    change: &UserChange,
    current: Option<&Value>,
) -> Result<Value, Error> {
    if current.is_none() && change.password.is_none() {
        return Err(bad("A new user needs a password."));
    }
    let mut body = base(current);
    match distribution {
        Distribution::OpenSearch => {
            if change.full_name.is_some() || change.email.is_some() {
                return Err(bad(
                    "OpenSearch internal users have no fullName or email: give them as \
                     attributes.",
                ));
            }
            if change.enabled == Some(false) {
                return Err(bad("OpenSearch internal users cannot be disabled."));
            }
            body.insert("opendistro_security_roles".into(), json!(change.roles));
            body.insert("backend_roles".into(), json!(change.backend_roles));
            body.insert("attributes".into(), json!(change.attributes));
        }
        Distribution::Elasticsearch => {
            if !change.backend_roles.is_empty() {
                return Err(bad(
                    "Elasticsearch native users have no backend roles: give them roles, or map \
                     their groups with a role mapping.",
                ));
            }
            body.insert("roles".into(), json!(change.roles));
            body.insert("full_name".into(), json!(change.full_name));
            body.insert("email".into(), json!(change.email));
            body.insert("enabled".into(), json!(enabled(change.enabled, current)));
            // The text metadata is the attributes; other metadata (not text, or the
            // cluster's own `_…` keys) is kept.
            let mut metadata = match body.remove("metadata") {
                Some(Value::Object(map)) => map,
                _ => Map::new(),
            };
            metadata.retain(|key, value| key.starts_with('_') || !value.is_string());
            for (key, value) in &change.attributes {
                if !key.starts_with('_') {
                    metadata.insert(key.clone(), json!(value));
                }
            }
            body.insert("metadata".into(), Value::Object(metadata));
        }
    }
    if let Some(password) = &change.password {
        body.insert("password".into(), json!(password.expose()));
    }
    Ok(Value::Object(body))
}

/// The body of the cluster's `PUT <roles path>/<name>`; index permissions keep what the
/// console does not model (document and field level security) from the current entry with the
/// same index patterns.
pub(crate) fn role_body(
    distribution: Distribution,
    change: &RoleChange,
    current: Option<&Value>,
) -> Value {
    let (cluster, indices, patterns, actions) = role_fields(distribution);
    let mut body = base(current);
    let previous = body.remove(indices).unwrap_or(Value::Null);
    let previous = previous.as_array().cloned().unwrap_or_default();
    let permissions: Vec<Value> = change
        .index_permissions
        .iter()
        .map(|permission| {
            let mut entry = previous
                .iter()
                .find(|old| strings(&old[patterns]) == permission.index_patterns)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            entry.insert(patterns.into(), json!(permission.index_patterns));
            entry.insert(actions.into(), json!(permission.actions));
            Value::Object(entry)
        })
        .collect();
    body.insert(cluster.into(), json!(change.cluster_permissions));
    body.insert(indices.into(), Value::Array(permissions));
    match &change.description {
        Some(description) => body.insert("description".into(), json!(description)),
        None => body.remove("description"),
    };
    Value::Object(body)
}

/// The body of the cluster's `PUT <role mappings path>/<name>`.
pub(crate) fn role_mapping_body(
    distribution: Distribution,
    name: &str,
    change: &RoleMappingChange,
    current: Option<&Value>,
) -> Result<Value, Error> {
    let mut body = base(current);
    match distribution {
        Distribution::OpenSearch => {
            if change.roles.iter().any(|role| role != name) {
                return Err(bad(
                    "On OpenSearch a role mapping is named after the one role it gives: leave \
                     roles empty or give only that role.",
                ));
            }
            if change.enabled == Some(false) {
                return Err(bad("OpenSearch role mappings cannot be disabled."));
            }
            body.insert("users".into(), json!(change.users));
            body.insert("backend_roles".into(), json!(change.backend_roles));
        }
        Distribution::Elasticsearch => {
            if change.roles.is_empty() {
                return Err(bad("A role mapping needs at least one role."));
            }
            let mut any = Vec::new();
            if !change.users.is_empty() {
                any.push(json!({"field": {"username": change.users}}));
            }
            if !change.backend_roles.is_empty() {
                any.push(json!({"field": {"groups": change.backend_roles}}));
            }
            if any.is_empty() {
                return Err(bad(
                    "A role mapping needs at least one user name or group to match.",
                ));
            }
            body.insert("roles".into(), json!(change.roles));
            body.insert("enabled".into(), json!(enabled(change.enabled, current)));
            body.insert("rules".into(), json!({ "any": any }));
        }
    }
    Ok(Value::Object(body))
}
