//! The cluster's own security in one shape for both dialects: users, roles and role mappings as
//! the web app lists and edits them, the changes it sends (a password only ever write-only),
//! which entries are reserved, and the refusals of a cluster without security in words a
//! newcomer can act on. The per-dialect translation is in `dialects.rs`.
//!
//! Every entry the cluster answers goes through [`strip_secrets`] first: its `hash`, `password`
//! and `password_hash` never reach a translation, a write's base, an answer or a log; the
//! neutral types have no such field.

use std::collections::BTreeMap;
use std::fmt;

use actix_web::http::StatusCode;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cluster::dialect::Distribution;
use crate::error::Error;

/// What a route under `/security/{kind}` manages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SecurityKind {
    Users,
    Roles,
    RoleMappings,
}

impl SecurityKind {
    const ALL: [Self; 3] = [Self::Users, Self::Roles, Self::RoleMappings];

    /// From the path segment ([`Self::segment`]).
    pub(crate) fn parse(segment: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.segment() == segment)
            .ok_or_else(|| {
                Error::NotFound("Security entries are users, roles or role_mappings.".to_owned())
            })
    }

    /// The path segment of this kind: `users`, `roles`, `role_mappings`.
    pub(crate) fn segment(self) -> &'static str {
        match self {
            Self::Users => "users",
            Self::Roles => "roles",
            Self::RoleMappings => "role_mappings",
        }
    }

    /// The cluster's API path of this kind (no leading `/`).
    pub(crate) fn api_path(self, distribution: Distribution) -> &'static str {
        match (distribution, self) {
            (Distribution::OpenSearch, Self::Users) => "_plugins/_security/api/internalusers",
            (Distribution::OpenSearch, Self::Roles) => "_plugins/_security/api/roles",
            (Distribution::OpenSearch, Self::RoleMappings) => "_plugins/_security/api/rolesmapping",
            (Distribution::Elasticsearch, Self::Users) => "_security/user",
            (Distribution::Elasticsearch, Self::Roles) => "_security/role",
            (Distribution::Elasticsearch, Self::RoleMappings) => "_security/role_mapping",
        }
    }

    pub(crate) fn noun(self) -> &'static str {
        match self {
            Self::Users => "user",
            Self::Roles => "role",
            Self::RoleMappings => "role mapping",
        }
    }
}

/// One user of the cluster's own security (OpenSearch internal user, Elasticsearch native
/// user). Never a password or its hash.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct SecurityUser {
    pub(crate) name: String,
    /// The security roles the user has directly (OpenSearch `opendistro_security_roles`,
    /// Elasticsearch `roles`).
    pub(crate) roles: Vec<String>,
    /// OpenSearch backend roles (role mappings match them); empty on Elasticsearch.
    pub(crate) backend_roles: Vec<String>,
    /// Elasticsearch only.
    pub(crate) full_name: Option<String>,
    /// Elasticsearch only.
    pub(crate) email: Option<String>,
    /// Always true on OpenSearch (internal users cannot be disabled).
    pub(crate) enabled: bool,
    /// OpenSearch `attributes`; Elasticsearch's text `metadata` (keys not starting with `_`).
    pub(crate) attributes: BTreeMap<String, String>,
    /// Built in (OpenSearch `reserved`/`static`/`hidden`, Elasticsearch `metadata._reserved`):
    /// shown, never changed through the console.
    pub(crate) reserved: bool,
}

/// What a role allows on some indices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct IndexPermission {
    /// OpenSearch `index_patterns`, Elasticsearch `names`.
    pub(crate) index_patterns: Vec<String>,
    /// OpenSearch `allowed_actions`, Elasticsearch `privileges`.
    pub(crate) actions: Vec<String>,
}

/// One role.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct SecurityRole {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    /// OpenSearch `cluster_permissions`, Elasticsearch `cluster`.
    pub(crate) cluster_permissions: Vec<String>,
    pub(crate) index_permissions: Vec<IndexPermission>,
    pub(crate) reserved: bool,
}

/// One role mapping: who gets which roles.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct SecurityRoleMapping {
    /// OpenSearch: the role's own name; Elasticsearch: the mapping's name.
    pub(crate) name: String,
    /// The roles given (OpenSearch: the one role the mapping is named after).
    pub(crate) roles: Vec<String>,
    /// The user names matched (Elasticsearch: the `username` fields of its rules).
    pub(crate) users: Vec<String>,
    /// The backend roles (Elasticsearch: the `groups` fields of its rules).
    pub(crate) backend_roles: Vec<String>,
    pub(crate) enabled: bool,
    /// Elasticsearch: its rules use more than user names and groups (shown, not editable
    /// here: the console keeps to `any` of `username` and `groups` fields).
    pub(crate) other_rules: bool,
    pub(crate) reserved: bool,
}

/// `GET /security`: the three lists, sorted by name.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct SecurityOverview {
    #[cfg_attr(test, ts(type = "\"elasticsearch\" | \"opensearch\""))]
    pub(crate) distribution: Distribution,
    pub(crate) users: Vec<SecurityUser>,
    pub(crate) roles: Vec<SecurityRole>,
    pub(crate) role_mappings: Vec<SecurityRoleMapping>,
}

/// A password, write-only: it is sent to the cluster once and never shown, logged or
/// serialised by the console (`Debug` hides it).
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub(crate) struct Password(String);

impl Password {
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(<hidden>)")
    }
}

impl TryFrom<String> for Password {
    type Error = String;

    /// Not empty, at most 1,024 bytes, no control characters; the message never repeats it.
    fn try_from(text: String) -> Result<Self, String> {
        if text.is_empty() {
            return Err("the password is empty".to_owned());
        }
        if text.len() > 1024 {
            return Err("the password is longer than 1024 bytes".to_owned());
        }
        if text.chars().any(char::is_control) {
            return Err("the password contains a control character".to_owned());
        }
        Ok(Self(text))
    }
}

/// `PUT /security/users/{name}`: the user as it should be. Without `password` an existing
/// user keeps theirs; a new one needs one.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct UserChange {
    #[serde(default)]
    #[cfg_attr(test, ts(type = "string | null", optional))]
    pub(crate) password: Option<Password>,
    #[serde(default)]
    pub(crate) roles: Vec<String>,
    #[serde(default)]
    pub(crate) backend_roles: Vec<String>,
    #[serde(default)]
    pub(crate) full_name: Option<String>,
    #[serde(default)]
    pub(crate) email: Option<String>,
    #[serde(default)]
    pub(crate) enabled: Option<bool>,
    #[serde(default)]
    pub(crate) attributes: BTreeMap<String, String>,
    /// Any other field, refused by [`refuse_unknown`] (a `hash` in particular).
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub(crate) unknown: BTreeMap<String, IgnoredAny>,
}

/// `PUT /security/roles/{name}`. What the console does not model (OpenSearch document and
/// field level security, tenants; Elasticsearch applications, run-as) is kept from the role as
/// it was.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct RoleChange {
    #[serde(default)]
    pub(crate) description: Option<String>,
    #[serde(default)]
    pub(crate) cluster_permissions: Vec<String>,
    #[serde(default)]
    pub(crate) index_permissions: Vec<IndexPermission>,
    /// Any other field, refused by [`refuse_unknown`] (a `hash` in particular).
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub(crate) unknown: BTreeMap<String, IgnoredAny>,
}

/// `PUT /security/role_mappings/{name}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct RoleMappingChange {
    #[serde(default)]
    pub(crate) roles: Vec<String>,
    #[serde(default)]
    pub(crate) users: Vec<String>,
    #[serde(default)]
    pub(crate) backend_roles: Vec<String>,
    #[serde(default)]
    pub(crate) enabled: Option<bool>,
    /// Any other field, refused by [`refuse_unknown`] (a `hash` in particular).
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub(crate) unknown: BTreeMap<String, IgnoredAny>,
}

/// 400 naming the fields a change does not know (never their values).
pub(crate) fn refuse_unknown(
    kind: SecurityKind,
    unknown: &BTreeMap<String, IgnoredAny>,
) -> Result<(), Error> {
    if unknown.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = unknown
        .keys()
        .map(|key| format!("\"{}\"", key.escape_debug()))
        .collect();
    Err(Error::BadRequest(format!(
        "A {} has no field {}.",
        kind.noun(),
        names.join(", ")
    )))
}

/// The answer of a write or a delete.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct SecurityWritten {
    /// `users`, `roles` or `role_mappings`.
    pub(crate) kind: String,
    pub(crate) name: String,
    /// True when the entry did not exist before (a write), false on a delete or an edit.
    pub(crate) created: bool,
    pub(crate) deleted: bool,
}

/// The top-level fields of an entry that hold a password or its hash: OpenSearch's `hash` (and
/// `password` of a write), Elasticsearch's `password` and `password_hash`.
const SECRET_FIELDS: &[&str] = &["hash", "password", "password_hash"];

/// Removes the secret fields ([`SECRET_FIELDS`]) of one entry as the cluster has it: its top
/// level only, so that an attribute or metadata key of the same name (the user's own data) is
/// shown and kept by an edit.
pub(crate) fn strip_secrets(entry: &mut Value) {
    if let Value::Object(map) = entry {
        map.retain(|key, _| !SECRET_FIELDS.contains(&key.as_str()));
    }
}

/// Whether a raw entry is built in: OpenSearch `reserved`, `static` or `hidden`,
/// Elasticsearch `metadata._reserved`.
pub(crate) fn is_reserved(distribution: Distribution, entry: &Value) -> bool {
    match distribution {
        Distribution::OpenSearch => ["reserved", "static", "hidden"]
            .iter()
            .any(|flag| entry[*flag].as_bool() == Some(true)),
        Distribution::Elasticsearch => entry["metadata"]["_reserved"].as_bool() == Some(true),
    }
}

/// The 409 of a change to a reserved entry, before anything reaches the cluster.
pub(crate) fn reserved_refusal(kind: SecurityKind, name: &str) -> Error {
    Error::Conflict(format!(
        "The {} \"{}\" is reserved (built into the cluster's security): it can be viewed but \
         not changed or deleted.",
        kind.noun(),
        name.escape_debug()
    ))
}

/// What the console answers for a cluster without security.
pub(crate) fn not_enabled(distribution: Distribution) -> Error {
    Error::NotFound(match distribution {
        Distribution::OpenSearch => "Security is not enabled on this cluster: it has no \
             security plugin (_plugins/_security). Users, roles and role mappings are managed \
             here only on a cluster with the OpenSearch security plugin."
            .to_owned(),
        Distribution::Elasticsearch => "Security is not enabled on this cluster \
             (xpack.security.enabled is false, or a distribution without x-pack). Users, roles \
             and role mappings are managed here only on a cluster with security enabled."
            .to_owned(),
    })
}

/// Whether a cluster's refusal means it has no security API: the path read as an index name
/// (Elasticsearch 7.10 OSS answers a `GET _security/user/<name>` with 404 `no such index
/// [_security]`) or matched by no handler (no plugin, an OSS build), or x-pack saying security
/// is off.
pub(crate) fn means_not_enabled(message: &str) -> bool {
    let lower = message.to_lowercase();
    lower.contains("no handler found")
        || lower.contains("no such index [_")
        || lower.contains("invalid index name [_")
        || lower.contains("invalid_index_name_exception")
        || lower.contains("security must be explicitly enabled")
        || lower.contains("security is not enabled")
        || lower.contains("security is disabled")
}

/// What a failed security call was for: its 404 means something different for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SecurityCall<'a> {
    /// The list of a kind: a 404 means the cluster has no security API.
    List,
    /// A read or a delete of the entry named so: a 404 means there is no such entry.
    Entry(&'a str),
    /// A write of the entry named so: a 404 is about something it refers to (OpenSearch: a
    /// role a mapping gives that does not exist), said in the cluster's words.
    Write(&'a str),
}

/// The 404 of an entry that does not exist.
pub(crate) fn no_such(kind: SecurityKind, name: &str) -> Error {
    Error::NotFound(format!(
        "The cluster has no {} named \"{}\".",
        kind.noun(),
        name.escape_debug()
    ))
}

/// A failed security call in words a newcomer can act on: no security on the cluster (404
/// `not_found`), no such entry or something a write refers to not found (404), anything else as
/// it was.
pub(crate) fn explained(
    error: Error,
    distribution: Distribution,
    kind: SecurityKind,
    call: SecurityCall<'_>,
) -> Error {
    match error {
        Error::RejectedByCluster { ref message, .. } | Error::Upstream { ref message, .. }
            if means_not_enabled(message) =>
        {
            not_enabled(distribution)
        }
        Error::RejectedByCluster { status, .. } if status == StatusCode::METHOD_NOT_ALLOWED => {
            not_enabled(distribution)
        }
        Error::RejectedByCluster {
            status,
            ref message,
        } if status == StatusCode::NOT_FOUND => match call {
            SecurityCall::List => not_enabled(distribution),
            SecurityCall::Entry(name) => no_such(kind, name),
            SecurityCall::Write(name) => Error::NotFound(format!(
                "The cluster could not write the {} \"{}\": something it refers to was not \
                 found (does each role it names exist?). {message}",
                kind.noun(),
                name.escape_debug()
            )),
        },
        other => other,
    }
}
