//! What the cluster serves and to whom: which CRDs are installed (a custom resource whose CRD is
//! absent answers 404 and is missing from discovery, as on a cluster without it) and which kinds
//! RBAC denies (403), cluster-wide or in one namespace.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::kind::{Crd, Kind};

#[derive(Debug)]
pub(crate) struct Access {
    forbidden: Mutex<HashSet<(Kind, Option<String>)>>,
    gateway_api: AtomicBool,
    cert_manager: AtomicBool,
}

impl Access {
    pub fn new(gateway_api: bool, cert_manager: bool) -> Self {
        Self {
            forbidden: Mutex::default(),
            gateway_api: AtomicBool::new(gateway_api),
            cert_manager: AtomicBool::new(cert_manager),
        }
    }

    fn flag(&self, crd: Crd) -> &AtomicBool {
        match crd {
            Crd::GatewayApi => &self.gateway_api,
            Crd::CertManager => &self.cert_manager,
        }
    }

    pub fn set_installed(&self, crd: Crd, installed: bool) {
        self.flag(crd).store(installed, Ordering::SeqCst);
    }

    pub fn is_installed(&self, crd: Crd) -> bool {
        self.flag(crd).load(Ordering::SeqCst)
    }

    /// Whether the API serves `kind` now (built-in kinds always).
    pub fn serves(&self, kind: Kind) -> bool {
        kind.crd().is_none_or(|crd| self.is_installed(crd))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<(Kind, Option<String>)>> {
        self.forbidden
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn forbid(&self, kind: Kind, namespace: Option<&str>) {
        self.lock().insert((kind, namespace.map(str::to_owned)));
    }

    pub fn allow(&self, kind: Kind, namespace: Option<&str>) {
        self.lock().remove(&(kind, namespace.map(str::to_owned)));
    }

    /// Whether RBAC denies `kind` for a request in `namespace` (`None`: all namespaces, or a
    /// cluster-scoped kind). A kind forbidden everywhere is denied in every namespace.
    pub fn is_forbidden(&self, kind: Kind, namespace: Option<&str>) -> bool {
        let forbidden = self.lock();
        forbidden.contains(&(kind, None))
            || namespace
                .is_some_and(|namespace| forbidden.contains(&(kind, Some(namespace.to_owned()))))
    }
}
