//! Management: aliases (issue 19). Routes under `/api/clusters/{cluster_id}`; the scope's guard
//! authorises and audits every call (`access::action::view_needs`).

use actix_web::web;

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(_config: &mut web::ServiceConfig) {}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = &[];
