//! Everything the handlers share, and the list paths (cache, deduplication, retries, breaker).

use std::sync::Arc;

use futures_util::FutureExt;

use crate::access::Visibility;
use crate::access::redaction::Redaction;
use crate::config::Settings;
use crate::error::Error;
use crate::http::stream::ClientCounter;
use crate::hub::selection::Selection;
use crate::hub::{Hub, NamespaceError, Scope, Snapshot};
use crate::kube::client::SharedKubeApi;
use crate::kube::list_cache::CoalescingCache;
use crate::kube::resilience::{CallError, Resilience};
use crate::records::{IngressRecord, StoredRecord};

pub struct AppState {
    pub(crate) settings: Settings,
    pub(crate) api: SharedKubeApi,
    pub(crate) resilience: Resilience,
    pub(crate) cache: CoalescingCache,
    pub hub: Arc<Hub>,
    pub clients: Arc<ClientCounter>,
    /// Gzip bodies of `GET /api/ingresses`, per request and state of the watchers.
    pub snapshots: crate::http::snapshot_cache::SnapshotCache,
    /// Applied to records before they are cached (memory or Redis) or sent.
    pub(crate) redaction: Arc<Redaction>,
}

impl AppState {
    /// Sorted namespace names: the configured list, else a cached list of the cluster's.
    pub(crate) async fn namespaces(&self) -> Result<Vec<String>, CallError> {
        let configured = &self.settings.kubernetes.namespaces;
        if !configured.is_empty() {
            let mut names = configured.clone();
            names.sort();
            names.dedup();
            return Ok(names);
        }
        let (api, resilience) = (self.api.clone(), self.resilience.clone());
        let bytes = self
            .cache
            .get_or_load("namespaces", move || {
                async move {
                    let names = resilience
                        .call("list_namespaces", || api.list_namespaces(None))
                        .await?;
                    Ok(serde_json::to_vec(&names).expect("names serialise"))
                }
                .boxed()
            })
            .await?;
        // Sorted here too: the cache may be Redis, written by another replica.
        let mut names: Vec<String> = serde_json::from_slice(&bytes).unwrap_or_default();
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// The namespaces `visibility` admits (`GET /api/namespaces`), sorted.
    pub(crate) async fn visible_namespaces(
        &self,
        visibility: &Visibility,
    ) -> Result<Vec<String>, CallError> {
        let mut names = self.namespaces().await?;
        names.retain(|name| visibility.admits(name));
        Ok(names)
    }

    /// The namespaces a request names (`namespaces` parameter), refused before any watcher or
    /// list starts when one does not exist: in a namespace-scoped install, when it is not
    /// configured; cluster-wide, when it is not in the namespace list (the cached one that
    /// `GET /api/namespaces` answers, so a request costs no extra API call). For a limited
    /// caller, "all" means the namespaces it may see, and naming another one is refused with
    /// 403 before anything else is looked at.
    pub(crate) async fn selection(
        &self,
        parameter: Option<&str>,
        visibility: &Visibility,
    ) -> Result<Selection, Error> {
        let configured = &self.settings.kubernetes.namespaces;
        let max = self.settings.stream.max_namespaces;
        let selection = match visibility {
            Visibility::Everything => Selection::parse(parameter, configured, max)?,
            Visibility::Limited(_) => {
                let selection = Selection::parse(parameter, &[], max)?.within(visibility)?;
                if let Selection::Only(wanted) = &selection
                    && let Some(name) = wanted
                        .iter()
                        .find(|name| !configured.is_empty() && !configured.contains(name))
                {
                    return Err(Error::NamespaceNotWatched(name.clone()));
                }
                selection
            }
        };
        if let Selection::Only(wanted) = &selection
            && configured.is_empty()
        {
            let existing = self.namespaces().await?;
            let missing: Vec<String> = wanted
                .iter()
                .filter(|name| existing.binary_search(name).is_err())
                .cloned()
                .collect();
            if !missing.is_empty() {
                return Err(Error::NamespaceNotFound(missing));
            }
        }
        Ok(selection)
    }

    /// The snapshot for a request: from the watchers' memory once they have listed, else from
    /// (cached, deduplicated) lists while the watchers start for the next requests.
    pub(crate) async fn snapshot(
        &self,
        selection: &Selection,
        search: Option<&str>,
    ) -> Result<Snapshot, Error> {
        // Holding and releasing keeps the watchers alive for another grace period.
        let _hold = self.hub.subscribe(selection)?;
        if self.hub.is_settled(selection) {
            return Ok(self.hub.snapshot(selection, search));
        }
        let scopes = self.hub.scopes_for(selection);
        // A first list in progress is waited for (while a page comes at least every
        // `request_timeout`, at most `FIRST_LIST_WAIT`: a list of its own would take as long)
        // instead of listing everything a second time beside it: at 50k ingresses that list and
        // its serialised copy doubled the peak memory. A watcher that failed meanwhile leaves
        // the request to its own list, which answers the error as before.
        let quiet = self.settings.kubernetes.request_timeout;
        self.hub.wait_settled(&scopes, quiet).await;
        if self.hub.is_ready(selection) {
            return Ok(self.hub.snapshot(selection, search));
        }
        let lists =
            futures_util::future::join_all(scopes.iter().map(|scope| self.list_scope(scope))).await;
        let mut snapshot = Snapshot::with_info(&self.hub.snapshot_info());
        for (scope, result) in scopes.iter().zip(lists) {
            match result {
                Ok(records) => snapshot.items.extend(
                    records
                        .into_iter()
                        .map(|record| Arc::new(StoredRecord::new(&self.hub.unread(record))))
                        .filter(|record| selection.contains(&record.namespace))
                        .filter(|record| search.is_none_or(|term| record.matches(term))),
                ),
                // Cluster-wide, there is nothing else to show: the request fails.
                Err(error) if *scope == Scope::Cluster => return Err(error.into()),
                Err(error) => snapshot
                    .errors
                    .push(NamespaceError::from_call(scope, &error, None)),
            }
        }
        snapshot.sort();
        Ok(snapshot)
    }

    async fn list_scope(&self, scope: &Scope) -> Result<Vec<IngressRecord>, CallError> {
        let namespace = scope.namespace();
        let key = format!("ingresses:{}", scope.label());
        let (api, resilience) = (self.api.clone(), self.resilience.clone());
        let redaction = self.redaction.clone();
        let bytes = self
            .cache
            .get_or_load(&key, move || {
                async move {
                    let ingresses = resilience
                        .call("list_ingresses", || api.list_ingresses(namespace.clone()))
                        .await?;
                    let records: Vec<IngressRecord> = ingresses
                        .iter()
                        .map(|ingress| IngressRecord::from_ingress(ingress, &redaction))
                        .collect();
                    Ok(serde_json::to_vec(&records).expect("records serialise"))
                }
                .boxed()
            })
            .await?;
        Ok(serde_json::from_slice(&bytes).unwrap_or_default())
    }
}
