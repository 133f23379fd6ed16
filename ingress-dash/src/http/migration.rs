//! `GET /api/migration?namespaces=…&format=json|csv`: the migration-readiness inventory of the
//! controller annotations on the Ingresses the caller may see (the same selection, access rules
//! and watchers as `GET /api/ingresses`; values redacted as there), as JSON or as a CSV
//! download. The IngressClasses say which controller each Ingress is for; when they cannot be
//! read the report says why and the rest is still answered.

use std::collections::HashMap;

use actix_web::http::header::{
    self, ContentDisposition, ContentType, DispositionParam, DispositionType,
};
use actix_web::{HttpResponse, web};

use crate::access::Viewer;
use crate::error::Error;
use crate::http::state::AppState;
use crate::kube::client::KubeError;
use crate::kube::ingress_classes;
use crate::kube::resilience::CallError;
use crate::migration::catalogue::catalogue;
use crate::migration::explain::{ClassIndex, explain};
use crate::migration::inventory::Inventory;
use crate::records::{IngressRecord, RecordKind};

/// The answer's form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Csv,
}

impl Format {
    fn parse(value: Option<&str>) -> Result<Self, Error> {
        match value {
            None | Some("json") => Ok(Self::Json),
            Some("csv") => Ok(Self::Csv),
            Some(other) => Err(Error::InvalidFormat(other.chars().take(64).collect())),
        }
    }
}

/// The CSV download's file name.
const CSV_FILE: &str = "ingress-migration.csv";

/// `GET /api/migration`.
pub(crate) async fn report(
    state: web::Data<AppState>,
    query: web::Query<HashMap<String, String>>,
    viewer: web::ReqData<Viewer>,
) -> Result<HttpResponse, Error> {
    let format = Format::parse(query.get("format").map(String::as_str))?;
    let selection = super::selection(&state, &query, &viewer).await?;
    let snapshot = state.snapshot(&selection, None).await?;
    let classes = class_index(&state).await;
    let redaction = state.redaction.clone();
    // Tens of thousands of records are unpacked, explained and written out: off the
    // connection's thread.
    let body = tokio::task::spawn_blocking(move || {
        let catalogue = catalogue();
        let mut inventory = Inventory::default();
        for stored in snapshot
            .items
            .iter()
            .filter(|r| r.kind == RecordKind::Ingress)
        {
            // The stored JSON is the service's own serialisation of a record.
            let Ok(record) = serde_json::from_str::<IngressRecord>(&stored.json()) else {
                continue;
            };
            let class = record.ingress_class_name.as_deref();
            let controller = classes.resolve(class, catalogue);
            let explained = explain(&record.annotations, &controller, catalogue, &redaction);
            inventory.add(
                &record.namespace,
                &record.name,
                class,
                &controller,
                explained,
            );
        }
        let report = inventory.finish(&catalogue.version, classes.unreadable, snapshot.errors);
        match format {
            Format::Json => serde_json::to_vec(&report).expect("a report serialises"),
            Format::Csv => report.to_csv().into_bytes(),
        }
    })
    .await
    .map_err(Error::SnapshotEncoding)?;
    let mut response = HttpResponse::Ok();
    response.insert_header((header::CACHE_CONTROL, "no-store"));
    Ok(match format {
        Format::Json => response.content_type(ContentType::json()).body(body),
        Format::Csv => response
            .content_type("text/csv; charset=utf-8")
            .insert_header(ContentDisposition {
                disposition: DispositionType::Attachment,
                parameters: vec![DispositionParam::Filename(CSV_FILE.to_owned())],
            })
            .body(body),
    })
}

/// The cluster's IngressClasses under the retry policy and the breaker; a failure is said in
/// [`ClassIndex::unreadable`], not answered.
pub(crate) async fn class_index(state: &AppState) -> ClassIndex {
    let api = state.api.as_ref();
    let listed = (state.resilience)
        .call("list_ingress_classes", || {
            ingress_classes::list_ingress_classes(api)
        })
        .await;
    match listed {
        Ok(classes) => ClassIndex {
            default: classes
                .iter()
                .find(|class| class.is_default)
                .map(|class| class.name.clone()),
            controllers: classes
                .into_iter()
                .map(|class| (class.name, class.controller))
                .collect(),
            unreadable: None,
        },
        Err(error) => {
            tracing::warn!(%error, "the IngressClasses could not be read");
            let reason = match &error {
                CallError::Kube(KubeError::Api { status: 403, .. }) => {
                    "the service account may not list ingressclasses.networking.k8s.io: grant \
                     list on them with a ClusterRole."
                        .to_owned()
                }
                CallError::Kube(KubeError::Api { status: 404, .. }) => {
                    "this API server does not serve ingressclasses.networking.k8s.io/v1.".to_owned()
                }
                other => other.to_string(),
            };
            ClassIndex {
                unreadable: Some(reason),
                ..ClassIndex::default()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_is_json_or_csv() {
        assert_eq!(Format::parse(None).unwrap(), Format::Json);
        assert_eq!(Format::parse(Some("csv")).unwrap(), Format::Csv);
        let Err(Error::InvalidFormat(echo)) = Format::parse(Some(&"x".repeat(1000))) else {
            panic!()
        };
        assert_eq!(echo.len(), 64);
        assert!(Format::parse(Some("CSV")).is_err());
    }
}
