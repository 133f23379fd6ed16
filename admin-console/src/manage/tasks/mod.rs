//! Management: tasks (issue 19): the running tasks with filters (action patterns, nodes,
//! cancellable only, running longer than), a task's detail, and cancelling one. Routes under
//! `/api/clusters/{cluster_id}`; the scope's guard authorises and audits every call
//! (`access::action::view_needs`: reading is viewer, cancelling operator).

mod model;

use actix_web::{HttpResponse, web};
use reqwest::Method;

use crate::cluster::client::ClusterApi;
use crate::error::Error;
use crate::handlers::{AppState, fresh};
pub(crate) use model::*;

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/tasks", web::get().to(list))
        .route("/tasks/{task_id}", web::get().to(get))
        .route("/tasks/{task_id}/cancel", web::post().to(cancel));
}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
        Task::decl,
        TaskList::decl,
        TaskDetail::decl,
        CancelResult::decl,
    ]
};

pub(crate) async fn list_tasks(
    cluster: &impl ClusterApi,
    filter: &TaskFilter,
) -> Result<TaskList, Error> {
    let answer = cluster
        .call(Method::GET, &filter.cluster_path(), None)
        .await?;
    Ok(TaskList {
        tasks: tasks_by_node(&answer)
            .into_iter()
            .filter(|task| filter.keeps(task))
            .collect(),
        node_failures: failures(&answer),
    })
}

pub(crate) async fn get_task(cluster: &impl ClusterApi, id: &str) -> Result<TaskDetail, Error> {
    check_task_id(id)?;
    detail(
        &cluster
            .call(Method::GET, &format!("_tasks/{id}"), None)
            .await?,
    )
}

pub(crate) async fn cancel_task(
    cluster: &impl ClusterApi,
    id: &str,
) -> Result<CancelResult, Error> {
    check_task_id(id)?;
    let answer = cluster
        .call(Method::POST, &format!("_tasks/{id}/_cancel"), None)
        .await?;
    cancel_result(id, &answer)
}

type State = web::Data<AppState>;

async fn list(
    state: State,
    id: web::Path<String>,
    params: web::Query<TaskParams>,
) -> Result<HttpResponse, Error> {
    let filter = TaskFilter::parse(&params)?;
    let cluster = state.clusters.get(&id)?;
    Ok(fresh(&list_tasks(cluster.api(), &filter).await?))
}

async fn get(state: State, path: web::Path<(String, String)>) -> Result<HttpResponse, Error> {
    let (id, task) = path.into_inner();
    let cluster = state.clusters.get(&id)?;
    Ok(fresh(&get_task(cluster.api(), &task).await?))
}

async fn cancel(state: State, path: web::Path<(String, String)>) -> Result<HttpResponse, Error> {
    let (id, task) = path.into_inner();
    let cluster = state.clusters.get(&id)?;
    Ok(fresh(&cancel_task(cluster.api(), &task).await?))
}
