//! Single objects added, changed or removed: records answer at once; a Service, EndpointSlice,
//! Secret or Certificate marks the records behind it, which [`Joiner::flush`] re-joins.

use std::collections::BTreeSet;

use super::{Changes, Joiner};
use crate::kube::watched_kinds::Object;
use crate::records::backends::ServiceKey;
use crate::records::certificates::SecretKey;
use crate::records::{IngressRecord, RecordKind};

impl Joiner {
    /// An object added or changed (`deleted`: removed). Ingresses and routes answer their
    /// change at once; the other kinds mark the records they affect for [`Joiner::flush`].
    pub fn changed(&mut self, object: &Object, deleted: bool) -> Changes {
        let mut changes = Changes::default();
        match object {
            Object::Ingress(_)
            | Object::HttpRoute(_)
            | Object::GrpcRoute(_)
            | Object::TlsRoute(_) => {
                let Some(record) = self.record_of(object) else {
                    return changes;
                };
                if deleted {
                    let key = self.key_of(&record);
                    if let Some(stored) = self.remove(&key, &mut changes) {
                        changes.deletes.push(stored);
                    }
                } else {
                    let stored = self.insert(record, None, &mut changes);
                    changes.upserts.push(stored);
                }
            }
            Object::Service(service) => {
                let affected = if deleted {
                    self.backends.delete_service(service)
                } else {
                    self.backends.apply_service(service)
                };
                self.mark_services(affected);
            }
            Object::EndpointSlice(slice) => {
                let affected = if deleted {
                    self.backends.delete_slice(slice)
                } else {
                    self.backends.apply_slice(slice)
                };
                self.mark_services(affected);
            }
            Object::Secret(secret) => {
                let affected = if deleted {
                    self.certificates.delete_secret(secret)
                } else {
                    self.certificates.apply_secret(secret)
                };
                self.mark_secrets(affected);
            }
            Object::Certificate(certificate) => {
                let affected = if deleted {
                    self.certificates.delete_certificate(certificate)
                } else {
                    self.certificates.apply_certificate(certificate)
                };
                self.mark_secrets(affected);
            }
        }
        changes
    }
    pub(super) fn mark_services(&mut self, services: BTreeSet<ServiceKey>) {
        for service in services {
            if let Some(holders) = self.by_service.get(&service) {
                self.dirty.extend(holders.keys().iter().cloned());
            }
        }
    }

    pub(super) fn mark_secrets(&mut self, secrets: BTreeSet<SecretKey>) {
        for secret in secrets {
            if let Some(holders) = self.by_secret.get(&secret) {
                self.dirty.extend(holders.keys().iter().cloned());
            }
        }
    }
    /// Re-joins the marked records; those whose JSON changed. Records of a kind whose list is
    /// in progress stay marked until it completes, so nothing of an unfinished list is sent.
    pub fn flush(&mut self) -> Changes {
        let mut changes = Changes::default();
        let held: Vec<RecordKind> = [
            RecordKind::Ingress,
            RecordKind::HttpRoute,
            RecordKind::GrpcRoute,
            RecordKind::TlsRoute,
        ]
        .into_iter()
        .filter(|kind| self.relisting(*kind))
        .collect();
        for key in std::mem::take(&mut self.dirty) {
            if held.contains(&key.0) {
                self.dirty.insert(key);
                continue;
            }
            let Some(entry) = self.records.get(&key) else {
                continue;
            };
            let old = entry.stored.clone();
            let Ok(record) = serde_json::from_str::<IngressRecord>(&old.json()) else {
                continue;
            };
            let mut expiry_changes = Changes::default();
            let stored = self.insert(record, None, &mut expiry_changes);
            if !stored.same_json(&old) {
                changes.upserts.push(stored);
                changes.expiries.extend(expiry_changes.expiries);
            }
        }
        changes
    }
}
