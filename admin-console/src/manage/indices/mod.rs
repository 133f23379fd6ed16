//! Management: indices. Routes under `/api/clusters/{cluster_id}`; the scope's guard
//! authorises and audits every call (`access::action::view_needs`): create, delete, the index
//! actions on one index or a selection, an index's page and the edit of its dynamic settings.
//! Handlers are thin; the checks and the cluster calls live in the submodules.

pub(crate) mod actions;
pub(crate) mod create;
pub(crate) mod detail;

use actix_web::{HttpResponse, web};
use reqwest::Method;
use serde::{Deserialize, Serialize};

use self::actions::{ActionAnswer, ActionRequest, IndexAction};
use self::create::{CreateIndex, Created};
use self::detail::PutSettings;
use crate::cluster::client::ClusterApi;
use crate::error::Error;
use crate::handlers::{RequestedCluster, fresh};
use crate::manage::names::IndexName;

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/indices", web::post().to(create_index))
        .route("/indices/_actions/{action}", web::post().to(run_action))
        .route("/indices/{index}", web::get().to(index_detail))
        .route("/indices/{index}", web::delete().to(delete_index))
        .route("/indices/{index}/settings", web::put().to(put_settings));
}

async fn create_index(
    cluster: RequestedCluster,
    body: web::Json<CreateIndex>,
) -> Result<HttpResponse, Error> {
    let dialect = cluster.dialect().await?;
    let (name, body) = body.into_inner().into_call(dialect)?;
    let answer = cluster
        .api()
        .call(Method::PUT, &name.segment(), Some(&body))
        .await;
    cluster.indices_changed();
    Ok(fresh(&Created::from_answer(name.as_str(), &answer?)))
}

#[derive(Debug, Deserialize)]
struct DeleteParams {
    confirm: Option<String>,
}

/// The answer of a single delete.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct Deleted {
    pub(crate) index: String,
    pub(crate) acknowledged: bool,
}

/// `DELETE /indices/{index}?confirm={index}`: one index by its exact name, never a pattern.
async fn delete_index(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
    params: web::Query<DeleteParams>,
) -> Result<HttpResponse, Error> {
    let (_, index) = path.into_inner();
    let index = IndexName::parse(&index)?;
    if params.confirm.as_deref() != Some(index.as_str()) {
        return Err(Error::BadRequest(format!(
            "Deleting an index needs confirm to be its exact name (confirm={}).",
            index.as_str()
        )));
    }
    let answer = cluster
        .api()
        .call(Method::DELETE, &index.segment(), None)
        .await;
    cluster.indices_changed();
    let answer = answer?;
    Ok(fresh(&Deleted {
        acknowledged: answer["acknowledged"].as_bool().unwrap_or(false),
        index: index.as_str().to_owned(),
    }))
}

async fn run_action(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
    body: web::Json<ActionRequest>,
) -> Result<HttpResponse, Error> {
    let (_, action) = path.into_inner();
    let action = IndexAction::parse(&action)?;
    let checked = body.into_inner().check(action)?;
    let results = actions::run(cluster.api(), action, &checked).await;
    if action.changes_the_list() {
        cluster.indices_changed();
    }
    Ok(fresh(&ActionAnswer { action, results }))
}

async fn index_detail(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, Error> {
    let (_, index) = path.into_inner();
    let index = IndexName::parse(&index)?;
    Ok(fresh(&detail::detail(cluster.api(), &index).await?))
}

/// The answer of a settings edit.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct SettingsChanged {
    pub(crate) index: String,
    pub(crate) acknowledged: bool,
}

async fn put_settings(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
    body: web::Json<PutSettings>,
) -> Result<HttpResponse, Error> {
    let (_, index) = path.into_inner();
    let index = IndexName::parse(&index)?;
    let body = body.into_inner().into_body()?;
    let answer = cluster
        .api()
        .call(
            Method::PUT,
            &format!("{}/_settings", index.segment()),
            Some(&body),
        )
        .await;
    // The replicas count is in the index list.
    cluster.indices_changed();
    let answer = answer?;
    Ok(fresh(&SettingsChanged {
        acknowledged: answer["acknowledged"].as_bool().unwrap_or(false),
        index: index.as_str().to_owned(),
    }))
}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
        CreateIndex::decl,
        Created::decl,
        Deleted::decl,
        IndexAction::decl,
        ActionRequest::decl,
        actions::ActionResult::decl,
        ActionAnswer::decl,
        detail::SettingRow::decl,
        detail::IndexStats::decl,
        detail::IndexShard::decl,
        detail::IndexAlias::decl,
        detail::IndexDetail::decl,
        PutSettings::decl,
        SettingsChanged::decl,
    ]
};
