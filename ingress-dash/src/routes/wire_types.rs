//! The web app's TypeScript wire types (`web/src/api/wire.ts`) are generated from the types the
//! routes answer with; this test fails when the committed file is stale (`make wire-types`).

use ts_rs::{Config, TS};

use crate::health::{Checks, HealthBody, KubernetesCheck, Reached};
use crate::hub::{NamespaceError, RecoveredNotice, ResyncNotice, Snapshot};
use crate::namespaces::NamespaceList;
use crate::records::{
    Backend, IngressRecord, Link, PathRule, ResourceBackend, Rule, ServicePort, Tls,
};

#[test]
fn wire_types() {
    // JSON numbers: the health check's latency in milliseconds stays far below 2^53.
    let config = Config::new().with_large_int("number");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web/src/api/wire.ts");
    test_support::wire_types::check_generated(
        &path,
        "ingress-dash",
        &[
            shared_types::ErrorBody::decl(&config),
            shared_types::ErrorDetail::decl(&config),
            IngressRecord::decl(&config),
            Rule::decl(&config),
            PathRule::decl(&config),
            Backend::decl(&config),
            ServicePort::decl(&config),
            ResourceBackend::decl(&config),
            Tls::decl(&config),
            Link::decl(&config),
            NamespaceError::decl(&config),
            Snapshot::decl(&config),
            RecoveredNotice::decl(&config),
            ResyncNotice::decl(&config),
            NamespaceList::decl(&config),
            HealthBody::decl(&config),
            Checks::decl(&config),
            KubernetesCheck::decl(&config),
            Reached::decl(&config),
        ],
    );
}
