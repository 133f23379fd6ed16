//! `GET` and `PUT /api/console/tabs?cluster=<id>`: the caller's console tabs on one cluster. The
//! rules are in [`super::tabs`]; the store is the saved queries' ([`super::store`]).

use std::sync::Arc;

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use service_kit::identity::Identity;

use super::api::{capped, parse_json, store_failed};
use super::owner_of;
use super::store::{Expected, RecordStore, Written};
use super::tabs::{TabLimits, TabsAnswer, TabsBody, TabsRecord, record_key};
use crate::audit::rfc3339_now;
use crate::config::Role;
use crate::error::Error;
use crate::handlers::{AppState, fresh};

/// The store and its caps, shared by the handlers.
pub(crate) struct TabStore {
    pub(crate) store: Arc<dyn RecordStore<TabsRecord>>,
    pub(crate) limits: TabLimits,
}

pub(crate) fn routes(config: &mut web::ServiceConfig) {
    let limit = web::PayloadConfig::new(TabLimits::DEFAULT.body_bytes() + 1);
    config.service(
        web::resource("/api/console/tabs")
            .app_data(limit)
            .route(web::get().to(get))
            .route(web::put().to(put)),
    );
}

#[derive(Deserialize)]
struct Which {
    cluster: Option<String>,
}

/// The cluster named, if the caller may see it (404 as for one that does not exist otherwise).
fn cluster_of(state: &AppState, identity: &Identity, which: &Which) -> Result<String, Error> {
    let Some(cluster) = which.cluster.as_deref().filter(|c| !c.is_empty()) else {
        return Err(Error::BadRequest(
            "cluster (the id of the console's cluster) is required.".to_owned(),
        ));
    };
    let policy = &state.access.policy;
    if !policy.knows(cluster) || policy.role(cluster, identity) == Role::None {
        return Err(Error::NotFound(format!(
            "No cluster has the id \"{cluster}\"."
        )));
    }
    Ok(cluster.to_owned())
}

fn conflict(current: Option<TabsRecord>, cluster: &str) -> Error {
    let answer = current.map_or_else(|| TabsAnswer::empty(cluster), TabsAnswer::from);
    Error::VersionConflict {
        what: "console tabs",
        version: answer.version,
        current: serde_json::to_value(&answer).unwrap_or_default(),
    }
}

/// `GET /api/console/tabs?cluster=`: the stored tabs, or none at version 0.
async fn get(
    state: web::Data<AppState>,
    tabs: web::Data<TabStore>,
    identity: web::ReqData<Identity>,
    which: web::Query<Which>,
) -> Result<HttpResponse, Error> {
    let cluster = cluster_of(&state, &identity, &which)?;
    let key = record_key(&cluster, &owner_of(&identity));
    let stored = tabs.store.get(&key).await.map_err(store_failed)?;
    Ok(fresh(&stored.map_or_else(
        || TabsAnswer::empty(&cluster),
        TabsAnswer::from,
    )))
}

/// `PUT /api/console/tabs?cluster=`: every tab with the `version` the browser started from
/// (0: none stored); a stale one is 409 with what is stored now.
async fn put(
    state: web::Data<AppState>,
    tabs: web::Data<TabStore>,
    identity: web::ReqData<Identity>,
    which: web::Query<Which>,
    body: web::Bytes,
) -> Result<HttpResponse, Error> {
    let cluster = cluster_of(&state, &identity, &which)?;
    capped(&body, tabs.limits.body_bytes())?;
    let parsed = parse_json::<TabsBody>(&body)?.parse(&tabs.limits)?;
    let owner = owner_of(&identity);
    let record = TabsRecord {
        key: record_key(&cluster, &owner),
        owner,
        cluster: cluster.clone(),
        tabs: parsed.tabs,
        active: parsed.active,
        version: parsed.version + 1,
        updated_at: rfc3339_now(),
    };
    let expected = match parsed.version {
        0 => Expected::Absent,
        version => Expected::Version(version),
    };
    match tabs
        .store
        .put(record.clone(), expected)
        .await
        .map_err(store_failed)?
    {
        Written::Done => Ok(fresh(&TabsAnswer::from(record))),
        Written::Conflict(current) => Err(conflict(current.map(|c| *c), &cluster)),
    }
}
