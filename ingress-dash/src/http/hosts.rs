//! `GET /api/hosts?namespaces=…&search=…&flagged=true`: the Hosts view of the records the
//! caller may see (the same selection, access rules and watchers as `GET /api/ingresses`),
//! computed from the hub's records on each request and bounded (`hosts::MAX_HOSTS`).

use std::collections::HashMap;

use actix_web::http::header::{self, ContentType};
use actix_web::{HttpResponse, web};

use crate::access::Viewer;
use crate::error::Error;
use crate::hosts::HostQuery;
use crate::hosts::listeners::KnownGateways;
use crate::http::objects::namespace_reads::{self, NamespaceReads, Unread};
use crate::http::state::AppState;
use crate::kube::object_reads;
use crate::records::IngressRecord;

fn flagged(value: Option<&str>) -> Result<bool, Error> {
    match value {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(other) => Err(Error::InvalidFlag(other.chars().take(64).collect())),
    }
}

/// A record as the hub stored it (the service's own serialisation of a record).
fn read_stored(stored: &std::sync::Arc<crate::records::StoredRecord>) -> Option<IngressRecord> {
    serde_json::from_str::<IngressRecord>(&stored.json()).ok()
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
    // First the scan, then the Gateways its routes name, then the flags, which count the
    // listeners' certificates (so the flags, the filter and the counts agree).
    let (snapshot, host_query, scanned) = tokio::task::spawn_blocking(move || {
        let scanned = crate::hosts::scan(&snapshot.items, read_stored, &host_query);
        (snapshot, host_query, scanned)
    })
    .await
    .map_err(Error::SnapshotEncoding)?;
    let gateways = read_gateways(&state, &viewer, scanned.gateway_namespaces()).await;
    let report = tokio::task::spawn_blocking(move || {
        crate::hosts::finish(
            scanned,
            &snapshot.items,
            read_stored,
            &host_query,
            &gateways,
            snapshot.errors,
        )
    })
    .await
    .map_err(Error::SnapshotEncoding)?;
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
/// [`MAX_GATEWAY_NAMESPACES`] of them, read at once, every page up to
/// [`object_reads::MAX_GATEWAYS`]), or why a namespace's were not read, through the retries and
/// breaker; none read when discovery found that the API server does not serve Gateways. A
/// namespace with more Gateways than that is marked not all read (no Gateway past them is said
/// missing). A Gateway that does not decode (hostile input) is kept by name with why.
async fn read_gateways(
    state: &AppState,
    viewer: &Viewer,
    namespaces: std::collections::BTreeSet<String>,
) -> KnownGateways {
    let mut known = KnownGateways::default();
    if state.hub.serves_gateways() == Some(false) {
        let reason = format!("the API server does not serve {GATEWAYS_SERVED}");
        for namespace in namespaces {
            known.insert(namespace, Err(reason.clone()));
        }
        return known;
    }
    let reads = NamespaceReads {
        call: "list_gateways",
        resource: "gateways.gateway.networking.k8s.io",
        served: GATEWAYS_SERVED,
        budget: MAX_GATEWAY_NAMESPACES,
    };
    let listed = namespace_reads::read(state, viewer, namespaces, reads, |api, namespace| {
        Box::pin(object_reads::list_gateways(api, namespace))
    })
    .await;
    for (namespace, listed) in listed {
        let read = match listed {
            Ok(list) => {
                if list.not_all_read {
                    known.not_all_read(&namespace);
                }
                Ok(known.decode(&namespace, list.items))
            }
            Err(Unread::NotShown(reason)) => Err(reason.to_owned()),
            Err(Unread::OverBudget) => {
                Err("more Gateway namespaces than are read at once".to_owned())
            }
            Err(Unread::ListFailed(why)) => Err(why),
        };
        known.insert(namespace, read);
    }
    known
}

/// Gateways as discovery serves them.
const GATEWAYS_SERVED: &str = "gateway.networking.k8s.io/v1 gateways";

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
