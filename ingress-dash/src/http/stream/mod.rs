//! `GET /api/ingresses/stream`: the SSE wire format and each client's body.
//!
//! Wire format (docs/api/ingress-dash.md): `retry: <ms>` first, then events as
//! `event: <name>\nid: <id>\ndata: <json>\n\n`, and `: heartbeat\n\n` comments. Each client's
//! body reads the hub's bounded broadcast as the connection writes it; when it falls behind (a
//! slow client), it gets a `resync` and a fresh `snapshot` instead of unbounded buffering.
//! After its lifetime ([`lifetime`]) a stream ends between two events.

mod lifetime;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use actix_web::web::Bytes;
use futures_util::Stream;
use service_kit::server::ShutdownNotice;
use tokio::sync::broadcast;

use crate::http::snapshot_body::{CHUNK_BYTES, JsonChunks, Layout};
use crate::hub::selection::Selection;
use crate::hub::{Hub, HubEvent, ResyncNotice, Scope, Start, Subscription};

/// How many bytes a connection gathers before it writes them (actix's default is 32 KiB).
///
/// A connection's write buffer starts at 8 KiB and keeps whatever it grew to for as long as the
/// connection lives (actix-http lets go of it only above 128 KiB). A stream client stays
/// connected for hours, so a buffer grown once by its snapshot would be kept: with 32 KiB here
/// and 32 KiB snapshot chunks, 1,000 clients held about 60 KiB each (measured at 10k ingresses),
/// with 4 KiB and 2 KiB chunks 14-24 KiB. Large bodies (`GET /api/ingresses`) are written a
/// chunk per write whatever this is, as their chunks are larger than it.
pub(crate) const WRITE_BUFFER_BYTES: usize = 4 * 1024;

/// The size the stream's `snapshot` event is written in (a chunk may overrun it by one record),
/// unless it has more than [`LARGE_SNAPSHOT_ITEMS`].
const SNAPSHOT_CHUNK_BYTES: usize = 2 * 1024;

/// A snapshot with more records than this is written in the 32 KiB chunks of `GET
/// /api/ingresses`: one write per chunk instead of one per ~4 KiB (at 50,000 records the whole
/// snapshot took 315 ms and 225 ms of the server's CPU in small chunks, 201 and 175 ms in
/// these), for the price of a buffer of about 40 KiB kept by that client's connection. A
/// client of a namespace or a few gets small chunks; one that receives thousands of records is
/// rare and costs far more than its buffer anyway.
const LARGE_SNAPSHOT_ITEMS: usize = 1_000;

/// The chunk size of a stream `snapshot` event with `items` records.
fn snapshot_chunk_bytes(items: usize) -> usize {
    if items > LARGE_SNAPSHOT_ITEMS {
        CHUNK_BYTES
    } else {
        SNAPSHOT_CHUNK_BYTES
    }
}

/// A buffer filled to just under [`WRITE_BUFFER_BYTES`], then given one snapshot chunk (with a
/// typical record, about 1.3 KB, overrunning it) and its chunk header, still fits in the 8 KiB a
/// connection starts with.
const _: () = assert!(WRITE_BUFFER_BYTES + SNAPSHOT_CHUNK_BYTES + 1536 + 16 <= 8 * 1024);

pub(crate) fn retry_field(retry: Duration) -> Bytes {
    Bytes::from(format!("retry: {}\n\n", retry.as_millis()))
}

/// `event:`, `id:` and the start of the `data:` line; the data and a blank line must follow.
fn event_head(name: &str, id: u64) -> Bytes {
    Bytes::from(format!("event: {name}\nid: {id}\ndata: "))
}

pub(crate) fn event(name: &str, id: u64, data: &[u8]) -> Bytes {
    let mut bytes = Vec::with_capacity(data.len() + name.len() + 40);
    bytes.extend_from_slice(&event_head(name, id));
    bytes.extend_from_slice(data);
    bytes.extend_from_slice(b"\n\n");
    Bytes::from(bytes)
}

pub(crate) const HEARTBEAT: &[u8] = b": heartbeat\n\n";

/// A `Last-Event-ID` (or `lastEventId`) sent by a client: the decimal id of an event this
/// service wrote, surrounding blanks allowed. Anything else (signs, other digits, an overflow,
/// a text) is `None`, and the client simply gets a fresh snapshot.
pub fn parse_event_id(text: &str) -> Option<u64> {
    let digits = text.trim_matches([' ', '\t']);
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[derive(Debug, Clone)]
pub(crate) struct StreamOptions {
    pub(crate) heartbeat: Duration,
    pub(crate) retry: Duration,
    /// How long a new client waits for its watchers' first lists before its snapshot.
    pub(crate) settle_timeout: Duration,
    /// `stream.max_lifetime`.
    pub(crate) max_lifetime: Duration,
}

/// Counts open streams against the configured maximum.
#[derive(Debug, Default)]
pub struct ClientCounter(AtomicUsize);

pub(crate) struct ClientSlot(Arc<ClientCounter>);

impl ClientCounter {
    pub(crate) fn try_acquire(self: &Arc<Self>, max: usize) -> Option<ClientSlot> {
        let acquired = self
            .0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |open| {
                (open < max).then_some(open + 1)
            })
            .is_ok();
        acquired.then(|| {
            metrics::gauge!("ingress_dash_stream_clients").increment(1.0);
            ClientSlot(self.clone())
        })
    }

    pub fn open(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        self.0.0.fetch_sub(1, Ordering::SeqCst);
        metrics::gauge!("ingress_dash_stream_clients").decrement(1.0);
    }
}

/// A client's body: it holds `subscription` (the watchers of `selection`) and its slot for as
/// long as the client stays, and is polled by the server's connection task itself: an event
/// wakes one task per client and is written from the hub's shared bytes, with no task or
/// channel of its own in between.
pub(crate) fn open(
    hub: Arc<Hub>,
    selection: Selection,
    subscription: Subscription,
    last_event_id: Option<u64>,
    options: StreamOptions,
    slot: ClientSlot,
    shutdown: ShutdownNotice,
) -> Body {
    let scopes = subscription.scopes.clone();
    let heartbeat = tokio::time::interval_at(
        tokio::time::Instant::now() + options.heartbeat,
        options.heartbeat,
    );
    let client = Client {
        hub,
        selection,
        scopes,
        _subscription: subscription,
        _slot: slot,
        // On SIGTERM the body ends, so the server stops at once instead of waiting out its
        // shutdown time-out, and the browser reconnects (to another replica) after `retry`.
        stopping: Box::pin(async move { shutdown.stopping().await }),
        heartbeat,
        lifetime: lifetime::deadline(options.max_lifetime),
        options,
        phase: Phase::Opening { last_event_id },
        queued: VecDeque::new(),
        snapshot: None,
    };
    Box::pin(futures_util::stream::unfold(
        client,
        |mut client| async move {
            let bytes = client.next().await?;
            Some((Ok(bytes), client))
        },
    ))
}

/// The body of a stream response.
pub(crate) type Body = Pin<Box<dyn Stream<Item = Result<Bytes, Infallible>> + Send>>;

enum Phase {
    /// Nothing sent yet.
    Opening {
        last_event_id: Option<u64>,
    },
    /// `retry` sent: waiting for the watchers' first lists, then the start.
    Settling {
        last_event_id: Option<u64>,
    },
    /// Reading the hub's events.
    Live {
        receiver: broadcast::Receiver<Arc<HubEvent>>,
    },
    Ended,
}

struct Client {
    hub: Arc<Hub>,
    selection: Selection,
    scopes: Vec<Scope>,
    _subscription: Subscription,
    _slot: ClientSlot,
    options: StreamOptions,
    stopping: Pin<Box<dyn Future<Output = ()> + Send>>,
    heartbeat: tokio::time::Interval,
    /// Passes when the stream has lived its lifetime.
    lifetime: Pin<Box<tokio::time::Sleep>>,
    phase: Phase,
    /// Bytes to write before reading on.
    queued: VecDeque<Bytes>,
    /// A `snapshot` event being written a chunk at a time, like `GET /api/ingresses`: a 10k
    /// snapshot is megabytes, and a client may connect while others are still reading theirs.
    snapshot: Option<JsonChunks>,
}

impl Client {
    /// The next bytes of the body, `None` at its end.
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            if let Some(bytes) = self.queued.pop_front() {
                return Some(bytes);
            }
            if let Some(chunks) = &mut self.snapshot {
                match chunks.next() {
                    Some(chunk) => return Some(chunk),
                    None => {
                        self.snapshot = None;
                        sent("snapshot");
                        return Some(Bytes::from_static(b"\n\n"));
                    }
                }
            }
            match std::mem::replace(&mut self.phase, Phase::Ended) {
                Phase::Ended => return None,
                Phase::Opening { last_event_id } => {
                    self.phase = Phase::Settling { last_event_id };
                    return Some(retry_field(self.options.retry));
                }
                Phase::Settling { last_event_id } => {
                    let settled = self
                        .hub
                        .wait_settled(&self.scopes, self.options.settle_timeout);
                    tokio::select! {
                        _ = &mut self.stopping => return None,
                        _ = settled => {}
                    }
                    let (start, receiver) =
                        self.hub.start(&self.selection, &self.scopes, last_event_id);
                    self.queue_start(start, "the missed events are no longer available");
                    self.phase = Phase::Live { receiver };
                }
                Phase::Live { mut receiver } => {
                    let bytes = tokio::select! {
                        _ = &mut self.stopping => return None,
                        // The phase stays Ended: after this `retry:`, the body ends.
                        _ = &mut self.lifetime => return Some(retry_field(lifetime::RESUME_RETRY)),
                        _ = self.heartbeat.tick() => Some(Bytes::from_static(HEARTBEAT)),
                        received = receiver.recv() => match received {
                            Ok(event) => event
                                .is_for(&self.scopes, &self.selection)
                                .then(|| {
                                    sent(event.kind.name());
                                    frame(&event)
                                }),
                            Err(broadcast::error::RecvError::Lagged(missed)) => {
                                metrics::counter!("ingress_dash_stream_resyncs_total").increment(1);
                                tracing::info!(missed, "stream client too slow; resyncing");
                                let resync_id = self.hub.next_id();
                                self.queue_resync(resync_id, "slow client: events were dropped");
                                let (start, fresh) = self.hub.start(&self.selection, &self.scopes, None);
                                receiver = fresh;
                                self.queue_start(start, "");
                                None
                            }
                            Err(broadcast::error::RecvError::Closed) => return None,
                        },
                    };
                    self.phase = Phase::Live { receiver };
                    if bytes.is_some() {
                        return bytes;
                    }
                }
            }
        }
    }

    fn queue_resync(&mut self, id: u64, reason: &str) {
        let data = serde_json::to_string(&ResyncNotice { reason }).expect("a notice serialises");
        self.queued.push_back(event("resync", id, data.as_bytes()));
        sent("resync");
    }

    fn queue_start(&mut self, start: Start, reason: &str) {
        match start {
            Start::Snapshot {
                resync_id,
                id,
                snapshot,
            } => {
                if let Some(resync_id) = resync_id {
                    self.queue_resync(resync_id, reason);
                }
                self.queued.push_back(event_head("snapshot", id));
                let chunk_bytes = snapshot_chunk_bytes(snapshot.items.len());
                self.snapshot = Some(snapshot.into_json_chunks_of(Layout::OneLine, chunk_bytes));
            }
            Start::Replay(events) => {
                for event in events {
                    sent(event.kind.name());
                    self.queued.push_back(frame(&event));
                }
            }
        }
    }
}

/// An event's whole SSE frame. Built once per event and shared by every client that gets it
/// (the first client to write it builds it).
fn frame(event: &HubEvent) -> Bytes {
    event
        .frame
        .get_or_init(|| self::event(event.kind.name(), event.id, &event.data))
        .clone()
}

/// Counts one event sent, by name, without building the metric's key each time.
fn sent(name: &'static str) {
    static COUNTERS: OnceLock<Vec<(&'static str, metrics::Counter)>> = OnceLock::new();
    let counters = COUNTERS.get_or_init(|| {
        EVENT_NAMES
            .iter()
            .map(|name| {
                let counter =
                    metrics::counter!("ingress_dash_stream_events_sent_total", "event" => *name);
                (*name, counter)
            })
            .collect()
    });
    match counters.iter().find(|(known, _)| *known == name) {
        Some((_, counter)) => counter.increment(1),
        None => {
            metrics::counter!("ingress_dash_stream_events_sent_total", "event" => name).increment(1)
        }
    }
}

const EVENT_NAMES: [&str; 7] = [
    "snapshot",
    "added",
    "modified",
    "deleted",
    "error",
    "recovered",
    "resync",
];

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;
    use futures_util::future::BoxFuture;
    use k8s_openapi::api::networking::v1::Ingress;
    use kube::api::WatchEvent;
    use serde_json::json;

    use tokio::sync::mpsc;

    use super::*;
    use crate::hub::{HubSettings, WatchSettings};
    use crate::kube::client::{IngressPage, KubeApi, KubeError, WatchEvents};
    use crate::kube::resilience::Resilience;

    /// A Kubernetes API whose one watch the test feeds by hand (its list is empty).
    type Feed = mpsc::UnboundedReceiver<Result<WatchEvent<Ingress>, KubeError>>;

    struct HandFedApi(std::sync::Mutex<Option<Feed>>);

    impl KubeApi for HandFedApi {
        fn list_namespaces(&self, _: Option<u32>) -> BoxFuture<'_, Result<Vec<String>, KubeError>> {
            Box::pin(async { Ok(Vec::new()) })
        }

        fn list_ingresses(
            &self,
            _: Option<String>,
        ) -> BoxFuture<'_, Result<Vec<Ingress>, KubeError>> {
            Box::pin(async { Ok(Vec::new()) })
        }

        fn list_ingress_page(
            &self,
            _: Option<String>,
            _: Option<String>,
        ) -> BoxFuture<'_, Result<IngressPage, KubeError>> {
            Box::pin(async {
                Ok(IngressPage {
                    resource_version: "1".into(),
                    ..IngressPage::default()
                })
            })
        }

        fn watch_ingresses(
            &self,
            _: Option<String>,
            _: String,
        ) -> BoxFuture<'_, Result<WatchEvents, KubeError>> {
            let receiver = self.0.lock().unwrap().take().expect("one watch");
            Box::pin(async {
                Ok(tokio_stream::wrappers::UnboundedReceiverStream::new(receiver).boxed())
            })
        }
    }

    fn ingress(name: &str, version: u32) -> Ingress {
        serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "a", "uid": name, "resourceVersion": version.to_string()},
        }))
        .unwrap()
    }

    type FeedSender = mpsc::UnboundedSender<Result<WatchEvent<Ingress>, KubeError>>;

    /// A stream client of namespace `a`, whose watch the test feeds through the returned sender
    /// (already listed, empty) and whose shutdown notice it sets off with the returned trigger.
    fn open_hand_fed_stream() -> (FeedSender, tokio::sync::watch::Sender<bool>, Body, Arc<Hub>) {
        let (feed, receiver) = mpsc::unbounded_channel();
        let api = Arc::new(HandFedApi(std::sync::Mutex::new(Some(receiver))));
        let hub = Hub::new(
            api,
            HubSettings {
                grace_period: Duration::from_secs(1),
                replay_buffer: 8,
                client_buffer: 8,
                namespaces: vec!["a".into()],
                max_watchers: 1,
                redaction: Arc::new(crate::access::redaction::Redaction::none()),
                resilience: Resilience::new(&Default::default()),
                watch: WatchSettings {
                    permanent_error_retry: Duration::from_secs(300),
                    idle_timeout: Duration::from_secs(300),
                },
                features: Default::default(),
            },
        );
        let options = StreamOptions {
            heartbeat: Duration::from_secs(15),
            retry: Duration::from_secs(3),
            settle_timeout: Duration::from_secs(5),
            max_lifetime: Duration::from_secs(300),
        };
        let slot = Arc::new(ClientCounter::default()).try_acquire(1).unwrap();
        let (stop, shutdown) = ShutdownNotice::channel();
        let subscription = hub.subscribe(&Selection::All).unwrap();
        let body = open(
            hub.clone(),
            Selection::All,
            subscription,
            None,
            options,
            slot,
            shutdown,
        );
        (feed, stop, body, hub)
    }

    /// Reads until a whole `snapshot` event has arrived.
    async fn read_through_snapshot(body: &mut Body) -> String {
        read_pieces_through_snapshot(body).await.0
    }

    /// The same, with the size of each piece of the body as it was handed to the connection.
    async fn read_pieces_through_snapshot(body: &mut Body) -> (String, Vec<usize>) {
        let (mut text, mut pieces) = (String::new(), Vec::new());
        while !(text.contains("event: snapshot") && text.ends_with("\n\n")) {
            let Some(Ok(bytes)) = body.next().await else {
                panic!("stream ended")
            };
            pieces.push(bytes.len());
            text.push_str(std::str::from_utf8(&bytes).unwrap());
        }
        (text, pieces)
    }

    #[tokio::test]
    async fn the_stream_ends_when_the_server_stops() {
        let (_feed, stop, mut body, _hub) = open_hand_fed_stream();
        read_through_snapshot(&mut body).await;
        stop.send_replace(true);
        let end = tokio::time::timeout(Duration::from_secs(5), body.next()).await;
        assert!(matches!(end, Ok(None)), "the body did not end on shutdown");
    }

    #[tokio::test]
    async fn a_slow_client_is_resynced_with_bounded_memory() {
        let (feed, _stop, mut body, hub) = open_hand_fed_stream();
        read_through_snapshot(&mut body).await;
        // The client reads nothing while 100 changes happen: far more than its buffers hold.
        for version in 0..100 {
            feed.send(Ok(WatchEvent::Added(ingress(
                &format!("i{version}"),
                version,
            ))))
            .unwrap();
        }
        // Until the hub has published them all (with a deadline).
        let applied = async {
            while hub.snapshot(&Selection::All, None).items.len() < 100 {
                tokio::task::yield_now().await;
            }
        };
        tokio::time::timeout(Duration::from_secs(5), applied)
            .await
            .expect("the hub applied the 100 changes");
        let (text, pieces) = read_pieces_through_snapshot(&mut body).await;
        assert!(text.contains("event: resync"), "{text}");
        let snapshot = text.rsplit("event: snapshot\n").next().unwrap();
        assert_eq!(
            snapshot.matches("\"uid\":").count(),
            100,
            "the fresh snapshot has everything"
        );
        // Written in small pieces, so the connection's write buffer never grows past the 8 KiB
        // it starts with (and keeps for as long as the client stays): about 2 KiB, overrun by
        // at most one record.
        let starts: Vec<usize> = snapshot
            .match_indices("\"uid\":")
            .map(|(at, _)| at)
            .collect();
        let largest_record = starts
            .windows(2)
            .map(|pair| pair[1] - pair[0])
            .max()
            .unwrap();
        assert!(
            snapshot.len() > 4 * SNAPSHOT_CHUNK_BYTES,
            "{}",
            snapshot.len()
        );
        assert!(
            pieces
                .iter()
                .all(|&piece| piece < SNAPSHOT_CHUNK_BYTES + largest_record + 16),
            "pieces {pieces:?}, largest record {largest_record}"
        );
    }

    #[test]
    fn only_a_snapshot_of_thousands_of_records_is_written_in_large_chunks() {
        assert_eq!(snapshot_chunk_bytes(0), SNAPSHOT_CHUNK_BYTES);
        assert_eq!(
            snapshot_chunk_bytes(LARGE_SNAPSHOT_ITEMS),
            SNAPSHOT_CHUNK_BYTES
        );
        assert_eq!(snapshot_chunk_bytes(LARGE_SNAPSHOT_ITEMS + 1), CHUNK_BYTES);
    }

    #[test]
    fn an_events_frame_is_built_once_and_shared_by_every_client() {
        let hub_event = HubEvent {
            id: 7,
            scope: Scope::Namespace("a".into()),
            namespace: "a".into(),
            kind: crate::hub::EventKind::Modified,
            data: Bytes::from_static(br#"{"name":"web"}"#),
            frame: Default::default(),
        };
        let (first, second) = (frame(&hub_event), frame(&hub_event));
        assert_eq!(first, event("modified", 7, br#"{"name":"web"}"#));
        assert_eq!(
            first.as_ptr(),
            second.as_ptr(),
            "the same bytes, not a copy"
        );
    }

    #[test]
    fn wire_format_is_exact() {
        assert_eq!(
            retry_field(Duration::from_secs(3)),
            Bytes::from_static(b"retry: 3000\n\n")
        );
        assert_eq!(
            event("added", 42, br#"{"a":1}"#),
            Bytes::from_static(b"event: added\nid: 42\ndata: {\"a\":1}\n\n")
        );
        assert_eq!(HEARTBEAT, b": heartbeat\n\n");
    }
}
