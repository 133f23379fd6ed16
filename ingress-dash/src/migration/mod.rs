//! Migration readiness and the annotation explainer (issue 36; ingress-nginx was retired in
//! March 2026). The catalogue of controller annotations (`data/annotations/*.json`, embedded),
//! the check of each value, the explanation of one Ingress's annotations for its class's
//! controller, and the inventory over the Ingresses a caller may see: plain types and
//! functions, called by `http::migration` and by the tests directly.

pub(crate) mod catalogue;
pub(crate) mod explain;
pub(crate) mod inventory;
pub(crate) mod values;
