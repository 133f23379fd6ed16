//! Backend state: which Services exist and how many of their endpoints are ready, from the
//! Services and EndpointSlices a watcher sees, and each record's [`BackendStatus`]es.
//!
//! Endpoints are counted from the EndpointSlices labelled `kubernetes.io/service-name`; an
//! endpoint whose `conditions.ready` is absent is ready, as the API documents. A dual-stack
//! Service has a slice set per address family holding the same endpoints: the family with the
//! most endpoints is counted, not their sum.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use k8s_openapi::api::core::v1::Service;
use k8s_openapi::api::discovery::v1::EndpointSlice;

use crate::records::{Backend, BackendState, BackendStatus, IngressRecord, ServicePort};

/// The label that ties an EndpointSlice to its Service.
const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";

/// A Service by namespace and name (shared strings: the same namespace and Service names are
/// used by the index and by every record that routes to the Service).
pub type ServiceKey = (Arc<str>, Arc<str>);

/// Whether a kind's objects are known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    /// Not watched (switched off by configuration, or the CRD is not installed).
    Off,
    /// Watched, not listed yet.
    Pending,
    Ready,
    /// Cannot be read now: the error's code, and why in words.
    Failed {
        code: String,
        message: String,
    },
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    ready: u32,
    total: u32,
}

/// An EndpointSlice's address family (`addressType`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Family {
    IPv4,
    IPv6,
    Fqdn,
    Other(Box<str>),
}

impl Family {
    fn of(address_type: &str) -> Self {
        match address_type {
            "IPv4" => Family::IPv4,
            "IPv6" => Family::IPv6,
            "FQDN" => Family::Fqdn,
            other => Family::Other(other.into()),
        }
    }
}

/// One EndpointSlice of a Service: its name, family and endpoint counts (nothing else of the
/// slice is kept).
#[derive(Debug, Clone)]
struct SliceCounts {
    name: Arc<str>,
    family: Family,
    counts: Counts,
}

/// What is known of one Service: whether it exists, and its slices.
#[derive(Debug, Default)]
struct ServiceEntry {
    exists: bool,
    slices: Vec<SliceCounts>,
}

/// One namespace's Services (by name) and the Service each slice counts for (by slice name).
#[derive(Debug, Default)]
struct Namespace {
    services: HashMap<Arc<str>, ServiceEntry>,
    slice_owner: HashMap<Arc<str>, Arc<str>>,
}

/// The Services and EndpointSlices of one watched scope. Per Service only its existence and
/// each slice's (ready, total) counts are kept; namespace and Service names are shared.
#[derive(Debug, Default)]
pub struct BackendIndex {
    namespaces: HashMap<Arc<str>, Namespace>,
}

fn text(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or_default()
}

/// The counts of a slice and the Service it belongs to (`None`: not labelled with one).
fn slice_of(slice: &EndpointSlice) -> Option<(&str, Counts)> {
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
    Some((service.as_str(), counts))
}

impl BackendIndex {
    /// The shared namespace string of `namespace`, added when new.
    fn namespace_mut(&mut self, namespace: &str) -> (Arc<str>, &mut Namespace) {
        let key = match self.namespaces.get_key_value(namespace) {
            Some((key, _)) => key.clone(),
            None => {
                let key: Arc<str> = Arc::from(namespace);
                self.namespaces.insert(key.clone(), Namespace::default());
                key
            }
        };
        let entry = self.namespaces.get_mut(&key).expect("inserted above");
        (key, entry)
    }

    /// The key of a Service, sharing the index's strings when it knows them.
    pub fn service_key(&self, namespace: &str, name: &str) -> ServiceKey {
        match self.namespaces.get_key_value(namespace) {
            Some((namespace, entry)) => {
                let name = match entry.services.get_key_value(name) {
                    Some((name, _)) => name.clone(),
                    None => Arc::from(name),
                };
                (namespace.clone(), name)
            }
            None => (Arc::from(namespace), Arc::from(name)),
        }
    }

    /// The entry of a Service (created when new) and its key.
    fn service_mut(&mut self, namespace: &str, name: &str) -> (ServiceKey, &mut ServiceEntry) {
        let (namespace, entry) = self.namespace_mut(namespace);
        let name = match entry.services.get_key_value(name) {
            Some((name, _)) => name.clone(),
            None => {
                let name: Arc<str> = Arc::from(name);
                entry.services.insert(name.clone(), ServiceEntry::default());
                name
            }
        };
        let service = entry.services.get_mut(&name).expect("inserted above");
        ((namespace, name), service)
    }

    /// Drops what is no longer known of a Service.
    fn prune(&mut self, (namespace, name): &ServiceKey) {
        let Some(entry) = self.namespaces.get_mut(namespace) else {
            return;
        };
        if entry
            .services
            .get(name)
            .is_some_and(|service| !service.exists && service.slices.is_empty())
        {
            entry.services.remove(name);
        }
        if entry.services.is_empty() && entry.slice_owner.is_empty() {
            self.namespaces.remove(namespace);
        }
    }

    fn existing(&self) -> BTreeSet<ServiceKey> {
        self.keys(|service| service.exists)
    }

    fn keys(&self, filter: impl Fn(&ServiceEntry) -> bool) -> BTreeSet<ServiceKey> {
        self.namespaces
            .iter()
            .flat_map(|(namespace, entry)| {
                entry
                    .services
                    .iter()
                    .filter(|(_, service)| filter(service))
                    .map(|(name, _)| (namespace.clone(), name.clone()))
            })
            .collect()
    }

    /// Replaces every Service; the Services whose existence changed.
    #[cfg(test)]
    pub fn replace_services(&mut self, services: &[&Service]) -> BTreeSet<ServiceKey> {
        let mut listed = BackendIndex::default();
        for service in services {
            listed.apply_service(service);
        }
        self.take_services(listed)
    }

    /// Takes the Services of `listed` (a complete list applied to an empty index) in place of
    /// this index's; the Services whose existence changed.
    pub fn take_services(&mut self, listed: BackendIndex) -> BTreeSet<ServiceKey> {
        let old = self.existing();
        let new = listed.existing();
        let changed: BTreeSet<ServiceKey> = old.symmetric_difference(&new).cloned().collect();
        for key in old.difference(&new) {
            if let Some(service) = self
                .namespaces
                .get_mut(&key.0)
                .and_then(|entry| entry.services.get_mut(&key.1))
            {
                service.exists = false;
            }
            self.prune(key);
        }
        for (namespace, name) in new.difference(&old) {
            self.service_mut(namespace, name).1.exists = true;
        }
        changed
    }

    /// A Service added or changed; the Services affected.
    pub fn apply_service(&mut self, service: &Service) -> BTreeSet<ServiceKey> {
        let metadata = &service.metadata;
        let (key, entry) = self.service_mut(text(&metadata.namespace), text(&metadata.name));
        if std::mem::replace(&mut entry.exists, true) {
            BTreeSet::new()
        } else {
            BTreeSet::from([key])
        }
    }

    pub fn delete_service(&mut self, service: &Service) -> BTreeSet<ServiceKey> {
        let metadata = &service.metadata;
        let (namespace, name) = (text(&metadata.namespace), text(&metadata.name));
        let Some(entry) = self
            .namespaces
            .get_mut(namespace)
            .and_then(|entry| entry.services.get_mut(name))
        else {
            return BTreeSet::new();
        };
        if !std::mem::replace(&mut entry.exists, false) {
            return BTreeSet::new();
        }
        let key = self.service_key(namespace, name);
        self.prune(&key);
        BTreeSet::from([key])
    }

    /// Replaces every EndpointSlice; the Services whose counts may have changed.
    #[cfg(test)]
    pub fn replace_slices(&mut self, slices: &[&EndpointSlice]) -> BTreeSet<ServiceKey> {
        let mut listed = BackendIndex::default();
        for slice in slices {
            listed.apply_slice(slice);
        }
        self.take_slices(listed)
    }

    /// Takes the EndpointSlices of `listed` (a complete list applied to an empty index) in
    /// place of this index's; the Services whose counts may have changed.
    pub fn take_slices(&mut self, listed: BackendIndex) -> BTreeSet<ServiceKey> {
        let mut affected = self.keys(|service| !service.slices.is_empty());
        let namespaces: Vec<Arc<str>> = self.namespaces.keys().cloned().collect();
        for namespace in namespaces {
            if let Some(entry) = self.namespaces.get_mut(&namespace) {
                entry.slice_owner.clear();
                for service in entry.services.values_mut() {
                    service.slices.clear();
                }
                entry.services.retain(|_, service| service.exists);
                if entry.services.is_empty() {
                    self.namespaces.remove(&namespace);
                }
            }
        }
        for (namespace, listed) in listed.namespaces {
            for (name, service) in listed.services {
                if service.slices.is_empty() {
                    continue;
                }
                let (key, entry) = self.service_mut(&namespace, &name);
                entry.slices = service.slices;
                affected.insert(key);
            }
            let (_, entry) = self.namespace_mut(&namespace);
            for (slice, owner) in listed.slice_owner {
                let owner = entry
                    .services
                    .get_key_value(&*owner)
                    .map_or(owner, |(name, _)| name.clone());
                entry.slice_owner.insert(slice, owner);
            }
        }
        affected
    }

    pub fn apply_slice(&mut self, slice: &EndpointSlice) -> BTreeSet<ServiceKey> {
        let metadata = &slice.metadata;
        let (namespace, name) = (text(&metadata.namespace), text(&metadata.name));
        let mut affected: BTreeSet<ServiceKey> =
            self.remove_slice(namespace, name).into_iter().collect();
        if let Some((service, counts)) = slice_of(slice) {
            let name: Arc<str> = Arc::from(name);
            let (key, entry) = self.service_mut(namespace, service);
            // Most Services have one slice (per family): no room for four.
            entry.slices.reserve_exact(1);
            entry.slices.push(SliceCounts {
                name: name.clone(),
                family: Family::of(&slice.address_type),
                counts,
            });
            let owner = key.1.clone();
            self.namespace_mut(namespace)
                .1
                .slice_owner
                .insert(name, owner);
            affected.insert(key);
        }
        affected
    }

    pub fn delete_slice(&mut self, slice: &EndpointSlice) -> BTreeSet<ServiceKey> {
        let metadata = &slice.metadata;
        self.remove_slice(text(&metadata.namespace), text(&metadata.name))
            .into_iter()
            .collect()
    }

    /// Removes a slice; the Service it counted for.
    fn remove_slice(&mut self, namespace: &str, name: &str) -> Option<ServiceKey> {
        let entry = self.namespaces.get_mut(namespace)?;
        let owner = entry.slice_owner.remove(name)?;
        if let Some(service) = entry.services.get_mut(&owner) {
            service.slices.retain(|slice| &*slice.name != name);
        }
        let key = self.service_key(namespace, &owner);
        self.prune(&key);
        Some(key)
    }

    /// Ready and total endpoints of `service`: of the address family with the most.
    fn counts(&self, service: &ServiceEntry) -> Counts {
        let mut families: Vec<(&Family, Counts)> = Vec::new();
        for slice in &service.slices {
            let index = match families
                .iter()
                .position(|(family, _)| *family == &slice.family)
            {
                Some(index) => index,
                None => {
                    families.push((&slice.family, Counts::default()));
                    families.len() - 1
                }
            };
            let family = &mut families[index].1;
            family.ready += slice.counts.ready;
            family.total += slice.counts.total;
        }
        families
            .into_iter()
            .map(|(_, counts)| counts)
            .max_by_key(|counts| (counts.total, counts.ready))
            .unwrap_or_default()
    }

    /// The status of one backend, given whether Services and EndpointSlices can be read.
    /// Whether any Service or EndpointSlice of `namespace` is known here.
    pub fn holds_namespace(&self, namespace: &str) -> bool {
        self.namespaces.contains_key(namespace)
    }

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
                Availability::Failed { message, .. } => {
                    status.error = Some(message.clone());
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
        let entry = self
            .namespaces
            .get(namespace.as_str())
            .and_then(|entry| entry.services.get(service.as_str()))
            .filter(|entry| entry.exists);
        let Some(entry) = entry else {
            status.state = BackendState::MissingService;
            return status;
        };
        let counts = self.counts(entry);
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
        assert_eq!(
            affected,
            BTreeSet::from([(Arc::from("shop"), Arc::from("idle"))])
        );
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
            &Availability::Failed {
                code: "forbidden".into(),
                message: "forbidden".into(),
            },
            &Availability::Ready,
        );
        assert_eq!(status.state, BackendState::Unknown);
        assert_eq!(status.error.as_deref(), Some("forbidden"));
    }
}
