//! Management: data streams — list them with their backing indices, generation, template and
//! health; create one from a matching index template, roll one over, delete one by its typed
//! name. Routes under `/api/clusters/{cluster_id}`; the scope's guard authorises and audits every
//! call (`access::action::view_needs`: reading is viewer, a rollover operator, creating and
//! deleting admin) and asks for a reason on a production cluster.
//!
//! Cluster calls: `GET /_data_stream` and `GET /_data_stream/_stats` (read concurrently; a stats
//! refusal leaves the sizes out), `PUT /_data_stream/<name>`, `GET /_data_stream/<name>` before
//! a rollover or a delete (so that a missing stream is a 404 on every cluster: OpenSearch
//! acknowledges the delete of a stream that does not exist, and `_rollover` also rolls aliases),
//! `POST /<name>/_rollover`, `DELETE /_data_stream/<name>`.

mod model;

use actix_web::{HttpResponse, web};
use reqwest::Method;
use serde::Deserialize;

use crate::cluster::client::ClusterApi;
use crate::error::Error;
use crate::handlers::{RequestedCluster, fresh};
use crate::manage::names::DataStreamName;
pub(crate) use model::*;

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/data_streams", web::get().to(list))
        .route("/data_streams/{name}", web::put().to(create))
        .route("/data_streams/{name}", web::delete().to(delete))
        .route("/data_streams/{name}/_rollover", web::post().to(rollover));
}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
        BackingIndex::decl,
        DataStreamRow::decl,
        DataStreamList::decl,
        DataStreamCreated::decl,
        RolledOver::decl,
        DataStreamDeleted::decl,
    ]
};

/// Every data stream, with the sizes when the cluster gives its stats.
pub(crate) async fn list_data_streams(cluster: &impl ClusterApi) -> Result<DataStreamList, Error> {
    let (answer, stats) = futures_util::join!(
        cluster.call(Method::GET, "_data_stream", None),
        cluster.call(Method::GET, "_data_stream/_stats", None),
    );
    let answer = answer.map_err(|error| explained(error, None))?;
    Ok(DataStreamList {
        data_streams: rows(&answer, stats.ok().as_ref())?,
    })
}

/// Creates `name` from the index template that matches it (which must have `data_stream`).
pub(crate) async fn create_data_stream(
    cluster: &impl ClusterApi,
    name: &DataStreamName,
) -> Result<DataStreamCreated, Error> {
    let path = format!("_data_stream/{}", name.segment());
    let answer = cluster
        .call(Method::PUT, &path, None)
        .await
        .map_err(|error| explained(error, Some(name.as_str())))?;
    Ok(DataStreamCreated {
        name: name.as_str().to_owned(),
        acknowledged: answer["acknowledged"].as_bool().unwrap_or(false),
    })
}

/// 404 unless the cluster has a data stream of exactly that name.
async fn must_exist(cluster: &impl ClusterApi, name: &DataStreamName) -> Result<(), Error> {
    let path = format!("_data_stream/{}", name.segment());
    let answer = cluster
        .call(Method::GET, &path, None)
        .await
        .map_err(|error| explained(error, Some(name.as_str())))?;
    if rows(&answer, None)?
        .iter()
        .any(|row| row.name == name.as_str())
    {
        Ok(())
    } else {
        Err(explained(
            Error::RejectedByCluster {
                status: actix_web::http::StatusCode::NOT_FOUND,
                message: String::new(),
            },
            Some(name.as_str()),
        ))
    }
}

/// Rolls `name` over now: a new write index, the next generation.
pub(crate) async fn rollover_data_stream(
    cluster: &impl ClusterApi,
    name: &DataStreamName,
) -> Result<RolledOver, Error> {
    must_exist(cluster, name).await?;
    let answer = cluster
        .call(Method::POST, &format!("{}/_rollover", name.segment()), None)
        .await
        .map_err(|error| explained(error, Some(name.as_str())))?;
    Ok(rolled_over(name.as_str(), &answer))
}

/// Deletes `name` and its backing indices; `confirm` must repeat its name (the web app has the
/// user type it).
pub(crate) async fn delete_data_stream(
    cluster: &impl ClusterApi,
    name: &DataStreamName,
    confirm: Option<&str>,
) -> Result<DataStreamDeleted, Error> {
    if confirm != Some(name.as_str()) {
        return Err(Error::BadRequest(format!(
            "Deleting a data stream deletes its backing indices and their documents: it needs \
             confirm to be its exact name (confirm={}).",
            name.as_str()
        )));
    }
    must_exist(cluster, name).await?;
    let answer = cluster
        .call(
            Method::DELETE,
            &format!("_data_stream/{}", name.segment()),
            None,
        )
        .await
        .map_err(|error| explained(error, Some(name.as_str())))?;
    Ok(DataStreamDeleted {
        name: name.as_str().to_owned(),
        acknowledged: answer["acknowledged"].as_bool().unwrap_or(false),
    })
}

async fn list(cluster: RequestedCluster) -> Result<HttpResponse, Error> {
    Ok(fresh(&list_data_streams(cluster.api()).await?))
}

async fn create(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, Error> {
    let name = DataStreamName::parse(&path.1)?;
    let created = create_data_stream(cluster.api(), &name).await;
    cluster.indices_changed();
    Ok(fresh(&created?))
}

async fn rollover(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, Error> {
    let name = DataStreamName::parse(&path.1)?;
    let rolled = rollover_data_stream(cluster.api(), &name).await;
    cluster.indices_changed();
    Ok(fresh(&rolled?))
}

#[derive(Deserialize)]
struct DeleteParams {
    confirm: Option<String>,
}

async fn delete(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
    params: web::Query<DeleteParams>,
) -> Result<HttpResponse, Error> {
    let name = DataStreamName::parse(&path.1)?;
    let deleted = delete_data_stream(cluster.api(), &name, params.confirm.as_deref()).await;
    cluster.indices_changed();
    Ok(fresh(&deleted?))
}
