//! Managing a cluster, not only looking at it: one module per capability, each with its routes
//! under `/api/clusters/{cluster_id}`, its thin handlers and the plain types that build the
//! cluster calls and read the answers (tests call those directly). Every route here is inside
//! the cluster scope, so the access guard authorises it by the role table in
//! `access::action::view_needs` and audits every call above viewer.

pub(crate) mod aliases;
pub(crate) mod analysis;
pub(crate) mod cluster_security;
pub(crate) mod compare;
pub(crate) mod data_streams;
pub(crate) mod indices;
pub(crate) mod names;
pub(crate) mod nodes;
pub(crate) mod operations;
pub(crate) mod recovery;
pub(crate) mod settings;
pub(crate) mod shards;
pub(crate) mod snapshots;
pub(crate) mod tasks;
pub(crate) mod templates;

use actix_web::web;

/// Adds every management route to the cluster scope (`scope.configure(manage::routes)`).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    indices::routes(config);
    operations::routes(config);
    aliases::routes(config);
    data_streams::routes(config);
    analysis::routes(config);
    templates::routes(config);
    shards::routes(config);
    recovery::routes(config);
    nodes::routes(config);
    tasks::routes(config);
    snapshots::routes(config);
    settings::routes(config);
    compare::routes(config);
    cluster_security::routes(config);
}

/// Every management wire type, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) fn wire_declarations() -> Vec<test_support::wire_types::Declaration> {
    [
        indices::WIRE,
        operations::WIRE,
        aliases::WIRE,
        data_streams::WIRE,
        analysis::WIRE,
        templates::WIRE,
        shards::WIRE,
        recovery::WIRE,
        nodes::WIRE,
        tasks::WIRE,
        snapshots::WIRE,
        settings::WIRE,
        compare::WIRE,
        cluster_security::WIRE,
    ]
    .concat()
}
