//! The gzip-encoded `GET /api/ingresses` body, built once per state of the hub and request.
//!
//! At 50,000 records the body is 60+ MiB of JSON: gzip-compressing it for every request (the
//! Compress middleware) took 350-650 ms each. Here the compressed body is kept for a request key
//! (the selection of namespaces and the search term) as long as the snapshot it was made from is
//! still the hub's: the same stored records (compared by pointer: a changed record is a new
//! allocation, and the entry holds `Weak`s so an address is never reused while it is cached), the
//! same namespace errors, notices and expiry days. Concurrent identical requests wait for one
//! build (single flight). At most [`MAX_ENTRIES`] bodies are kept (least recently used out), and
//! a key's stale body is dropped as soon as a request sees the state moved.
//!
//! The identity body is not cached: it is a plain copy of the stored records, written in chunks,
//! as cheap to produce as to copy out of a cache, which would hold a whole uncompressed body.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use actix_web::web::Bytes;
use tokio::sync::OnceCell;

use crate::hub::{NamespaceError, Notice, Snapshot};
use crate::namespaces::Selection;
use crate::records::StoredRecord;

/// Bodies kept at once (each about a tenth of its JSON: 5-6 MiB at 50,000 records).
pub const MAX_ENTRIES: usize = 4;

/// gzip level of the cached body, chosen by measurement on the benchmark's snapshots (flate2's
/// miniz_oxide backend, `fast` profile, load average 7 on 2 shared cores):
///
/// | level | 10k: size, time | 50k: size, time |
/// |---|---|---|
/// | 1 (Compress's) | 1,182 KiB, 30 ms | 5,631 KiB, 232 ms |
/// | 2 | 963 KiB, 63 ms | 4,577 KiB, 642 ms |
/// | 3 | 632 KiB, 66 ms | 2,967 KiB, 648 ms |
/// | 6 | 523 KiB, 121 ms | 2,688 KiB, 965 ms |
///
/// Level 3 halves the bytes every client downloads (issue 7's 10k body under 1 MB again) for
/// 2-3x the compression time, paid once per change of the state rather than per request;
/// level 6 costs half as much again for 10% less.
pub const GZIP_LEVEL: u32 = 3;

/// What a request asks for: the same key and the same state get the same bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestKey {
    pub selection: Selection,
    pub search: Option<String>,
}

/// The identity of the state a snapshot shows, holding no record alive.
struct Fingerprint {
    items: Vec<Weak<StoredRecord>>,
    errors: Vec<NamespaceError>,
    notices: Vec<Notice>,
    expiry_warning_days: u32,
}

impl Fingerprint {
    fn of(snapshot: &Snapshot) -> Self {
        Self {
            items: snapshot.items.iter().map(Arc::downgrade).collect(),
            errors: snapshot.errors.clone(),
            notices: snapshot.notices.clone(),
            expiry_warning_days: snapshot.expiry_warning_days,
        }
    }

    fn shows(&self, snapshot: &Snapshot) -> bool {
        self.expiry_warning_days == snapshot.expiry_warning_days
            && self.items.len() == snapshot.items.len()
            && self.errors == snapshot.errors
            && self.notices == snapshot.notices
            && self
                .items
                .iter()
                .zip(&snapshot.items)
                .all(|(cached, current)| std::ptr::eq(cached.as_ptr(), Arc::as_ptr(current)))
    }
}

struct Entry {
    key: RequestKey,
    fingerprint: Fingerprint,
    body: Arc<OnceCell<Bytes>>,
    /// For least-recently-used eviction.
    used: u64,
}

/// The cache of encoded snapshot bodies (one per application).
#[derive(Default)]
pub struct SnapshotCache {
    entries: Mutex<Vec<Entry>>,
    clock: AtomicU64,
    /// Bodies encoded (test hook and metric).
    builds: AtomicU64,
    /// Requests waiting for a body being built (test hook).
    waiting: AtomicUsize,
}

impl std::fmt::Debug for SnapshotCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnapshotCache")
            .field("builds", &self.builds.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl SnapshotCache {
    /// The gzip body of `snapshot` for `key`, from the cache when the state is unchanged.
    pub async fn gzip(&self, key: RequestKey, snapshot: Snapshot) -> Bytes {
        self.get_or_build(key, snapshot, gzip_snapshot).await
    }

    async fn get_or_build(
        &self,
        key: RequestKey,
        snapshot: Snapshot,
        encode: impl FnOnce(Snapshot) -> Bytes + Send + 'static,
    ) -> Bytes {
        let cell = self.cell(key, &snapshot);
        if let Some(body) = cell.get() {
            metrics::counter!("ingress_dash_snapshot_cache_total", "result" => "hit").increment(1);
            return body.clone();
        }
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let body = cell
            .get_or_init(|| async {
                self.builds.fetch_add(1, Ordering::SeqCst);
                metrics::counter!("ingress_dash_snapshot_cache_total", "result" => "miss")
                    .increment(1);
                // Compressing megabytes would hold up the worker's other requests.
                tokio::task::spawn_blocking(move || encode(snapshot))
                    .await
                    .expect("encoding a snapshot does not panic")
            })
            .await
            .clone();
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        body
    }

    /// The cell of `key` for the state `snapshot` shows: its entry when the state is unchanged,
    /// else a fresh entry in place of the stale one.
    fn cell(&self, key: RequestKey, snapshot: &Snapshot) -> Arc<OnceCell<Bytes>> {
        let now = self.clock.fetch_add(1, Ordering::Relaxed);
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(index) = entries.iter().position(|entry| entry.key == key) {
            if entries[index].fingerprint.shows(snapshot) {
                entries[index].used = now;
                return entries[index].body.clone();
            }
            entries.swap_remove(index);
        }
        if entries.len() >= MAX_ENTRIES
            && let Some(oldest) = entries
                .iter()
                .enumerate()
                .min_by_key(|(_, entry)| entry.used)
                .map(|(index, _)| index)
        {
            entries.swap_remove(oldest);
        }
        let body = Arc::new(OnceCell::new());
        entries.push(Entry {
            key,
            fingerprint: Fingerprint::of(snapshot),
            body: body.clone(),
            used: now,
        });
        body
    }

    /// Bodies encoded so far.
    pub fn builds(&self) -> u64 {
        self.builds.load(Ordering::SeqCst)
    }

    /// Requests now waiting for a body being built.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::SeqCst)
    }
}

/// The snapshot's JSON, gzip-compressed at [`GZIP_LEVEL`].
pub fn gzip_snapshot(snapshot: Snapshot) -> Bytes {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(1 << 16),
        flate2::Compression::new(GZIP_LEVEL),
    );
    for chunk in snapshot.into_json_chunks() {
        encoder.write_all(&chunk).expect("writing to memory");
    }
    Bytes::from(encoder.finish().expect("writing to memory"))
}

/// Whether an `Accept-Encoding` value accepts gzip (`gzip` or `*` with a non-zero q-value,
/// RFC 9110 section 12.5.3).
pub fn accepts_gzip(accept_encoding: &str) -> bool {
    let mut gzip = None;
    let mut any = None;
    for part in accept_encoding.split(',') {
        let mut pieces = part.split(';');
        let coding = pieces
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        let quality = pieces
            .filter_map(|param| {
                let (name, value) = param.split_once('=')?;
                (name.trim().eq_ignore_ascii_case("q")).then(|| value.trim().parse::<f32>().ok())?
            })
            .next()
            .unwrap_or(1.0);
        match coding.as_str() {
            "gzip" | "x-gzip" => gzip = Some(quality > 0.0),
            "*" => any = Some(quality > 0.0),
            _ => {}
        }
    }
    gzip.or(any).unwrap_or(false)
}

#[cfg(test)]
#[path = "snapshot_cache_tests.rs"]
mod tests;
