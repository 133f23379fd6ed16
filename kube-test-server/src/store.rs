//! The cluster's objects with a global resourceVersion, a bounded change history (like etcd with
//! compaction) and the open watches fed from it.
//!
//! Every write bumps one cluster-wide counter, as etcd's revision does, so resourceVersions are
//! comparable across kinds. The history keeps each change with the object's previous state, which
//! lets a paginated list serve later pages from the snapshot of its first page, and lets a watch
//! replay everything after its resourceVersion. Anything older than the compacted revision answers
//! 410 Gone, as a real API server does.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Bound;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::kind::Kind;

/// A watch event type, as on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// One write, kept in the history.
#[derive(Debug, Clone)]
pub struct Change {
    pub revision: u64,
    pub kind: Kind,
    /// `namespace/name` for ingresses, `name` for namespaces.
    pub key: String,
    pub namespace: Option<String>,
    pub event: EventType,
    /// The object after the change (for DELETED: its last state, with the delete's revision).
    pub object: Arc<Value>,
    /// The object before the change, to roll a snapshot back.
    pub previous: Option<Arc<Value>>,
}

/// What a watch or list selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub kind: Kind,
    /// `None`: cluster-wide.
    pub namespace: Option<String>,
}

impl Scope {
    pub fn matches(&self, change: &Change) -> bool {
        change.kind == self.kind && (self.namespace.is_none() || self.namespace == change.namespace)
    }
}

/// What a watch receives after its replay.
#[derive(Debug, Clone)]
pub enum WatchMessage {
    Change(Arc<Change>),
    /// The history this watch needs is gone: ERROR 410, then the end of the stream.
    Expired,
}

pub(crate) struct Watcher {
    scope: Scope,
    sender: mpsc::UnboundedSender<WatchMessage>,
}

/// Why a list or watch cannot be served from the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expired {
    pub oldest_available: u64,
}

pub(crate) struct Store {
    revision: u64,
    /// Changes at or below this revision are gone.
    compacted: u64,
    history: VecDeque<Arc<Change>>,
    history_limit: usize,
    objects: BTreeMap<(Kind, String), Arc<Value>>,
    watchers: Vec<Watcher>,
}

/// A consistent list: the objects of a scope at `revision`, sorted by key.
pub struct Snapshot {
    pub revision: u64,
    pub items: Vec<(String, Arc<Value>)>,
}

/// One page of a list (see [`Store::page`]).
pub struct Page {
    pub revision: u64,
    pub items: Vec<(String, Arc<Value>)>,
    /// Objects after this page (what `remainingItemCount` says).
    pub remaining: usize,
}

impl Store {
    pub fn new(history_limit: usize) -> Self {
        Self {
            revision: 1,
            compacted: 1,
            history: VecDeque::new(),
            history_limit: history_limit.max(1),
            objects: BTreeMap::new(),
            watchers: Vec::new(),
        }
    }

    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn get(&self, kind: Kind, key: &str) -> Option<Arc<Value>> {
        self.objects.get(&(kind, key.to_owned())).cloned()
    }

    /// Creates or replaces an object; sets its resourceVersion (and uid and creationTimestamp
    /// on create) as the API server does. Type meta is not stored: list items carry none.
    pub fn put(&mut self, kind: Kind, mut object: Value) -> Arc<Value> {
        let key = object_key(kind, &object);
        let namespace = object_namespace(kind, &object);
        let previous = self.get(kind, &key);
        self.revision += 1;
        let fields = object.as_object_mut().expect("objects are JSON objects");
        fields.remove("kind");
        fields.remove("apiVersion");
        let metadata = fields.entry("metadata").or_insert_with(|| json!({}));
        let metadata = metadata.as_object_mut().expect("metadata is an object");
        metadata.insert("resourceVersion".into(), json!(self.revision.to_string()));
        match &previous {
            Some(previous) => {
                for field in ["uid", "creationTimestamp"] {
                    if let Some(value) = previous["metadata"].get(field) {
                        metadata.insert(field.into(), value.clone());
                    }
                }
            }
            None => {
                metadata
                    .entry("uid")
                    .or_insert_with(|| json!(synthetic_uid(self.revision)));
                metadata
                    .entry("creationTimestamp")
                    .or_insert_with(|| json!(crate::wire::now_rfc3339()));
            }
        }
        if kind.has_generation() {
            metadata.entry("generation").or_insert(json!(1));
        }
        let object = Arc::new(object);
        self.objects.insert((kind, key.clone()), object.clone());
        let event = if previous.is_some() {
            EventType::Modified
        } else {
            EventType::Added
        };
        self.record(Change {
            revision: self.revision,
            kind,
            key,
            namespace,
            event,
            object: object.clone(),
            previous,
        });
        object
    }

    /// Deletes an object; deleting a namespace deletes its objects first, as the namespace
    /// controller would. Returns whether it existed.
    pub fn delete(&mut self, kind: Kind, key: &str) -> bool {
        if kind == Kind::Namespace {
            let prefix = format!("{key}/");
            for contained in Kind::ALL.into_iter().filter(|kind| kind.namespaced()) {
                let keys: Vec<String> = self
                    .keys_with_prefix(contained, &prefix)
                    .map(|(_, key)| key.to_owned())
                    .collect();
                for contained_key in keys {
                    self.delete(contained, &contained_key);
                }
            }
        }
        let Some(previous) = self.objects.remove(&(kind, key.to_owned())) else {
            return false;
        };
        self.revision += 1;
        let mut object = (*previous).clone();
        object["metadata"]["resourceVersion"] = json!(self.revision.to_string());
        self.record(Change {
            revision: self.revision,
            kind,
            key: key.to_owned(),
            namespace: object_namespace(kind, &previous),
            event: EventType::Deleted,
            object: Arc::new(object),
            previous: Some(previous),
        });
        true
    }

    fn record(&mut self, change: Change) {
        let change = Arc::new(change);
        self.watchers.retain(|watcher| {
            !watcher.scope.matches(&change)
                || watcher
                    .sender
                    .send(WatchMessage::Change(change.clone()))
                    .is_ok()
        });
        self.history.push_back(change);
        while self.history.len() > self.history_limit {
            let dropped = self.history.pop_front().expect("history is not empty");
            self.compacted = dropped.revision;
        }
    }

    /// Forgets the whole history (as an etcd compaction would): older lists and watches get 410.
    /// Open watches are told so, as the API server does when its watch cache falls behind.
    pub fn compact(&mut self) {
        self.history.clear();
        self.compacted = self.revision;
        for watcher in self.watchers.drain(..) {
            let _ = watcher.sender.send(WatchMessage::Expired);
        }
    }

    pub fn open_watches(&mut self) -> usize {
        self.watchers.retain(|watcher| !watcher.sender.is_closed());
        self.watchers.len()
    }

    /// Every object of `kind` now, by key.
    pub fn all(&self, kind: Kind) -> Vec<Arc<Value>> {
        self.keys_with_prefix(kind, "")
            .map(|(object, _)| object.clone())
            .collect()
    }

    /// The objects of `scope` at `revision` (`None`: now).
    pub fn snapshot(&self, scope: &Scope, revision: Option<u64>) -> Result<Snapshot, Expired> {
        let page = self.page(scope, revision, None, |_| true, None)?;
        Ok(Snapshot {
            revision: page.revision,
            items: page.items,
        })
    }

    /// One page of a list: the objects of `scope` at `revision` (`None`: now) whose key sorts
    /// after `after` and that `keep` accepts, at most `limit` of them, and how many follow.
    /// Only the page's objects are copied: a paged list of N objects costs O(N) in all, not
    /// O(N) per page.
    pub fn page(
        &self,
        scope: &Scope,
        revision: Option<u64>,
        after: Option<&str>,
        keep: impl Fn(&Value) -> bool,
        limit: Option<usize>,
    ) -> Result<Page, Expired> {
        let revision = revision.unwrap_or(self.revision);
        if revision < self.compacted || revision > self.revision {
            return Err(Expired {
                oldest_available: self.compacted,
            });
        }
        // Keys are `namespace/name`: a namespace's objects are one range of the map.
        let prefix = match &scope.namespace {
            Some(namespace) if scope.kind.namespaced() => format!("{namespace}/"),
            _ => String::new(),
        };
        // What the objects changed since `revision` were then (`None`: absent). Newest change
        // first, so the oldest one, whose `previous` is the state at `revision`, is kept.
        let mut then: BTreeMap<&str, Option<&Arc<Value>>> = BTreeMap::new();
        for change in self.history.iter().rev() {
            if change.revision <= revision {
                break;
            }
            if !scope.matches(change) || after.is_some_and(|after| change.key.as_str() <= after) {
                continue;
            }
            let value = match (&change.event, &change.previous) {
                (EventType::Added, _) | (_, None) => None,
                (_, Some(previous)) => Some(previous),
            };
            then.insert(change.key.as_str(), value);
        }
        let start = match after {
            Some(after) if after >= prefix.as_str() => {
                Bound::Excluded((scope.kind, after.to_owned()))
            }
            _ => Bound::Included((scope.kind, prefix.clone())),
        };
        let now = self
            .objects
            .range((start, Bound::Unbounded))
            .take_while(|((kind, key), _)| *kind == scope.kind && key.starts_with(&prefix))
            .map(|((_, key), object)| (key.as_str(), Some(object)));
        let mut items = Vec::new();
        let mut remaining = 0;
        for (key, object) in merge_then(now, then.into_iter()) {
            let in_scope = scope.namespace.is_none()
                || object_namespace(scope.kind, object) == scope.namespace;
            if !in_scope || !keep(object) {
                continue;
            }
            if limit.is_some_and(|limit| items.len() >= limit) {
                remaining += 1;
            } else {
                items.push((key.to_owned(), object.clone()));
            }
        }
        Ok(Page {
            revision,
            items,
            remaining,
        })
    }

    /// The objects of `kind` whose key starts with `prefix`, in key order.
    fn keys_with_prefix<'a>(
        &'a self,
        kind: Kind,
        prefix: &'a str,
    ) -> impl Iterator<Item = (&'a Arc<Value>, &'a str)> + 'a {
        self.objects
            .range((kind, prefix.to_owned())..)
            .take_while(move |((k, key), _)| *k == kind && key.starts_with(prefix))
            .map(|((_, key), object)| (object, key.as_str()))
    }

    /// Starts a watch of `scope` after `revision`: the changes since then, then live ones.
    pub fn watch(
        &mut self,
        scope: Scope,
        revision: u64,
    ) -> Result<(Vec<Arc<Change>>, mpsc::UnboundedReceiver<WatchMessage>), Expired> {
        if revision < self.compacted {
            return Err(Expired {
                oldest_available: self.compacted,
            });
        }
        let replay = self
            .history
            .iter()
            .filter(|change| change.revision > revision && scope.matches(change))
            .cloned()
            .collect();
        let (sender, receiver) = mpsc::unbounded_channel();
        self.watchers.push(Watcher { scope, sender });
        Ok((replay, receiver))
    }
}

/// The objects now (`now`, in key order) with those changed since replaced by what they were
/// then (`then`, in key order; `None`: absent then).
fn merge_then<'a>(
    now: impl Iterator<Item = (&'a str, Option<&'a Arc<Value>>)>,
    then: impl Iterator<Item = (&'a str, Option<&'a Arc<Value>>)>,
) -> impl Iterator<Item = (&'a str, &'a Arc<Value>)> {
    let mut now = now.peekable();
    let mut then = then.peekable();
    std::iter::from_fn(move || {
        loop {
            let next = match (now.peek(), then.peek()) {
                (None, None) => return None,
                (Some(_), None) => now.next(),
                (None, Some(_)) => then.next(),
                (Some((current, _)), Some((changed, _))) => match current.cmp(changed) {
                    std::cmp::Ordering::Less => now.next(),
                    std::cmp::Ordering::Greater => then.next(),
                    std::cmp::Ordering::Equal => {
                        now.next();
                        then.next()
                    }
                },
            };
            if let Some((key, Some(object))) = next {
                return Some((key, object));
            }
        }
    })
}

fn object_key(kind: Kind, object: &Value) -> String {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    match object_namespace(kind, object) {
        Some(namespace) => format!("{namespace}/{name}"),
        None => name.to_owned(),
    }
}

fn object_namespace(kind: Kind, object: &Value) -> Option<String> {
    kind.namespaced().then(|| {
        object["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default")
            .to_owned()
    })
}

/// A stable, unique, UUID-shaped uid.
fn synthetic_uid(revision: u64) -> String {
    let hex = format!(
        "{:032x}",
        0x6b75_6265_0000_0000_0000_0000_0000_0000u128 + revision as u128
    );
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ingress(namespace: &str, name: &str, host: &str) -> Value {
        json!({"metadata": {"name": name, "namespace": namespace}, "spec": {"rules": [{"host": host}]}})
    }

    #[test]
    fn snapshot_at_an_older_revision_rolls_back_later_changes() {
        let mut store = Store::new(100);
        store.put(Kind::Ingress, ingress("a", "one", "one.example"));
        let before = store.revision();
        store.put(Kind::Ingress, ingress("a", "one", "changed.example"));
        store.put(Kind::Ingress, ingress("a", "two", "two.example"));
        let scope = Scope {
            kind: Kind::Ingress,
            namespace: Some("a".into()),
        };
        let old = store.snapshot(&scope, Some(before)).unwrap();
        assert_eq!(old.items.len(), 1);
        assert_eq!(old.items[0].1["spec"]["rules"][0]["host"], "one.example");
        assert_eq!(store.snapshot(&scope, None).unwrap().items.len(), 2);
    }

    #[test]
    fn a_page_at_an_older_revision_starts_after_its_key_and_counts_the_rest() {
        let mut store = Store::new(100);
        for name in ["a", "b", "c", "d", "e"] {
            store.put(
                Kind::Ingress,
                ingress("ns", name, &format!("{name}.example")),
            );
        }
        let before = store.revision();
        store.put(Kind::Ingress, ingress("ns", "b", "changed.example"));
        assert!(store.delete(Kind::Ingress, "ns/c"));
        store.put(Kind::Ingress, ingress("ns", "bb", "new.example"));
        store.put(Kind::Ingress, ingress("other", "a", "elsewhere.example"));
        let scope = Scope {
            kind: Kind::Ingress,
            namespace: Some("ns".into()),
        };
        let page = store
            .page(&scope, Some(before), Some("ns/a"), |_| true, Some(2))
            .unwrap();
        let keys: Vec<&str> = page.items.iter().map(|(key, _)| key.as_str()).collect();
        assert_eq!(keys, ["ns/b", "ns/c"]);
        assert_eq!(page.items[0].1["spec"]["rules"][0]["host"], "b.example");
        assert_eq!(page.remaining, 2);
        let now = store
            .page(
                &scope,
                None,
                Some("ns/b"),
                |object| object["metadata"]["name"] != "d",
                None,
            )
            .unwrap();
        let keys: Vec<&str> = now.items.iter().map(|(key, _)| key.as_str()).collect();
        assert_eq!(keys, ["ns/bb", "ns/e"]);
        assert_eq!(now.remaining, 0);
    }

    #[test]
    fn compacted_revisions_are_expired() {
        let mut store = Store::new(100);
        store.put(Kind::Ingress, ingress("a", "one", "x"));
        let old = store.revision();
        store.put(Kind::Ingress, ingress("a", "two", "y"));
        store.compact();
        let scope = Scope {
            kind: Kind::Ingress,
            namespace: None,
        };
        assert!(store.snapshot(&scope, Some(old)).is_err());
        assert!(store.watch(scope, old).is_err());
    }

    #[test]
    fn deleting_a_namespace_deletes_its_ingresses() {
        let mut store = Store::new(100);
        store.put(Kind::Namespace, json!({"metadata": {"name": "a"}}));
        store.put(Kind::Ingress, ingress("a", "one", "x"));
        store.put(Kind::Ingress, ingress("ab", "two", "y"));
        assert!(store.delete(Kind::Namespace, "a"));
        assert!(store.get(Kind::Ingress, "a/one").is_none());
        assert!(store.get(Kind::Ingress, "ab/two").is_some());
    }
}
