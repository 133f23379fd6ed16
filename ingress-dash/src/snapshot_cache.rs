//! The gzip-encoded `GET /api/ingresses` body, built once per state of the hub and request.
//!
//! At 50,000 records the body is 60+ MiB of JSON: gzip-compressing it for every request (the
//! Compress middleware) took 350-650 ms each. Here the compressed body is kept for a request key
//! (the selection of namespaces and the search term) and the hub's position (`Hub::position`:
//! the id of the last change of the watchers' state, records, namespace errors and notices
//! alike), so a request whose key and position match is answered without building the
//! snapshot at all ([`SnapshotCache::cached`]). Concurrent identical requests wait for one
//! build (single flight). At most [`MAX_ENTRIES`] bodies are kept (least recently used out), and
//! a key's stale body is dropped as soon as a request brings a newer position.
//!
//! The identity body is not cached: it is a plain copy of the stored records, written in chunks,
//! as cheap to produce as to copy out of a cache, which would hold a whole uncompressed body.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use actix_web::web::Bytes;
use tokio::sync::OnceCell;

use crate::error::Error;
use crate::hub::Snapshot;
use crate::hub::snapshot_body::Layout;
use crate::namespaces::Selection;

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

/// What a request asks for: the same key at the same position gets the same bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestKey {
    pub selection: Selection,
    pub search: Option<String>,
}

type Cell = Arc<OnceCell<Bytes>>;

struct Entry {
    key: RequestKey,
    /// The hub's position the body shows.
    position: u64,
    body: Cell,
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
    /// The body kept for `key` at `position`, without building anything: at once when it is
    /// there, after waiting when a request is building it, `None` when nobody is (the caller
    /// then builds the snapshot and calls [`SnapshotCache::gzip`]).
    pub async fn cached(&self, key: &RequestKey, position: u64) -> Option<Bytes> {
        let cell = self.find(key, position)?;
        if let Some(body) = cell.get() {
            hit();
            return Some(body.clone());
        }
        self.waiting.fetch_add(1, Ordering::SeqCst);
        // Waits for the build under way; when there is none (its request went away), the
        // failing initialiser leaves the cell empty and this request builds.
        let built = cell
            .get_or_try_init(|| async { Err(()) })
            .await
            .ok()
            .cloned();
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        if built.is_some() {
            hit();
        }
        built
    }

    /// The gzip body of `snapshot` for `key`, kept for the next requests at its position (a
    /// snapshot without one, not made from the watchers' memory, is encoded and not kept).
    pub async fn gzip(&self, key: RequestKey, snapshot: Snapshot) -> Result<Bytes, Error> {
        self.get_or_build(key, snapshot, gzip_snapshot).await
    }

    async fn get_or_build(
        &self,
        key: RequestKey,
        snapshot: Snapshot,
        encode: impl FnOnce(Snapshot) -> Bytes + Send + 'static,
    ) -> Result<Bytes, Error> {
        let cell = match snapshot.position {
            Some(position) => self.cell(key, position),
            None => Cell::default(),
        };
        if let Some(body) = cell.get() {
            hit();
            return Ok(body.clone());
        }
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let body = cell
            .get_or_try_init(|| async {
                self.builds.fetch_add(1, Ordering::SeqCst);
                metrics::counter!("ingress_dash_snapshot_cache_total", "result" => "miss")
                    .increment(1);
                // Compressing megabytes would hold up the worker's other requests. At shutdown
                // the runtime may cancel the task: the request then fails, nothing panics.
                tokio::task::spawn_blocking(move || encode(snapshot))
                    .await
                    .map_err(Error::SnapshotEncoding)
            })
            .await
            .cloned();
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        body
    }

    /// The cell kept for `key` at `position`, if any.
    fn find(&self, key: &RequestKey, position: u64) -> Option<Cell> {
        let now = self.clock.fetch_add(1, Ordering::Relaxed);
        let mut entries = self.lock();
        let entry = entries
            .iter_mut()
            .find(|entry| entry.key == *key && entry.position == position)?;
        entry.used = now;
        Some(entry.body.clone())
    }

    /// The cell of `key` at `position`: its entry when there is one, else a fresh entry in place
    /// of the key's older one. A request that made its snapshot before a newer position was
    /// cached gets a cell of its own, kept nowhere.
    fn cell(&self, key: RequestKey, position: u64) -> Cell {
        let now = self.clock.fetch_add(1, Ordering::Relaxed);
        let mut entries = self.lock();
        if let Some(index) = entries.iter().position(|entry| entry.key == key) {
            let entry = &mut entries[index];
            if entry.position == position {
                entry.used = now;
                return entry.body.clone();
            }
            if entry.position > position {
                return Cell::default();
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
        let body = Cell::default();
        entries.push(Entry {
            key,
            position,
            body: body.clone(),
            used: now,
        });
        body
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
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

fn hit() {
    metrics::counter!("ingress_dash_snapshot_cache_total", "result" => "hit").increment(1);
}

/// The snapshot's JSON, gzip-compressed at [`GZIP_LEVEL`].
pub fn gzip_snapshot(snapshot: Snapshot) -> Bytes {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(1 << 16),
        flate2::Compression::new(GZIP_LEVEL),
    );
    for chunk in snapshot.into_json_chunks(Layout::LinePerItem) {
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
