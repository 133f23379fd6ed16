//! The web app's TypeScript wire types (`web/src/api/wire.ts`) are generated from the types the
//! routes answer with; this test fails when the committed file is stale (`make wire-types`).

use ts_rs::TS;

use crate::health::{Checks, HealthBody, KubernetesCheck, Reached};
use crate::hub::{NamespaceError, RecoveredNotice, ResyncNotice, Snapshot};
use crate::namespaces::NamespaceList;
use crate::records::{
    Backend, IngressRecord, Link, PathRule, ResourceBackend, Rule, ServicePort, Tls,
};

#[test]
fn wire_types() {
    test_support::wire_types::check_web_app(
        env!("CARGO_MANIFEST_DIR"),
        "ingress-dash",
        &[
            IngressRecord::decl,
            Rule::decl,
            PathRule::decl,
            Backend::decl,
            ServicePort::decl,
            ResourceBackend::decl,
            Tls::decl,
            Link::decl,
            NamespaceError::decl,
            Snapshot::decl,
            RecoveredNotice::decl,
            ResyncNotice::decl,
            NamespaceList::decl,
            HealthBody::decl,
            Checks::decl,
            KubernetesCheck::decl,
            Reached::decl,
        ],
    );
}
