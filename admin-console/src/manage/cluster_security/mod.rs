//! Management: the cluster's own security — users, roles and role mappings of the OpenSearch
//! security plugin (`_plugins/_security/api/{internalusers,roles,rolesmapping}`) or of the
//! Elasticsearch native realm (`_security/{user,role,role_mapping}`): list, view, create, edit,
//! delete. Routes under `/api/clusters/{cluster_id}/security`; the scope's guard makes every one
//! of them admin, reads included (`access::action::view_needs`), audits them and asks for a
//! reason on a production cluster.
//!
//! No answer carries a password or its hash (`model::strip_secrets` on every entry the cluster
//! answers, then the neutral types, which have no such field); a password is accepted write-only
//! and never logged. Reserved entries are refused 409 before anything reaches the cluster; a
//! cluster without security answers 404 `not_found` saying so.

mod dialects;
mod model;
#[cfg(test)]
mod tests;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use reqwest::Method;
use serde::Deserialize;
use serde_json::Value;

use crate::cluster::client::ClusterApi;
use crate::cluster::dialect::Distribution;
use crate::error::Error;
use crate::handlers::{RequestedCluster, fresh};
use crate::manage::names::SecurityName;
pub(crate) use model::*;

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/security", web::get().to(overview))
        .route("/security/{kind}/{name}", web::get().to(get))
        .route("/security/{kind}/{name}", web::put().to(put))
        .route("/security/{kind}/{name}", web::delete().to(delete));
}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
        SecurityUser::decl,
        IndexPermission::decl,
        SecurityRole::decl,
        SecurityRoleMapping::decl,
        SecurityOverview::decl,
        UserChange::decl,
        RoleChange::decl,
        RoleMappingChange::decl,
        SecurityWritten::decl,
    ]
};

/// Every entry of `kind`, as the cluster lists them (secrets stripped).
async fn list_raw(
    cluster: &impl ClusterApi,
    distribution: Distribution,
    kind: SecurityKind,
) -> Result<Vec<(String, Value)>, Error> {
    let answer = cluster
        .call(Method::GET, kind.api_path(distribution), None)
        .await
        .map_err(|error| explained(error, distribution, kind, SecurityCall::List))?;
    dialects::entries(answer)
}

/// The three lists, read concurrently.
pub(crate) async fn security_overview(
    cluster: &impl ClusterApi,
    distribution: Distribution,
) -> Result<SecurityOverview, Error> {
    let (users, roles, mappings) = futures_util::join!(
        list_raw(cluster, distribution, SecurityKind::Users),
        list_raw(cluster, distribution, SecurityKind::Roles),
        list_raw(cluster, distribution, SecurityKind::RoleMappings),
    );
    Ok(SecurityOverview {
        distribution,
        users: users?
            .iter()
            .map(|(name, entry)| dialects::user(distribution, name, entry))
            .collect(),
        roles: roles?
            .iter()
            .map(|(name, entry)| dialects::role(distribution, name, entry))
            .collect(),
        role_mappings: mappings?
            .iter()
            .map(|(name, entry)| dialects::role_mapping(distribution, name, entry))
            .collect(),
    })
}

/// The cluster's path of the entry `name` of `kind` (no leading `/`).
fn entry_path(distribution: Distribution, kind: SecurityKind, name: &SecurityName) -> String {
    format!("{}/{}", kind.api_path(distribution), name.segment())
}

/// Sends a write or a delete of the entry `name` (`payload`: the write's body) and says what
/// was done.
async fn change_entry(
    cluster: &impl ClusterApi,
    distribution: Distribution,
    kind: SecurityKind,
    name: &SecurityName,
    payload: Option<&Value>,
    created: bool,
) -> Result<SecurityWritten, Error> {
    let (method, call) = match payload {
        Some(_) => (Method::PUT, SecurityCall::Write(name.as_str())),
        None => (Method::DELETE, SecurityCall::Entry(name.as_str())),
    };
    cluster
        .call(method, &entry_path(distribution, kind, name), payload)
        .await
        .map_err(|error| explained(error, distribution, kind, call))?;
    Ok(SecurityWritten {
        kind: kind.segment().to_owned(),
        name: name.as_str().to_owned(),
        created,
        deleted: payload.is_none(),
    })
}

/// The entry `name` of `kind` as the cluster has it (secrets stripped), None when there is
/// none.
async fn current(
    cluster: &impl ClusterApi,
    distribution: Distribution,
    kind: SecurityKind,
    name: &SecurityName,
) -> Result<Option<Value>, Error> {
    let path = entry_path(distribution, kind, name);
    match cluster.call(Method::GET, &path, None).await {
        Ok(answer) => Ok(dialects::entries(answer)?
            .into_iter()
            .find(|(key, _)| key == name.as_str())
            .map(|(_, entry)| entry)),
        // The security API's own 404, not a cluster without one reading the path as an index
        // (then nothing, a password least of all, may be written there).
        Err(Error::RejectedByCluster { status, message })
            if status == StatusCode::NOT_FOUND && !means_not_enabled(&message) =>
        {
            Ok(None)
        }
        Err(error) => Err(explained(
            error,
            distribution,
            kind,
            SecurityCall::Entry(name.as_str()),
        )),
    }
}

/// One entry in the neutral shape, as JSON (its type depends on the kind).
pub(crate) async fn security_entry(
    cluster: &impl ClusterApi,
    distribution: Distribution,
    kind: SecurityKind,
    name: &SecurityName,
) -> Result<Value, Error> {
    let entry = current(cluster, distribution, kind, name)
        .await?
        .ok_or_else(|| no_such(kind, name.as_str()))?;
    let name = name.as_str();
    let neutral = match kind {
        SecurityKind::Users => serde_json::to_value(dialects::user(distribution, name, &entry)),
        SecurityKind::Roles => serde_json::to_value(dialects::role(distribution, name, &entry)),
        SecurityKind::RoleMappings => {
            serde_json::to_value(dialects::role_mapping(distribution, name, &entry))
        }
    };
    neutral.map_err(|error| Error::upstream_because("Unreadable entry.".to_owned(), error))
}

/// Creates (`create`: refused 409 when it exists) or replaces the entry `name` with `body`
/// (the kind's change type as JSON).
pub(crate) async fn write_entry(
    cluster: &impl ClusterApi,
    distribution: Distribution,
    kind: SecurityKind,
    name: &SecurityName,
    body: &[u8],
    create: bool,
) -> Result<SecurityWritten, Error> {
    let unreadable = |error: serde_json::Error| {
        // serde's wrong type or value messages quote the value, which may be a password: only
        // where it is is said then.
        let text = error.to_string();
        let detail = if text.starts_with("invalid type") || text.starts_with("invalid value") {
            format!(
                "a field has the wrong type at line {}, column {}",
                error.line(),
                error.column()
            )
        } else {
            text
        };
        Error::BadRequest(format!("The {} is not valid: {detail}.", kind.noun()))
    };
    // Parsed before the cluster is asked anything.
    let change = match kind {
        SecurityKind::Users => {
            let change: UserChange = serde_json::from_slice(body).map_err(unreadable)?;
            refuse_unknown(kind, &change.unknown)?;
            Change::User(change)
        }
        SecurityKind::Roles => {
            let change: RoleChange = serde_json::from_slice(body).map_err(unreadable)?;
            refuse_unknown(kind, &change.unknown)?;
            Change::Role(change)
        }
        SecurityKind::RoleMappings => {
            let change: RoleMappingChange = serde_json::from_slice(body).map_err(unreadable)?;
            refuse_unknown(kind, &change.unknown)?;
            Change::Mapping(change)
        }
    };
    let current = current(cluster, distribution, kind, name).await?;
    if let Some(entry) = &current {
        if is_reserved(distribution, entry) {
            return Err(reserved_refusal(kind, name.as_str()));
        }
        if create {
            return Err(Error::Conflict(format!(
                "The cluster already has a {} named \"{}\".",
                kind.noun(),
                name.as_str().escape_debug()
            )));
        }
        if kind == SecurityKind::RoleMappings
            && distribution == Distribution::Elasticsearch
            && dialects::role_mapping(distribution, name.as_str(), entry).other_rules
        {
            return Err(Error::Conflict(format!(
                "The role mapping \"{}\" has rules beyond user names and groups: edit it in \
                 the console (PUT _security/role_mapping/…) so that they are not lost.",
                name.as_str().escape_debug()
            )));
        }
    }
    let current = current.as_ref();
    let payload = match &change {
        Change::User(change) => dialects::user_body(distribution, change, current)?,
        Change::Role(change) => dialects::role_body(distribution, change, current),
        Change::Mapping(change) => {
            dialects::role_mapping_body(distribution, name.as_str(), change, current)?
        }
    };
    change_entry(
        cluster,
        distribution,
        kind,
        name,
        Some(&payload),
        current.is_none(),
    )
    .await
}

enum Change {
    User(UserChange),
    Role(RoleChange),
    Mapping(RoleMappingChange),
}

/// Deletes `name`; `confirm` must repeat it (the web app has the user type it).
pub(crate) async fn delete_entry(
    cluster: &impl ClusterApi,
    distribution: Distribution,
    kind: SecurityKind,
    name: &SecurityName,
    confirm: Option<&str>,
) -> Result<SecurityWritten, Error> {
    if confirm != Some(name.as_str()) {
        return Err(Error::BadRequest(format!(
            "Deleting a {} needs confirm to be its exact name.",
            kind.noun()
        )));
    }
    let entry = current(cluster, distribution, kind, name)
        .await?
        .ok_or_else(|| no_such(kind, name.as_str()))?;
    if is_reserved(distribution, &entry) {
        return Err(reserved_refusal(kind, name.as_str()));
    }
    change_entry(cluster, distribution, kind, name, None, false).await
}

async fn distribution(cluster: &RequestedCluster) -> Result<Distribution, Error> {
    Ok(cluster.dialect().await?.distribution)
}

fn target(path: &(String, String, String)) -> Result<(SecurityKind, SecurityName), Error> {
    Ok((SecurityKind::parse(&path.1)?, SecurityName::parse(&path.2)?))
}

async fn overview(cluster: RequestedCluster) -> Result<HttpResponse, Error> {
    let distribution = distribution(&cluster).await?;
    Ok(fresh(
        &security_overview(cluster.api(), distribution).await?,
    ))
}

async fn get(
    cluster: RequestedCluster,
    path: web::Path<(String, String, String)>,
) -> Result<HttpResponse, Error> {
    let (kind, name) = target(&path)?;
    let distribution = distribution(&cluster).await?;
    Ok(fresh(
        &security_entry(cluster.api(), distribution, kind, &name).await?,
    ))
}

#[derive(Deserialize)]
struct PutParams {
    #[serde(default)]
    create: bool,
}

async fn put(
    cluster: RequestedCluster,
    path: web::Path<(String, String, String)>,
    params: web::Query<PutParams>,
    body: web::Bytes,
) -> Result<HttpResponse, Error> {
    let (kind, name) = target(&path)?;
    let distribution = distribution(&cluster).await?;
    let written = write_entry(
        cluster.api(),
        distribution,
        kind,
        &name,
        &body,
        params.create,
    )
    .await?;
    Ok(fresh(&written))
}

#[derive(Deserialize)]
struct DeleteParams {
    confirm: Option<String>,
}

async fn delete(
    cluster: RequestedCluster,
    path: web::Path<(String, String, String)>,
    params: web::Query<DeleteParams>,
) -> Result<HttpResponse, Error> {
    let (kind, name) = target(&path)?;
    let distribution = distribution(&cluster).await?;
    let deleted = delete_entry(
        cluster.api(),
        distribution,
        kind,
        &name,
        params.confirm.as_deref(),
    )
    .await?;
    Ok(fresh(&deleted))
}
