//! `/api/saved-queries`: list and search, export, create, import, read, edit, delete. The rules
//! (who reads, who edits, the caps, the version check) are in [`super`] and [`super::store`];
//! this file reads the request, applies them in order and answers.

use std::sync::Arc;

use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use service_kit::identity::Identity;

use super::draft::DraftBody;
use super::store::{Expected, RecordStore, Written};
use super::{ALL_CLUSTERS, Draft, Limits, Rights, SavedQuery, Search};
use crate::audit::rfc3339_now;
use crate::config::Role;
use crate::error::Error;
use crate::handlers::{AppState, fresh};

/// The store and its caps, shared by the handlers.
pub(crate) struct SavedStore {
    pub(crate) store: Arc<dyn RecordStore<SavedQuery>>,
    pub(crate) limits: Limits,
}

impl SavedStore {
    /// The stored queries `keep` keeps.
    async fn matching(&self, keep: impl Fn(&SavedQuery) -> bool) -> Result<Vec<SavedQuery>, Error> {
        Ok(self
            .store
            .all()
            .await
            .map_err(store_failed)?
            .into_iter()
            .filter(|query| keep(query))
            .collect())
    }
}

/// 413 for a body above `limit` bytes.
pub(crate) fn capped(body: &[u8], limit: usize) -> Result<(), Error> {
    if body.len() > limit {
        return Err(Error::TooLarge(format!(
            "The body is larger than {limit} bytes."
        )));
    }
    Ok(())
}

type Saved = web::Data<SavedStore>;
type State = web::Data<AppState>;

/// Largest body of one create or edit (the text's cap and room for the rest).
const ONE_QUERY_BYTES: usize = 128 * 1024;
/// Largest import body.
const IMPORT_BYTES: usize = 4 * 1024 * 1024;

/// The routes, registered in the authenticated scope (same-origin checked for writes).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    // The body limit for these resources only (an import may be larger than actix's default);
    // each handler checks its own cap and answers 413 in the common body.
    let limit = || web::PayloadConfig::new(IMPORT_BYTES + 1);
    config
        .service(
            web::resource("/api/saved-queries")
                .app_data(limit())
                .route(web::get().to(list))
                .route(web::post().to(create_or_import)),
        )
        .service(
            web::resource("/api/saved-queries/{id}")
                .app_data(limit())
                .route(web::get().to(get))
                .route(web::put().to(edit))
                .route(web::delete().to(delete)),
        );
}

pub(crate) fn store_failed(error: super::store::StoreError) -> Error {
    tracing::error!("{error}");
    Error::StoreUnavailable("Saved queries cannot be read or written right now.".to_owned())
}

fn not_found(id: &str) -> Error {
    Error::NotFound(format!("No saved query has the id \"{id}\"."))
}

fn conflict(current: SavedQuery) -> Error {
    Error::VersionConflict {
        what: "saved query",
        version: current.version,
        current: serde_json::to_value(&current).unwrap_or_default(),
    }
}

#[derive(Serialize)]
struct QueryList {
    queries: Vec<SavedQuery>,
}

/// One entry of an export document (what another console needs to re-create it).
#[derive(Debug, Serialize, Deserialize)]
struct Exported {
    name: String,
    #[serde(default)]
    tags: Vec<String>,
    text: String,
    #[serde(default = "all")]
    cluster: String,
    #[serde(default = "private")]
    visibility: String,
}

fn all() -> String {
    ALL_CLUSTERS.to_owned()
}

fn private() -> String {
    "private".to_owned()
}

#[derive(Serialize)]
struct ExportDocument {
    kind: &'static str,
    exported_at: String,
    queries: Vec<Exported>,
}

const EXPORT_KIND: &str = "admin-console/saved-queries";

/// The queries the caller may read, matching the search, by name.
async fn readable(
    state: &AppState,
    saved: &SavedStore,
    identity: &Identity,
    search: &Search,
) -> Result<Vec<SavedQuery>, Error> {
    let rights = Rights::new(&state.access.policy, identity);
    let mut queries = saved
        .matching(|query| rights.may_read(query) && search.matches(query))
        .await?;
    queries.sort_by(|a, b| {
        a.name
            .to_lowercase()
            .cmp(&b.name.to_lowercase())
            .then(a.id.cmp(&b.id))
    });
    Ok(queries)
}

/// `GET /api/saved-queries?q=&cluster=&format=export`.
async fn list(
    state: State,
    saved: Saved,
    identity: web::ReqData<Identity>,
    search: web::Query<Search>,
) -> Result<HttpResponse, Error> {
    let queries = readable(&state, &saved, &identity, &search).await?;
    match search.format.as_deref() {
        None | Some("") | Some("list") => Ok(fresh(&QueryList { queries })),
        Some("export") => Ok(HttpResponse::Ok()
            .insert_header(("cache-control", "no-store"))
            .insert_header((
                "content-disposition",
                "attachment; filename=\"saved-queries.json\"",
            ))
            .json(ExportDocument {
                kind: EXPORT_KIND,
                exported_at: rfc3339_now(),
                queries: queries
                    .into_iter()
                    .map(|query| Exported {
                        name: query.name,
                        tags: query.tags,
                        text: query.text,
                        cluster: query.cluster,
                        visibility: query.visibility.to_string(),
                    })
                    .collect(),
            })),
        Some(_) => Err(Error::BadRequest(
            "format must be list or export.".to_owned(),
        )),
    }
}

/// Checks a draft against the caller's rights: a cluster they see (or `all`), a group they
/// are in.
fn admissible(rights: &Rights<'_>, draft: &Draft) -> Result<(), Error> {
    if draft.cluster != ALL_CLUSTERS
        && (!rights.policy.knows(&draft.cluster) || rights.role_on(&draft.cluster) == Role::None)
    {
        return Err(Error::BadRequest(format!(
            "cluster must be all or the id of a cluster you can see; \"{}\" is neither.",
            draft.cluster
        )));
    }
    if !rights.may_share_with(&draft.visibility, &draft.cluster) {
        return Err(Error::Forbidden(format!(
            "You can share a query only with a group you are in; you are not in {}.",
            draft.visibility
        )));
    }
    Ok(())
}

fn new_query(draft: Draft, owner: &str) -> SavedQuery {
    let bytes: [u8; 16] = rand::random();
    SavedQuery {
        id: bytes.iter().map(|b| format!("{b:02x}")).collect(),
        name: draft.name,
        tags: draft.tags,
        text: draft.text,
        cluster: draft.cluster,
        visibility: draft.visibility,
        owner: owner.to_owned(),
        version: 1,
        updated_at: rfc3339_now(),
    }
}

pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Error> {
    serde_json::from_slice(body)
        .map_err(|error| Error::BadRequest(format!("The request body is not valid: {error}.")))
}

/// `POST /api/saved-queries`: one query (201 with it), or an import — a list of queries or an
/// export document — answered with what was created and what was skipped and why.
async fn create_or_import(
    state: State,
    saved: Saved,
    identity: web::ReqData<Identity>,
    body: web::Bytes,
) -> Result<HttpResponse, Error> {
    capped(&body, IMPORT_BYTES)?;
    let value: serde_json::Value = parse_json(&body)?;
    let entries = match &value {
        serde_json::Value::Array(_) => Some(value.clone()),
        serde_json::Value::Object(object) if object.contains_key("queries") => {
            object.get("queries").cloned()
        }
        _ => None,
    };
    let rights = Rights::new(&state.access.policy, &identity);
    if let Some(entries) = entries {
        let entries: Vec<serde_json::Value> = serde_json::from_value(entries).map_err(|_| {
            Error::BadRequest("queries must be a list of saved queries.".to_owned())
        })?;
        return import(&saved, &rights, entries).await;
    }
    capped(&body, ONE_QUERY_BYTES)?;
    let draft = Draft::parse(parse_json(&body)?, &saved.limits)?;
    admissible(&rights, &draft)?;
    let owned = saved
        .matching(|query| query.owner == rights.owner)
        .await?
        .len();
    saved.limits.room_for_one_more(owned)?;
    let query = new_query(draft, &rights.owner);
    match saved
        .store
        .put(query.clone(), Expected::Absent)
        .await
        .map_err(store_failed)?
    {
        Written::Done => Ok(HttpResponse::Created()
            .insert_header(("cache-control", "no-store"))
            .json(query)),
        Written::Conflict(_) => Err(Error::StoreUnavailable(
            "A new id collided with a stored one; try again.".to_owned(),
        )),
    }
}

#[derive(Serialize)]
struct Skipped {
    index: usize,
    name: Option<String>,
    reason: String,
}

#[derive(Serialize)]
struct ImportReport {
    created: Vec<SavedQuery>,
    skipped: Vec<Skipped>,
}

/// Creates each admissible entry as the caller's; skips (with the reason) those that break a
/// rule and those the caller already has (same name, cluster and text).
async fn import(
    saved: &SavedStore,
    rights: &Rights<'_>,
    entries: Vec<serde_json::Value>,
) -> Result<HttpResponse, Error> {
    let limits = &saved.limits;
    if entries.len() > limits.import_entries {
        return Err(Error::TooLarge(format!(
            "An import holds at most {} queries.",
            limits.import_entries
        )));
    }
    let mut owned = saved.matching(|query| query.owner == rights.owner).await?;
    let mut report = ImportReport {
        created: Vec::new(),
        skipped: Vec::new(),
    };
    for (index, entry) in entries.into_iter().enumerate() {
        let name = entry
            .get("name")
            .and_then(|n| n.as_str())
            .map(str::to_owned);
        let skip = |reason: String| Skipped {
            index,
            name: name.clone(),
            reason,
        };
        let draft = serde_json::from_value::<Exported>(entry)
            .map_err(|error| Error::BadRequest(format!("not a saved query: {error}")))
            .and_then(|exported| {
                Draft::parse(
                    DraftBody {
                        name: exported.name,
                        tags: exported.tags,
                        text: exported.text,
                        cluster: exported.cluster,
                        visibility: exported.visibility,
                        version: None,
                    },
                    limits,
                )
            })
            .and_then(|draft| admissible(rights, &draft).map(|()| draft));
        let draft = match draft {
            Ok(draft) => draft,
            Err(error) => {
                report.skipped.push(skip(error.to_string()));
                continue;
            }
        };
        if owned.iter().any(|query| {
            query.name == draft.name && query.cluster == draft.cluster && query.text == draft.text
        }) {
            report
                .skipped
                .push(skip("you already have this query".to_owned()));
            continue;
        }
        if let Err(full) = limits.room_for_one_more(owned.len()) {
            report.skipped.push(skip(full.to_string()));
            continue;
        }
        let query = new_query(draft, &rights.owner);
        match saved
            .store
            .put(query.clone(), Expected::Absent)
            .await
            .map_err(store_failed)?
        {
            Written::Done => {
                owned.push(query.clone());
                report.created.push(query);
            }
            Written::Conflict(_) => report
                .skipped
                .push(skip("id collision; import again".to_owned())),
        }
    }
    Ok(fresh(&report))
}

/// A stored query the caller may read, else 404 (the same for one that does not exist).
async fn readable_one(
    saved: &SavedStore,
    rights: &Rights<'_>,
    id: &str,
) -> Result<SavedQuery, Error> {
    match saved.store.get(id).await.map_err(store_failed)? {
        Some(query) if rights.may_read(&query) => Ok(query),
        _ => Err(not_found(id)),
    }
}

/// `GET /api/saved-queries/{id}`.
async fn get(
    state: State,
    saved: Saved,
    identity: web::ReqData<Identity>,
    id: web::Path<String>,
) -> Result<HttpResponse, Error> {
    let rights = Rights::new(&state.access.policy, &identity);
    Ok(fresh(&readable_one(&saved, &rights, &id).await?))
}

fn may_edit(rights: &Rights<'_>, query: &SavedQuery) -> Result<(), Error> {
    if rights.may_edit(query) {
        Ok(())
    } else {
        Err(Error::Forbidden(
            "Only its owner, operators of its cluster in its group, and admins edit this query."
                .to_owned(),
        ))
    }
}

/// `PUT /api/saved-queries/{id}`: the whole query with the `version` the edit started from;
/// 409 with the current query when that is stale.
async fn edit(
    state: State,
    saved: Saved,
    identity: web::ReqData<Identity>,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, Error> {
    capped(&body, ONE_QUERY_BYTES)?;
    let body: DraftBody = parse_json(&body)?;
    let Some(version) = body.version else {
        return Err(Error::BadRequest(
            "version (the one the edit started from) is required.".to_owned(),
        ));
    };
    let draft = Draft::parse(body, &saved.limits)?;
    let rights = Rights::new(&state.access.policy, &identity);
    let current = readable_one(&saved, &rights, &id).await?;
    may_edit(&rights, &current)?;
    if current.version != version {
        return Err(conflict(current));
    }
    admissible(&rights, &draft)?;
    let updated = SavedQuery {
        id: current.id.clone(),
        name: draft.name,
        tags: draft.tags,
        text: draft.text,
        cluster: draft.cluster,
        visibility: draft.visibility,
        owner: current.owner.clone(),
        version: version + 1,
        updated_at: rfc3339_now(),
    };
    // Moved to another cluster or group: the caller must be able to edit it there too.
    may_edit(&rights, &updated)?;
    match saved
        .store
        .put(updated.clone(), Expected::Version(version))
        .await
        .map_err(store_failed)?
    {
        Written::Done => Ok(fresh(&updated)),
        Written::Conflict(Some(now)) => Err(conflict(*now)),
        Written::Conflict(None) => Err(not_found(&id)),
    }
}

#[derive(Deserialize)]
struct DeleteParams {
    version: Option<u64>,
}

/// `DELETE /api/saved-queries/{id}?version=N`: 204; 409 with the current query when `version`
/// is stale.
async fn delete(
    state: State,
    saved: Saved,
    identity: web::ReqData<Identity>,
    id: web::Path<String>,
    params: web::Query<DeleteParams>,
) -> Result<HttpResponse, Error> {
    let Some(version) = params.version else {
        return Err(Error::BadRequest(
            "version (the one you are deleting) is required.".to_owned(),
        ));
    };
    let rights = Rights::new(&state.access.policy, &identity);
    let current = readable_one(&saved, &rights, &id).await?;
    may_edit(&rights, &current)?;
    match saved
        .store
        .delete(&id, version)
        .await
        .map_err(store_failed)?
    {
        Written::Done => Ok(HttpResponse::NoContent().finish()),
        Written::Conflict(Some(now)) => Err(conflict(*now)),
        Written::Conflict(None) => Err(not_found(&id)),
    }
}
