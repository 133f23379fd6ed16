//! Lists of one kind taken page by page: records are stored as they come and those the list
//! did not hold are removed at its end; Services, EndpointSlices, Secrets and Certificates are
//! gathered apart and swapped in whole.

use super::{Changes, Joiner, RecordKey, Relist};
use crate::kube::watched_kinds::{Object, WatchedKind};
use crate::records::RecordKind;
use crate::records::backends::{Availability, BackendIndex};
use crate::records::certificates::CertificateIndex;

fn record_kind(kind: WatchedKind) -> Option<RecordKind> {
    match kind {
        WatchedKind::Ingresses => Some(RecordKind::Ingress),
        WatchedKind::HttpRoutes => Some(RecordKind::HttpRoute),
        WatchedKind::GrpcRoutes => Some(RecordKind::GrpcRoute),
        WatchedKind::TlsRoutes => Some(RecordKind::TlsRoute),
        _ => None,
    }
}

impl Joiner {
    /// A complete list of `kind` at once (a list of one page).
    pub fn listed(&mut self, kind: WatchedKind, objects: &[Object]) -> Changes {
        self.begin(kind);
        let mut changes = self.page(kind, objects);
        changes.extend(self.finish(kind));
        changes
    }

    /// A list of `kind` starts (an unfinished earlier one is void).
    pub fn begin(&mut self, kind: WatchedKind) {
        let relist = match record_kind(kind) {
            Some(record_kind) => {
                self.list_number += 1;
                Relist::Records(record_kind, self.list_number)
            }
            None if matches!(kind, WatchedKind::Services | WatchedKind::EndpointSlices) => {
                Relist::Backends(BackendIndex::default())
            }
            None => Relist::Certificates(CertificateIndex::default()),
        };
        self.relists.insert(kind, relist);
    }

    /// One page of the list of `kind` in progress: records are joined and stored as they come
    /// (those whose JSON changed are answered); the other kinds are gathered apart until the
    /// list completes. The objects can be dropped afterwards.
    pub fn page(&mut self, kind: WatchedKind, objects: &[Object]) -> Changes {
        let mut changes = Changes::default();
        let Some(relist) = self.relists.get_mut(&kind) else {
            return changes;
        };
        match relist {
            Relist::Records(_, number) => {
                let number = *number;
                for object in objects {
                    let Some(record) = self.record_of(object) else {
                        continue;
                    };
                    let key = self.key_of(&record);
                    let old = self.records.get(&key).map(|entry| entry.stored.clone());
                    let stored = self.insert(record, Some(number), &mut changes);
                    if old.is_none_or(|old| !old.same_json(&stored)) {
                        changes.upserts.push(stored);
                    }
                }
            }
            Relist::Backends(listed) => {
                for object in objects {
                    match object {
                        Object::Service(service) => {
                            listed.apply_service(service);
                        }
                        Object::EndpointSlice(slice) => {
                            listed.apply_slice(slice);
                        }
                        _ => {}
                    }
                }
            }
            Relist::Certificates(listed) => {
                for object in objects {
                    match object {
                        Object::Secret(secret) => {
                            listed.apply_secret(secret);
                        }
                        Object::Certificate(certificate) => {
                            listed.apply_certificate(certificate);
                        }
                        _ => {}
                    }
                }
            }
        }
        changes
    }

    /// The list of `kind` in progress is complete: records it did not hold are removed (and
    /// answered as deletions); the other kinds take the gathered objects in place of theirs.
    pub fn finish(&mut self, kind: WatchedKind) -> Changes {
        let mut changes = Changes::default();
        let Some(relist) = self.relists.remove(&kind) else {
            return changes;
        };
        match relist {
            Relist::Records(record_kind, number) => {
                let gone: Vec<RecordKey> = self
                    .records
                    .iter()
                    .filter(|(key, entry)| key.0 == record_kind && entry.listed != number)
                    .map(|(key, _)| key.clone())
                    .collect();
                for key in gone {
                    self.dirty.remove(&key);
                    if let Some(stored) = self.remove(&key, &mut changes) {
                        changes.deletes.push(stored);
                    }
                }
                return changes;
            }
            Relist::Backends(listed) => {
                let affected = if kind == WatchedKind::Services {
                    self.backends.take_services(listed)
                } else {
                    self.backends.take_slices(listed)
                };
                self.mark_services(affected);
            }
            Relist::Certificates(listed) => {
                let affected = if kind == WatchedKind::Secrets {
                    self.certificates.take_secrets(listed)
                } else {
                    self.certificates.take_certificates(listed)
                };
                self.mark_secrets(affected);
            }
        }
        if self.availability.get(&kind) != Some(&Availability::Ready) {
            self.availability.insert(kind, Availability::Ready);
            self.mark_all();
        }
        changes
    }
    /// Whether a list of records of `kind` is in progress.
    pub(super) fn relisting(&self, kind: RecordKind) -> bool {
        self.relists
            .values()
            .any(|relist| matches!(relist, Relist::Records(listing, _) if *listing == kind))
    }
}
