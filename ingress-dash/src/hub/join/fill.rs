//! A record joined with what is behind it: its backends' state from the Services and
//! EndpointSlices, its TLS entries' certificates from the Secrets or cert-manager Certificates.

use super::Joiner;
use crate::kube::watched_kinds::WatchedKind;
use crate::records::backends::{self, Availability};
use crate::records::{BackendState, IngressRecord};

impl Joiner {
    /// Fills `record`'s backends and certificates from what is known now.
    pub fn join(&self, mut record: IngressRecord) -> IngressRecord {
        let services = self.availability(WatchedKind::Services);
        let slices = self.availability(WatchedKind::EndpointSlices);
        record.backends = if *services == Availability::Off {
            Vec::new()
        } else {
            backends::references(&record)
                .iter()
                .map(|reference| {
                    let mut status = self.backends.status(reference, services, slices);
                    // A Service of another namespace that this scope knows nothing of (an
                    // HTTPRoute's cross-namespace backendRef, namespace not watched here):
                    // not known to be missing.
                    let namespace = reference.0.as_str();
                    if status.state == BackendState::MissingService
                        && namespace != record.namespace
                        && !self.namespaces.contains(namespace)
                        && !self.backends.holds_namespace(namespace)
                    {
                        status.state = BackendState::Unknown;
                        status.error = Some(format!(
                            "The Services of namespace {namespace} are not watched with this one."
                        ));
                    }
                    status
                })
                .collect()
        };
        if let Some(route) = record.route.as_mut() {
            crate::records::route_diagnosis::set_missing_services(
                &mut route.diagnosis,
                &record.backends,
            );
        }
        let secrets = self.availability(WatchedKind::Secrets);
        let managed = self.availability(WatchedKind::Certificates);
        // Rule hosts no TLS entry lists are served over HTTPS with whichever certificate
        // answers: every entry's certificate is expected to cover them too.
        let rule_hosts: Vec<String> = record
            .hosts
            .iter()
            .filter(|host| !record.tls.iter().any(|entry| entry.hosts.contains(host)))
            .cloned()
            .collect();
        record.certificates = record
            .tls
            .iter()
            .filter_map(|entry| {
                let secret = entry.secret_name.as_deref()?;
                Some(self.certificates.status(
                    &record.namespace,
                    entry,
                    secret,
                    &rule_hosts,
                    secrets,
                    managed,
                ))
            })
            .collect();
        record
    }
}
