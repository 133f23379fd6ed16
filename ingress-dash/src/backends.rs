//! Backend state: which Services exist and how many of their endpoints are ready, from the
//! Services and EndpointSlices a watcher sees, and each record's [`BackendStatus`]es.
//!
//! Endpoints are counted from the EndpointSlices labelled `kubernetes.io/service-name`; an
//! endpoint whose `conditions.ready` is absent is ready, as the API documents. A dual-stack
//! Service has a slice set per address family holding the same endpoints: the family with the
//! most endpoints is counted, not their sum.

use std::collections::{BTreeSet, HashMap};

use k8s_openapi::api::core::v1::Service;
use k8s_openapi::api::discovery::v1::EndpointSlice;

use crate::records::{Backend, BackendState, BackendStatus, IngressRecord, ServicePort};

/// The label that ties an EndpointSlice to its Service.
const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";

/// A Service by namespace and name.
pub type ServiceKey = (String, String);

/// Whether a kind's objects are known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    /// Not watched (switched off by configuration, or the CRD is not installed).
    Off,
    /// Watched, not listed yet.
    Pending,
    Ready,
    /// Cannot be read now: why, in words.
    Failed(String),
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    ready: u32,
    total: u32,
}

#[derive(Debug, Clone)]
struct Slice {
    service: ServiceKey,
    address_type: String,
    counts: Counts,
}

/// The Services and EndpointSlices of one watched scope.
#[derive(Debug, Default)]
pub struct BackendIndex {
    services: BTreeSet<ServiceKey>,
    /// By (namespace, slice name).
    slices: HashMap<(String, String), Slice>,
    /// The slices of each Service.
    per_service: HashMap<ServiceKey, BTreeSet<(String, String)>>,
}

fn key(namespace: &Option<String>, name: &Option<String>) -> ServiceKey {
    (
        namespace.clone().unwrap_or_default(),
        name.clone().unwrap_or_default(),
    )
}

fn slice_of(slice: &EndpointSlice) -> Option<Slice> {
    let service = slice.metadata.labels.as_ref()?.get(SERVICE_NAME_LABEL)?;
    let mut counts = Counts::default();
    for endpoint in &slice.endpoints {
        counts.total += 1;
        let ready = endpoint
            .conditions
            .as_ref()
            .and_then(|conditions| conditions.ready)
            .unwrap_or(true);
        if ready {
            counts.ready += 1;
        }
    }
    Some(Slice {
        service: (
            slice.metadata.namespace.clone().unwrap_or_default(),
            service.clone(),
        ),
        address_type: slice.address_type.clone(),
        counts,
    })
}

impl BackendIndex {
    /// Replaces every Service; the Services whose existence changed.
    pub fn replace_services(&mut self, services: &[&Service]) -> BTreeSet<ServiceKey> {
        let new: BTreeSet<ServiceKey> = services
            .iter()
            .map(|service| key(&service.metadata.namespace, &service.metadata.name))
            .collect();
        let changed = self.services.symmetric_difference(&new).cloned().collect();
        self.services = new;
        changed
    }

    /// A Service added or changed; the Services affected.
    pub fn apply_service(&mut self, service: &Service) -> BTreeSet<ServiceKey> {
        let key = key(&service.metadata.namespace, &service.metadata.name);
        if self.services.insert(key.clone()) {
            BTreeSet::from([key])
        } else {
            BTreeSet::new()
        }
    }

    pub fn delete_service(&mut self, service: &Service) -> BTreeSet<ServiceKey> {
        let key = key(&service.metadata.namespace, &service.metadata.name);
        if self.services.remove(&key) {
            BTreeSet::from([key])
        } else {
            BTreeSet::new()
        }
    }

    /// Replaces every EndpointSlice; the Services whose counts may have changed.
    pub fn replace_slices(&mut self, slices: &[&EndpointSlice]) -> BTreeSet<ServiceKey> {
        let mut affected: BTreeSet<ServiceKey> = self.per_service.keys().cloned().collect();
        self.slices.clear();
        self.per_service.clear();
        for slice in slices {
            affected.extend(self.apply_slice(slice));
        }
        affected
    }

    pub fn apply_slice(&mut self, slice: &EndpointSlice) -> BTreeSet<ServiceKey> {
        let name = key(&slice.metadata.namespace, &slice.metadata.name);
        let mut affected: BTreeSet<ServiceKey> = self.remove_slice(&name).into_iter().collect();
        if let Some(entry) = slice_of(slice) {
            affected.insert(entry.service.clone());
            self.per_service
                .entry(entry.service.clone())
                .or_default()
                .insert(name.clone());
            self.slices.insert(name, entry);
        }
        affected
    }

    pub fn delete_slice(&mut self, slice: &EndpointSlice) -> BTreeSet<ServiceKey> {
        let name = key(&slice.metadata.namespace, &slice.metadata.name);
        self.remove_slice(&name).into_iter().collect()
    }

    /// Removes a slice; the Service it counted for.
    fn remove_slice(&mut self, name: &(String, String)) -> Option<ServiceKey> {
        let old = self.slices.remove(name)?;
        if let Some(names) = self.per_service.get_mut(&old.service) {
            names.remove(name);
            if names.is_empty() {
                self.per_service.remove(&old.service);
            }
        }
        Some(old.service)
    }

    /// Ready and total endpoints of `service`: of the address family with the most.
    fn counts(&self, service: &ServiceKey) -> Counts {
        let mut families: HashMap<&str, Counts> = HashMap::new();
        let names = self.per_service.get(service).into_iter().flatten();
        for slice in names.filter_map(|name| self.slices.get(name)) {
            let family = families.entry(slice.address_type.as_str()).or_default();
            family.ready += slice.counts.ready;
            family.total += slice.counts.total;
        }
        families
            .into_values()
            .max_by_key(|counts| (counts.total, counts.ready))
            .unwrap_or_default()
    }

    /// The status of one backend, given whether Services and EndpointSlices can be read.
    pub fn status(
        &self,
        reference: &BackendRef,
        services: &Availability,
        slices: &Availability,
    ) -> BackendStatus {
        let (namespace, service, port) = reference;
        let mut status = BackendStatus {
            service: service.clone(),
            namespace: namespace.clone(),
            port: port.clone(),
            state: BackendState::Unknown,
            ready_endpoints: 0,
            total_endpoints: 0,
            error: None,
        };
        for availability in [services, slices] {
            match availability {
                Availability::Ready => {}
                Availability::Failed(error) => {
                    status.error = Some(error.clone());
                    return status;
                }
                Availability::Pending => {
                    status.error =
                        Some("Services and EndpointSlices have not been read yet.".to_owned());
                    return status;
                }
                Availability::Off => return status,
            }
        }
        let key = (namespace.clone(), service.clone());
        if !self.services.contains(&key) {
            status.state = BackendState::MissingService;
            return status;
        }
        let counts = self.counts(&key);
        status.ready_endpoints = counts.ready;
        status.total_endpoints = counts.total;
        status.state = if counts.ready == 0 {
            BackendState::NoReadyEndpoints
        } else if counts.ready < counts.total {
            BackendState::Degraded
        } else {
            BackendState::Ready
        };
        status
    }
}

/// One backend a record references: (service namespace, service name, port).
pub type BackendRef = (String, String, Option<ServicePort>);

/// The distinct backend Services of a record, in the order they first appear: an ingress's
/// rules and default backend (resource backends are no Service), an HTTPRoute's Service
/// backendRefs.
pub fn references(record: &IngressRecord) -> Vec<BackendRef> {
    let mut references: Vec<BackendRef> = Vec::new();
    let mut add = |reference: BackendRef| {
        if !references.contains(&reference) {
            references.push(reference);
        }
    };
    if let Some(route) = &record.route {
        for backend in route.rules.iter().flat_map(|rule| &rule.backend_refs) {
            if backend.kind == "Service" {
                add((
                    backend.namespace.clone(),
                    backend.name.clone(),
                    backend.port.map(ServicePort::Number),
                ));
            }
        }
        return references;
    }
    let paths = record.rules.iter().flat_map(|rule| &rule.paths);
    let backends = paths
        .map(|path| &path.backend)
        .chain(record.default_backend.as_ref());
    for backend in backends {
        if let Backend::Service { name, port } = backend {
            add((record.namespace.clone(), name.clone(), Some(port.clone())));
        }
    }
    references
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn slice(name: &str, service: &str, family: &str, ready: &[Option<bool>]) -> EndpointSlice {
        let endpoints: Vec<_> = ready
            .iter()
            .map(|ready| match ready {
                Some(ready) => json!({"addresses": ["10.0.0.1"], "conditions": {"ready": ready}}),
                None => json!({"addresses": ["10.0.0.1"]}),
            })
            .collect();
        serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "shop", "labels": {SERVICE_NAME_LABEL: service}},
            "addressType": family,
            "endpoints": endpoints,
        }))
        .unwrap()
    }

    fn service(name: &str) -> Service {
        serde_json::from_value(json!({"metadata": {"name": name, "namespace": "shop"}})).unwrap()
    }

    fn state(index: &BackendIndex, name: &str) -> (BackendState, u32, u32) {
        let status = index.status(
            &("shop".into(), name.into(), None),
            &Availability::Ready,
            &Availability::Ready,
        );
        (status.state, status.ready_endpoints, status.total_endpoints)
    }

    #[test]
    fn states_follow_the_ready_endpoints() {
        let mut index = BackendIndex::default();
        index.replace_services(&[&service("web"), &service("idle")]);
        let slices = [
            slice("web-1", "web", "IPv4", &[Some(true), None]),
            slice("web-2", "web", "IPv4", &[Some(false)]),
            // The same endpoints in the other family are not counted twice.
            slice("web-3", "web", "IPv6", &[Some(true), Some(true)]),
            slice("idle-1", "idle", "IPv4", &[Some(false)]),
        ];
        index.replace_slices(&slices.iter().collect::<Vec<_>>());
        assert_eq!(state(&index, "web"), (BackendState::Degraded, 2, 3));
        assert_eq!(
            state(&index, "idle"),
            (BackendState::NoReadyEndpoints, 0, 1)
        );
        assert_eq!(state(&index, "gone").0, BackendState::MissingService);
        let affected = index.apply_slice(&slice("idle-1", "idle", "IPv4", &[Some(true)]));
        assert_eq!(affected, BTreeSet::from([("shop".into(), "idle".into())]));
        assert_eq!(state(&index, "idle"), (BackendState::Ready, 1, 1));
        index.delete_slice(&slice("idle-1", "idle", "IPv4", &[]));
        assert_eq!(
            state(&index, "idle"),
            (BackendState::NoReadyEndpoints, 0, 0)
        );
    }

    #[test]
    fn unreadable_kinds_make_the_state_unknown_with_the_reason() {
        let index = BackendIndex::default();
        let status = index.status(
            &("shop".into(), "web".into(), Some(ServicePort::Number(80))),
            &Availability::Failed("forbidden".into()),
            &Availability::Ready,
        );
        assert_eq!(status.state, BackendState::Unknown);
        assert_eq!(status.error.as_deref(), Some("forbidden"));
    }
}
