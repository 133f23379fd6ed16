//! The web app's TypeScript wire types (`web/src/api/wire.ts`) are generated from the types the
//! routes answer with; this test fails when the committed file is stale (`make wire-types`).

use ts_rs::TS;

use super::NamespaceList;
use super::objects::diagnosis::{NotRead, RouteDiagnosis};
use crate::access::WhoAmI;
use crate::hosts::listeners::{AttachedListener, Attachment};
use crate::hosts::{
    Conflict, Duplicate, HostCounts, HostEntry, HostPath, HostTls, HostsReport, PathBackend,
    ServingObject,
};
use crate::http::health::{Checks, HealthBody, KubernetesCheck, Reached};
use crate::hub::{NamespaceError, Notice, RecoveredNotice, ResyncNotice, Snapshot};
use crate::migration::catalogue::Support;
use crate::migration::explain::{
    AnnotationExplanation, AnnotationWarning, IngressAnnotations, Validity, WarningCode,
};
use crate::migration::inventory::{
    AnnotationUsage, AnnotationUse, IngressUsage, MigrationCounts, MigrationReport, NamespaceCounts,
};
use crate::records::route_diagnosis::{FindingCode, FindingSeverity};
use crate::records::{
    Backend, BackendState, BackendStatus, CertificateSource, CertificateStatus, IngressRecord,
    Link, ParentRef, PathRule, RecordKind, ResourceBackend, RouteBackendRef, RouteCondition,
    RouteDetail, RouteFinding, RouteRule, Rule, ServicePort, Tls,
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
            RecordKind::decl,
            BackendStatus::decl,
            BackendState::decl,
            CertificateStatus::decl,
            CertificateSource::decl,
            RouteDetail::decl,
            ParentRef::decl,
            RouteCondition::decl,
            RouteRule::decl,
            RouteBackendRef::decl,
            RouteFinding::decl,
            FindingSeverity::decl,
            FindingCode::decl,
            RouteDiagnosis::decl,
            NotRead::decl,
            NamespaceError::decl,
            Snapshot::decl,
            Notice::decl,
            RecoveredNotice::decl,
            ResyncNotice::decl,
            NamespaceList::decl,
            WhoAmI::decl,
            HealthBody::decl,
            Checks::decl,
            KubernetesCheck::decl,
            Reached::decl,
            IngressAnnotations::decl,
            AnnotationExplanation::decl,
            AnnotationWarning::decl,
            WarningCode::decl,
            Validity::decl,
            Support::decl,
            MigrationReport::decl,
            MigrationCounts::decl,
            NamespaceCounts::decl,
            AnnotationUsage::decl,
            AnnotationUse::decl,
            IngressUsage::decl,
            HostsReport::decl,
            HostCounts::decl,
            HostEntry::decl,
            ServingObject::decl,
            Attachment::decl,
            AttachedListener::decl,
            HostPath::decl,
            PathBackend::decl,
            HostTls::decl,
            Conflict::decl,
            Duplicate::decl,
        ],
    );
}
