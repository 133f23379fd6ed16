//! Management: tasks: the running tasks with filters (action patterns, nodes,
//! cancellable only, running longer than), a task's detail, and cancelling one. Routes under
//! `/api/clusters/{cluster_id}`; the scope's guard authorises and audits every call
//! (`access::action::view_needs`: reading is viewer, cancelling operator).

mod model;

use actix_web::{HttpResponse, web};
use reqwest::Method;

use crate::cluster::client::ClusterApi;
use crate::error::Error;
use crate::handlers::{RequestedCluster, fresh};
use crate::manage::names::TaskId;
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

pub(crate) async fn get_task(cluster: &impl ClusterApi, id: &TaskId) -> Result<TaskDetail, Error> {
    detail(
        &cluster
            .call(Method::GET, &format!("_tasks/{}", id.segment()), None)
            .await?,
    )
}

pub(crate) async fn cancel_task(
    cluster: &impl ClusterApi,
    id: &TaskId,
) -> Result<CancelResult, Error> {
    let answer = cluster
        .call(
            Method::POST,
            &format!("_tasks/{}/_cancel", id.segment()),
            None,
        )
        .await?;
    cancel_result(id.as_str(), &answer)
}

async fn list(
    cluster: RequestedCluster,
    params: web::Query<TaskParams>,
) -> Result<HttpResponse, Error> {
    let filter = TaskFilter::parse(&params)?;
    Ok(fresh(&list_tasks(cluster.api(), &filter).await?))
}

async fn get(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, Error> {
    let (_, task) = path.into_inner();
    Ok(fresh(
        &get_task(cluster.api(), &TaskId::parse(&task)?).await?,
    ))
}

async fn cancel(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, Error> {
    let (_, task) = path.into_inner();
    Ok(fresh(
        &cancel_task(cluster.api(), &TaskId::parse(&task)?).await?,
    ))
}
