//! List and watch of a collection (one kind, in one namespace or all): resourceVersion
//! semantics, pagination, selectors, bookmarks and the `Table` kubectl asks for.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use actix_web::web::{self, Bytes};
use actix_web::{HttpRequest, HttpResponse};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::kind::Kind;
use crate::select::Selector;
use crate::store::{Change, EventType, Scope, WatchMessage};
use crate::{Cluster, table, wire};

pub type Query = web::Query<HashMap<String, String>>;

pub fn is_true(query: &Query, name: &str) -> bool {
    matches!(query.get(name).map(String::as_str), Some("true" | "1"))
}

/// List or watch of a collection, counted.
pub async fn collection(
    cluster: &Cluster,
    scope: Scope,
    query: &Query,
    request: &HttpRequest,
) -> HttpResponse {
    let watch = is_true(query, "watch");
    let counter = if watch {
        &cluster.counters.watch_requests
    } else {
        &cluster.counters.list_requests
    };
    counter.fetch_add(1, Ordering::SeqCst);
    let selector = match Selector::parse(
        scope.kind,
        query.get("labelSelector").map(String::as_str),
        query.get("fieldSelector").map(String::as_str),
    ) {
        Ok(selector) => selector,
        Err(message) => return wire::status_response(wire::bad_request(&message)),
    };
    if watch {
        watch_response(cluster, scope, &selector, query)
    } else {
        list_response(cluster, scope, &selector, query, request)
    }
}

/// A change as a watch with `selector` sees it: an object that starts matching is ADDED, one
/// that stops matching is DELETED, as the API server's watch filtering does.
fn selected_event(kind: Kind, change: &Change, selector: &Selector) -> Option<String> {
    let event = if selector.is_everything() {
        change.event
    } else {
        let now = selector.matches(kind, &change.object);
        let before = change
            .previous
            .as_ref()
            .is_some_and(|previous| selector.matches(kind, previous));
        match (change.event, before, now) {
            (EventType::Added, _, true) => EventType::Added,
            (EventType::Modified, true, true) => EventType::Modified,
            (EventType::Modified, false, true) => EventType::Added,
            (EventType::Modified, true, false) => EventType::Deleted,
            (EventType::Deleted, _, true) => EventType::Deleted,
            _ => return None,
        }
    };
    Some(wire::watch_event(
        event.as_str(),
        &wire::with_type_meta(kind, &change.object),
    ))
}

fn list_response(
    cluster: &Cluster,
    scope: Scope,
    selector: &Selector,
    query: &Query,
    request: &HttpRequest,
) -> HttpResponse {
    let resource_version = query.get("resourceVersion").filter(|v| !v.is_empty());
    let version_match = query.get("resourceVersionMatch").filter(|v| !v.is_empty());
    let continue_token = query.get("continue").filter(|v| !v.is_empty());
    let limit = match query.get("limit").map(|limit| limit.parse::<usize>()) {
        None => None,
        Some(Ok(0)) => None,
        Some(Ok(limit)) => Some(limit),
        Some(Err(_)) => {
            return wire::status_response(wire::bad_request(
                "limit: Invalid value: must be a non-negative integer",
            ));
        }
    };
    if version_match.is_some() && resource_version.is_none() {
        return wire::status_response(wire::bad_request(
            "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
        ));
    }
    if continue_token.is_some() && resource_version.is_some_and(|v| v != "0") {
        return wire::status_response(wire::bad_request(
            "resourceVersion: Forbidden: specifying resource version is not allowed when using continue",
        ));
    }
    let (revision, start) = match continue_token {
        Some(token) => match wire::decode_continue(token) {
            Some((revision, start)) => (Some(revision), Some(start)),
            None => {
                return wire::status_response(wire::bad_request(
                    "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
                ));
            }
        },
        None => {
            let exact = match (resource_version, version_match.map(String::as_str)) {
                (Some(version), Some("Exact")) => match version.parse::<u64>() {
                    Ok(version) => Some(version),
                    Err(_) => {
                        return wire::status_response(wire::bad_request(&format!(
                            "resourceVersion: Invalid value: \"{version}\": must be an integer"
                        )));
                    }
                },
                (_, Some("NotOlderThan" | "Exact") | None) => None,
                (_, Some(other)) => {
                    return wire::status_response(wire::bad_request(&format!(
                        "resourceVersionMatch: Unsupported value: \"{other}\": supported values: \"Exact\", \"NotOlderThan\""
                    )));
                }
            };
            (exact, None)
        }
    };
    let page = cluster.store().page(
        &scope,
        revision,
        start.as_deref(),
        |object| selector.matches(scope.kind, object),
        limit,
    );
    let page = match page {
        Ok(page) => page,
        Err(expired) => {
            let body = if continue_token.is_some() {
                wire::status(
                    410,
                    "Expired",
                    "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
                    None,
                )
            } else {
                wire::expired(
                    expired.oldest_available,
                    resource_version.map_or("", String::as_str),
                )
            };
            return wire::status_response(body);
        }
    };
    let next = match page.items.last() {
        Some((last, _)) if page.remaining > 0 => {
            Some((wire::encode_continue(page.revision, last), page.remaining))
        }
        _ => None,
    };
    let snapshot_revision = page.revision;
    let items: Vec<Arc<Value>> = page.items.into_iter().map(|(_, item)| item).collect();
    let accept = request
        .headers()
        .get("accept")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    if wire::wants_table(accept) {
        let mut table = table::table(scope.kind, snapshot_revision, &items);
        if let Some((token, remaining)) = next {
            table["metadata"]["continue"] = json!(token);
            table["metadata"]["remainingItemCount"] = json!(remaining);
        }
        return HttpResponse::Ok()
            .content_type("application/json;as=Table;v=v1;g=meta.k8s.io")
            .body(table.to_string());
    }
    let (token, remaining) = next.map_or((None, None), |(token, remaining)| {
        (Some(token), Some(remaining))
    });
    HttpResponse::Ok()
        .content_type("application/json")
        .body(wire::list(scope.kind, snapshot_revision, token, remaining, &items).to_string())
}

fn watch_response(
    cluster: &Cluster,
    scope: Scope,
    selector: &Selector,
    query: &Query,
) -> HttpResponse {
    let bookmarks = is_true(query, "allowWatchBookmarks");
    let initial_events = is_true(query, "sendInitialEvents");
    let resource_version = query.get("resourceVersion").filter(|v| !v.is_empty());
    let timeout = match query.get("timeoutSeconds").map(|t| t.parse::<u64>()) {
        None => cluster.options.default_watch_timeout,
        Some(Ok(seconds)) => Duration::from_secs(seconds),
        Some(Err(_)) => {
            return wire::status_response(wire::bad_request(
                "timeoutSeconds: Invalid value: must be a non-negative integer",
            ));
        }
    };
    if initial_events
        && (!bookmarks
            || query.get("resourceVersionMatch").map(String::as_str) != Some("NotOlderThan"))
    {
        return wire::status_response(wire::bad_request(
            "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan and allowWatchBookmarks is true",
        ));
    }
    let kind = scope.kind;
    let (mut first_lines, replay, receiver) = {
        let mut store = cluster.store();
        // Unset or "0": synthetic ADDED events for the current state, then changes from now.
        let from = match resource_version.map(String::as_str) {
            None | Some("0") => None,
            Some(version) => match version.parse::<u64>() {
                Ok(version) => Some(version),
                Err(_) => {
                    return wire::status_response(wire::bad_request(&format!(
                        "resourceVersion: Invalid value: \"{version}\": must be an integer"
                    )));
                }
            },
        };
        let mut lines = Vec::new();
        let start = match from {
            Some(version) => version,
            None => {
                let snapshot = store
                    .snapshot(&scope, None)
                    .expect("the current revision is never compacted");
                for (_, object) in &snapshot.items {
                    if !selector.matches(kind, object) {
                        continue;
                    }
                    lines.push(wire::watch_event(
                        "ADDED",
                        &wire::with_type_meta(kind, object),
                    ));
                }
                if initial_events {
                    lines.push(wire::watch_event(
                        "BOOKMARK",
                        &wire::bookmark(kind, snapshot.revision, true),
                    ));
                }
                snapshot.revision
            }
        };
        match store.watch(scope, start) {
            Ok((replay, receiver)) => (lines, replay, Some(receiver)),
            Err(expired) => {
                // As the API server: 200, then an ERROR event carrying the 410 Status.
                let status = wire::expired(expired.oldest_available, &start.to_string());
                lines.push(wire::watch_event("ERROR", &status));
                (lines, Vec::new(), None)
            }
        }
    };
    first_lines.extend(
        replay
            .iter()
            .filter_map(|change| selected_event(kind, change, selector)),
    );
    let selector = selector.clone();
    let (sender, body) = mpsc::channel::<Result<Bytes, std::io::Error>>(64);
    let bookmark_interval = cluster.options.bookmark_interval;
    let cluster = cluster.clone();
    actix_web::rt::spawn(async move {
        for line in first_lines {
            if sender.send(Ok(Bytes::from(line))).await.is_err() {
                return;
            }
        }
        let Some(mut receiver) = receiver else { return };
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let mut ticks = tokio::time::interval_at(
            tokio::time::Instant::now() + bookmark_interval,
            bookmark_interval,
        );
        loop {
            let line = tokio::select! {
                _ = &mut deadline => return,
                _ = sender.closed() => return,
                _ = ticks.tick(), if bookmarks => {
                    wire::watch_event("BOOKMARK", &wire::bookmark(kind, cluster.revision(), false))
                }
                message = receiver.recv() => match message {
                    Some(WatchMessage::Change(change)) => {
                        let Some(line) = selected_event(kind, &change, &selector) else { continue };
                        line
                    }
                    Some(WatchMessage::Expired) => {
                        let status = wire::expired(cluster.revision(), "");
                        let _ = sender.send(Ok(Bytes::from(wire::watch_event("ERROR", &status)))).await;
                        return;
                    }
                    None => return,
                },
            };
            if sender.send(Ok(Bytes::from(line))).await.is_err() {
                return;
            }
        }
    });
    HttpResponse::Ok()
        .content_type("application/json")
        .streaming(ReceiverStream::new(body))
}
