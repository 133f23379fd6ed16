//! Analysis and cat tools: the `_analyze` tester and the cat-API browser. Both only read, so
//! both are viewer (`access::action::view_needs`: `POST /analyze` is viewer like every `GET`).
//! Routes under `/api/clusters/{cluster_id}`.
//!
//! Cluster calls: `POST /_analyze` or `POST /<index>/_analyze` with the checked body
//! ([`analyze`]); `GET /_cat` (text), `GET /_cat/<api>?format=json&v` and `GET /_cat/<api>?help`
//! (text, read concurrently; a help refusal leaves the descriptions empty and the columns in the
//! rows' order), `<api>` one of
//! [`CAT_APIS`], `_cat/snapshots/<repository>` with a checked repository name ([`cat`]).

mod analyze;
mod cat;

use actix_web::{HttpResponse, web};
use reqwest::Method;
use serde::Deserialize;

use crate::cluster::client::ClusterApi;
use crate::error::Error;
use crate::handlers::{RequestedCluster, fresh};
use crate::manage::names::RepositoryName;
pub(crate) use analyze::*;
pub(crate) use cat::*;

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/analyze", web::post().to(analyze_handler))
        .route("/cat", web::get().to(cat_list_handler))
        .route("/cat/{api}", web::get().to(cat_handler));
}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
        AnalyzedToken::decl,
        AnalysisStep::decl,
        AnalyzeResult::decl,
        CatApi::decl,
        CatApiList::decl,
        CatColumn::decl,
        CatTable::decl,
    ]
};

/// Runs a checked analysis on the cluster.
pub(crate) async fn analyze_text(
    cluster: &impl ClusterApi,
    request: &AnalyzeRequest,
) -> Result<AnalyzeResult, Error> {
    let call = request.checked()?;
    let answer = cluster
        .call(Method::POST, &call.path, Some(&call.body))
        .await?;
    analyzed(&answer)
}

/// The cat APIs the cluster offers, of those the console shows.
pub(crate) async fn list_cat_apis(cluster: &impl ClusterApi) -> Result<CatApiList, Error> {
    Ok(cat_apis(&cluster.get_text("_cat").await?))
}

/// One cat API as a table, with its columns' help.
pub(crate) async fn read_cat(
    cluster: &impl ClusterApi,
    api: CatApiName,
    repository: Option<&RepositoryName>,
) -> Result<CatTable, Error> {
    let path = match repository {
        Some(repository) if api.takes_repository() => {
            format!("_cat/{}/{}", api.as_str(), repository.segment())
        }
        Some(_) => {
            return Err(Error::BadRequest(format!(
                "_cat/{} takes no repository.",
                api.as_str()
            )));
        }
        None => format!("_cat/{}", api.as_str()),
    };
    // The help is asked without the repository: the cluster refuses `?help` with a path
    // parameter it does not consume (400 `unrecognized parameter: [repository]`).
    let (rows_path, help_path) = (
        format!("{path}?format=json&v"),
        format!("_cat/{}?help", api.as_str()),
    );
    let (answer, help) = futures_util::join!(
        cluster.call(Method::GET, &rows_path, None),
        cluster.get_text(&help_path),
    );
    let help = help.map(|text| help_columns(&text)).unwrap_or_default();
    cat_table(api, &answer?, &help)
}

async fn analyze_handler(
    cluster: RequestedCluster,
    body: web::Json<AnalyzeRequest>,
) -> Result<HttpResponse, Error> {
    Ok(fresh(&analyze_text(cluster.api(), &body).await?))
}

async fn cat_list_handler(cluster: RequestedCluster) -> Result<HttpResponse, Error> {
    Ok(fresh(&list_cat_apis(cluster.api()).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CatParams {
    repository: Option<String>,
}

async fn cat_handler(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
    params: web::Query<CatParams>,
) -> Result<HttpResponse, Error> {
    let api = CatApiName::parse(&path.1)?;
    let repository = params
        .repository
        .as_deref()
        .map(RepositoryName::parse)
        .transpose()?;
    Ok(fresh(
        &read_cat(cluster.api(), api, repository.as_ref()).await?,
    ))
}
