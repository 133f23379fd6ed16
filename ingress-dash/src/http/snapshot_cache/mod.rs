//! The gzip-encoded `GET /api/ingresses` body, built once per state of the hub and request.
//!
//! At 50,000 records the body is 60+ MiB of JSON: gzip-compressing it for every request (the
//! Compress middleware) took 350-650 ms each. Here the compressed body is kept for a request key
//! (the selection of namespaces and the search term) and the hub's position (`Hub::position`:
//! the id of the last change of the watchers' state, records, namespace errors and notices
//! alike), so a request whose key and position match is answered without building the
//! snapshot at all ([`SnapshotCache::cached`]). Concurrent identical requests wait for one
//! build (single flight); the request that starts a build gets the body streamed as it is
//! compressed ([`GzipBody::Building`]), so its client starts reading (and the web app parsing)
//! at once instead of after the whole compression (0.4-0.7 s at 50,000 records). At most
//! [`MAX_ENTRIES`] bodies are kept (least recently used out), and a key's stale body is dropped
//! as soon as a request brings a newer position.
//!
//! `service_kit::single_flight` is not used here: its waiters get the value once the load is
//! done, while the request that starts a build here must get the body as it is compressed.
//!
//! The identity body is not cached: it is a plain copy of the stored records, written in chunks,
//! as cheap to produce as to copy out of a cache, which would hold a whole uncompressed body.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use actix_web::web::Bytes;
use futures_util::Stream;
use tokio::sync::{OnceCell, mpsc};

use crate::error::Error;
use crate::http::snapshot_body::Layout;
use crate::hub::Snapshot;
use crate::hub::selection::Selection;

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
/// Level 3 halves the bytes every client downloads (the 10k body under 1 MB again) for
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
    /// Shared with the tasks that build (they outlive the request that started them).
    counters: Arc<Counters>,
}

#[derive(Default)]
struct Counters {
    /// Bodies encoded (test hook and metric).
    builds: AtomicU64,
    /// Requests waiting for a body being built, or building it (test hook).
    waiting: AtomicUsize,
}

/// Output of a build, sent while it runs: a part of the body, or the build's failure.
type Part = Result<Bytes, Error>;

/// A gzip body of `GET /api/ingresses`.
#[derive(Debug)]
pub enum GzipBody {
    /// Kept: the whole body.
    Whole(Bytes),
    /// Coming: the parts as they are compressed (the request started the build), or the whole
    /// body once another request's build of it is done; an `Err` part when the build failed.
    Building(mpsc::UnboundedReceiver<Part>),
}

impl GzipBody {
    /// The body as a response stream.
    pub fn into_stream(self) -> impl Stream<Item = Part> {
        let parts = match self {
            GzipBody::Whole(body) => {
                let (sender, receiver) = mpsc::unbounded_channel();
                let _ = sender.send(Ok(body));
                receiver
            }
            GzipBody::Building(receiver) => receiver,
        };
        futures_util::stream::unfold(parts, |mut parts| async move {
            parts.recv().await.map(|part| (part, parts))
        })
    }

    /// The whole body, once built.
    pub async fn whole(self) -> Result<Bytes, Error> {
        use futures_util::StreamExt;
        if let GzipBody::Whole(body) = self {
            return Ok(body);
        }
        let mut body = Vec::new();
        let mut parts = std::pin::pin!(self.into_stream());
        while let Some(part) = parts.next().await {
            body.extend_from_slice(&part?);
        }
        Ok(Bytes::from(body))
    }
}

impl std::fmt::Debug for SnapshotCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnapshotCache")
            .field("builds", &self.counters.builds.load(Ordering::Relaxed))
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
        self.counters.waiting.fetch_add(1, Ordering::SeqCst);
        // Waits for the build under way; when its task has not started yet, the failing
        // initialiser leaves the cell empty and this request makes its snapshot, whose build
        // then joins that one (one build either way).
        let built = cell
            .get_or_try_init(|| async { Err(()) })
            .await
            .ok()
            .cloned();
        self.counters.waiting.fetch_sub(1, Ordering::SeqCst);
        if built.is_some() {
            hit();
        }
        built
    }

    /// The gzip body of `snapshot` for `key`, kept for the next requests at its position (a
    /// snapshot without one, not made from the watchers' memory, is encoded and not kept).
    pub fn gzip(&self, key: RequestKey, snapshot: Snapshot) -> GzipBody {
        self.get_or_build(key, snapshot, gzip_snapshot_in_parts)
    }

    /// The kept body, or a build: started here (its parts stream to this request while they
    /// are compressed) or already running for the same key and position (waited for; its body
    /// then comes whole). A build runs to its end even when its request goes away, and its
    /// body is kept for the requests after it.
    fn get_or_build(
        &self,
        key: RequestKey,
        snapshot: Snapshot,
        encode: impl FnOnce(Snapshot, &mut dyn FnMut(Bytes)) -> Bytes + Send + 'static,
    ) -> GzipBody {
        let cell = match snapshot.position {
            Some(position) => self.cell(key, position),
            None => Cell::default(),
        };
        if let Some(body) = cell.get() {
            hit();
            return GzipBody::Whole(body.clone());
        }
        let (sender, receiver) = mpsc::unbounded_channel::<Part>();
        let counters = self.counters.clone();
        counters.waiting.fetch_add(1, Ordering::SeqCst);
        tokio::spawn(async move {
            let built_here = AtomicBool::new(false);
            let parts = sender.clone();
            let result = cell
                .get_or_try_init(|| async {
                    built_here.store(true, Ordering::SeqCst);
                    counters.builds.fetch_add(1, Ordering::SeqCst);
                    metrics::counter!("ingress_dash_snapshot_cache_total", "result" => "miss")
                        .increment(1);
                    // Compressing megabytes would hold up the worker's other requests. At
                    // shutdown the runtime may cancel the task: the request then fails with an
                    // `Err` part, nothing panics.
                    tokio::task::spawn_blocking(move || {
                        encode(snapshot, &mut |part| {
                            // A client gone does not stop the build.
                            let _ = parts.send(Ok(part));
                        })
                    })
                    .await
                    .map_err(Error::SnapshotEncoding)
                })
                .await
                .cloned();
            counters.waiting.fetch_sub(1, Ordering::SeqCst);
            match result {
                Ok(_) if built_here.load(Ordering::SeqCst) => {}
                Ok(body) => {
                    hit();
                    let _ = sender.send(Ok(body));
                }
                Err(error) => {
                    let _ = sender.send(Err(error));
                }
            }
        });
        GzipBody::Building(receiver)
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
        self.counters.builds.load(Ordering::SeqCst)
    }

    /// Requests now waiting for a body being built.
    pub fn waiting(&self) -> usize {
        self.counters.waiting.load(Ordering::SeqCst)
    }
}

fn hit() {
    metrics::counter!("ingress_dash_snapshot_cache_total", "result" => "hit").increment(1);
}

/// Compressed output handed on as a part once this much has gathered.
const PART_BYTES: usize = 64 * 1024;

/// The snapshot's JSON, gzip-compressed at [`GZIP_LEVEL`], each [`PART_BYTES`] or so of output
/// handed to `part` as it is made: the parts joined are the returned body.
fn gzip_snapshot_in_parts(snapshot: Snapshot, part: &mut dyn FnMut(Bytes)) -> Bytes {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(1 << 16),
        flate2::Compression::new(GZIP_LEVEL),
    );
    let mut handed = 0;
    for chunk in snapshot.into_json_chunks(Layout::LinePerItem) {
        encoder.write_all(&chunk).expect("writing to memory");
        let made = encoder.get_ref().len();
        if made - handed >= PART_BYTES {
            part(Bytes::copy_from_slice(&encoder.get_ref()[handed..]));
            handed = made;
        }
    }
    let body = encoder.finish().expect("writing to memory");
    if body.len() > handed {
        part(Bytes::copy_from_slice(&body[handed..]));
    }
    Bytes::from(body)
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
mod tests;
