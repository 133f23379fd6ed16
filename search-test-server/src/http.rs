//! The dispatcher: records every request, then answers it here or forwards it to osmem.

use std::sync::atomic::Ordering;

use actix_web::{HttpRequest, HttpResponse, web};

use crate::record::Recorded;
use crate::wire::{Call, Reply, json_response, not_recovered, parse_query, percent_decode};
use crate::{
    Shared, allocation, cat_cluster, cluster, forward, lock, nodes, nodes_stats, reroute,
    snapshots, tasks,
};

pub(crate) async fn handle(
    request: HttpRequest,
    body: web::Bytes,
    shared: web::Data<Shared>,
) -> HttpResponse {
    if shared.options.record_requests {
        lock(&shared.recorder).push(Recorded::of(&request, &body));
    }
    if shared.unavailable.load(Ordering::SeqCst) {
        shared.refused.fetch_add(1, Ordering::SeqCst);
        return json_response(503, &not_recovered()).into_response(None, false);
    }
    let call = Call {
        method: request.method().as_str().to_owned(),
        segments: request
            .path()
            .split('/')
            .filter(|segment| !segment.is_empty())
            .map(percent_decode)
            .collect(),
        params: parse_query(request.query_string()),
        raw_query: request.query_string().to_owned(),
        body: body.clone(),
    };
    match answer(&shared, &call).await {
        Some(reply) => reply.into_response(call.param("filter_path"), call.flag("pretty")),
        None => forward::forward(&shared, &request, body).await,
    }
}

/// The answer of the APIs played here; `None` for what goes to osmem.
async fn answer(shared: &Shared, call: &Call) -> Option<Reply> {
    let segments: Vec<&str> = call.segments.iter().map(String::as_str).collect();
    let method = call.method.as_str();
    let get = matches!(method, "GET" | "HEAD");
    Some(match (segments.as_slice(), method) {
        ([], "GET") => nodes::root(shared).await?,
        (["_nodes", "stats", ..] | ["_nodes", _, "stats", ..], "GET") => {
            nodes_stats::handle(shared, call, &segments).await
        }
        (["_nodes", ..], "GET")
            if segments.len() <= 3
                && !segments
                    .iter()
                    .any(|s| matches!(*s, "hot_threads" | "usage")) =>
        {
            nodes::info(shared, call, &segments).await
        }
        (["_cat", "nodes"], _) if get => nodes::cat(shared, call),
        (["_cat", "tasks"], _) if get => tasks::cat(shared, call),
        (["_cat", "master" | "cluster_manager"], _) if get => nodes::cat_master(shared, call),
        (["_cat", "health"], _) if get => cat_cluster::cat_health(shared, call).await,
        (["_cat", "repositories"], _) if get => snapshots::cat_repositories(shared, call),
        (["_cat", "snapshots"], _) if get => snapshots::cat_snapshots(shared, call, None),
        (["_cat", "snapshots", repository], _) if get => {
            snapshots::cat_snapshots(shared, call, Some(repository))
        }
        (["_cat", "shards", ..], _) if get => {
            cat_cluster::cat_shards(shared, call, &segments).await
        }
        (["_cat", "allocation", ..], _) if get => cat_cluster::cat_allocation(shared, call).await,
        (["_cat", "indices", ..], _) if get => {
            cat_cluster::cat_indices(shared, call, &segments).await
        }
        (["_cluster", "health", ..], _) if get => cluster::health(shared, call, &segments).await,
        (["_cluster", "state", ..], _) if get => cluster::state(shared, call, &segments).await,
        (["_cluster", "stats"], _) if get => cluster::stats(shared, call).await,
        (["_cluster", "allocation", "explain"], "GET" | "POST") => {
            allocation::explain(shared, call).await
        }
        (["_cluster", "reroute"], "POST") => reroute::reroute(shared, call).await,
        (["_tasks", rest @ ..], _) => tasks::handle(shared, call, rest)?,
        (["_snapshot", rest @ ..], _) => snapshots::handle(shared, call, rest).await?,
        _ => return None,
    })
}
