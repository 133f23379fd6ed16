//! `GET /api/hosts?namespaces=…&search=…&flagged=true`: the Hosts view of the records the
//! caller may see (the same selection, access rules and watchers as `GET /api/ingresses`),
//! computed from the hub's records on each request and bounded (`hosts::MAX_HOSTS`).

use std::collections::HashMap;

use actix_web::http::header::{self, ContentType};
use actix_web::{HttpResponse, web};

use crate::access::Viewer;
use crate::error::Error;
use crate::hosts::HostQuery;
use crate::hosts::listeners::{self, KnownGateways};
use crate::http::state::AppState;
use crate::kube::kind_types::Gateway;
use crate::kube::object_reads;
use crate::records::IngressRecord;

fn flagged(value: Option<&str>) -> Result<bool, Error> {
    match value {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(other) => Err(Error::InvalidFlag(other.chars().take(64).collect())),
    }
}

/// `GET /api/hosts`.
pub(crate) async fn report(
    state: web::Data<AppState>,
    query: web::Query<HashMap<String, String>>,
    viewer: web::ReqData<Viewer>,
) -> Result<HttpResponse, Error> {
    let host_query = HostQuery {
        search: query
            .get("search")
            .map(|term| term.trim().to_lowercase())
            .filter(|term| !term.is_empty()),
        flagged_only: flagged(query.get("flagged").map(String::as_str))?,
    };
    let selection = super::selection(&state, &query, &viewer).await?;
    // Every record of the selection: a conflict with a record the search leaves out is one.
    let snapshot = state.snapshot(&selection, None).await?;
    // Tens of thousands of records are unpacked and regrouped: off the connection's thread.
    let mut report = tokio::task::spawn_blocking(move || {
        // The stored JSON is the service's own serialisation of a record.
        let read = |stored: &std::sync::Arc<crate::records::StoredRecord>| {
            serde_json::from_str::<IngressRecord>(&stored.json()).ok()
        };
        crate::hosts::report(&snapshot.items, read, &host_query, snapshot.errors)
    })
    .await
    .map_err(Error::SnapshotEncoding)?;
    let gateways = read_gateways(&state, &viewer, listeners::gateway_namespaces(&report)).await;
    listeners::attach(&mut report, &gateways);
    let body = tokio::task::spawn_blocking(move || {
        let body = serde_json::to_vec(&report).expect("a report serialises");
        drop(report);
        // The regrouping's temporaries are gone: their pages go back to the system.
        crate::alloc::give_back_memory();
        body
    })
    .await
    .map_err(Error::SnapshotEncoding)?;
    Ok(HttpResponse::Ok()
        .content_type(ContentType::json())
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(body))
}

/// Gateway namespaces read per answer at most.
const MAX_GATEWAY_NAMESPACES: usize = 16;

/// The Gateways of `namespaces` (those the caller may see and the dashboard watches, at most
/// [`MAX_GATEWAY_NAMESPACES`] of them, read at once), or why a namespace's were not read,
/// through the retries and breaker. A namespace the caller may not see does not use up the
/// budget. A Gateway that does not decode (hostile input) is left out.
async fn read_gateways(
    state: &AppState,
    viewer: &Viewer,
    namespaces: std::collections::BTreeSet<String>,
) -> KnownGateways {
    let mut known = KnownGateways::default();
    let mut readable = Vec::new();
    for namespace in namespaces {
        if let Some(reason) = super::objects::unreadable_namespace(state, viewer, &namespace) {
            known.namespaces.insert(namespace, Err(reason.to_owned()));
        } else if readable.len() >= MAX_GATEWAY_NAMESPACES {
            let reason = "more Gateway namespaces than are read at once".to_owned();
            known.namespaces.insert(namespace, Err(reason));
        } else {
            readable.push(namespace);
        }
    }
    let api = state.api.as_ref();
    let reads = futures_util::future::join_all(readable.iter().map(|namespace| {
        (state.resilience).call("list_gateways", move || {
            object_reads::list_gateways(api, namespace)
        })
    }))
    .await;
    for (namespace, read) in readable.into_iter().zip(reads) {
        let read = read
            .map(|items| {
                items
                    .into_iter()
                    .filter_map(|item| serde_json::from_value::<Gateway>(item).ok())
                    .collect()
            })
            .map_err(|error| {
                super::objects::list_failure(
                    &error,
                    "gateways.gateway.networking.k8s.io",
                    "gateway.networking.k8s.io/v1 gateways",
                )
            });
        known.namespaces.insert(namespace, read);
    }
    known
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flagged_is_true_or_false() {
        assert!(!flagged(None).unwrap());
        assert!(flagged(Some("true")).unwrap());
        assert!(!flagged(Some("false")).unwrap());
        let Err(Error::InvalidFlag(echo)) = flagged(Some(&"y".repeat(500))) else {
            panic!()
        };
        assert_eq!(echo.len(), 64);
    }
}
