//! `GET /api/objects/ingresses/{namespace}/{name}/annotations`: the annotation explainer of the
//! details panel. The live Ingress is read as the YAML view reads it (same checks, access rules,
//! retries and breaker); each annotation is explained for the controller of the Ingress's
//! class ([`crate::migration::explain`]), its value checked and shown only as the redaction
//! rules allow.

use std::collections::BTreeMap;

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use serde_json::Value;

use super::{Target, check_access, get_object};
use crate::access::Viewer;
use crate::access::redaction::LAST_APPLIED;
use crate::error::Error;
use crate::http::migration::class_index;
use crate::http::state::AppState;
use crate::migration::catalogue::catalogue;
use crate::migration::explain::{IngressAnnotations, explain};

const LEGACY_CLASS: &str = "kubernetes.io/ingress.class";

/// The handler.
pub(crate) async fn object_annotations(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    viewer: web::ReqData<Viewer>,
) -> Result<HttpResponse, Error> {
    let (namespace, name) = path.into_inner();
    let target = Target::parse("ingresses", &namespace, &name)?;
    check_access(&state, &target, &viewer)?;
    let object = get_object(&state, &target).await?;
    let annotations = annotations_of(&object);
    let class = object["spec"]["ingressClassName"]
        .as_str()
        .or_else(|| annotations.get(LEGACY_CLASS).map(String::as_str))
        .map(str::to_owned);
    let catalogue = catalogue();
    let controller = class_index(&state)
        .await
        .resolve(class.as_deref(), catalogue);
    let annotations = explain(&annotations, &controller, catalogue, &state.redaction);
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(IngressAnnotations {
            namespace,
            name,
            ingress_class_name: class,
            controller: controller.id,
            controller_name: controller.name,
            controller_note: controller.note,
            catalogue_version: catalogue.version.clone(),
            annotations,
        }))
}

/// `metadata.annotations` (string values only, as the API server stores them), without the
/// last-applied configuration (a copy of the object).
fn annotations_of(object: &Value) -> BTreeMap<String, String> {
    object["metadata"]["annotations"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| key.as_str() != LAST_APPLIED)
        .filter_map(|(key, value)| Some((key.clone(), value.as_str()?.to_owned())))
        .collect()
}
