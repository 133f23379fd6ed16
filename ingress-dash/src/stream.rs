//! `GET /api/ingresses/stream`: the SSE wire format and one task per client.
//!
//! Wire format (docs/api/ingress-dash.md): `retry: <ms>` first, then events as
//! `event: <name>\nid: <id>\ndata: <json>\n\n`, and `: heartbeat\n\n` comments. The client's
//! task reads the hub's bounded broadcast; when it falls behind (a slow client), it gets a
//! `resync` and a fresh `snapshot` instead of unbounded buffering.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use actix_web::web::Bytes;
use service_kit::server::ShutdownNotice;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;

use crate::hub::{Hub, ResyncNotice, Start, Subscription};
use crate::namespaces::Selection;

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

/// Starts the client's task, which holds `subscription` (the watchers of `selection`) for as
/// long as the client stays, and returns its body.
pub(crate) fn open(
    hub: Arc<Hub>,
    selection: Selection,
    subscription: Subscription,
    last_event_id: Option<u64>,
    options: StreamOptions,
    slot: ClientSlot,
    shutdown: ShutdownNotice,
) -> ReceiverStream<Result<Bytes, Infallible>> {
    // Small: the broadcast is the real buffer; this only smooths writes.
    let (sender, body) = mpsc::channel(16);
    tokio::spawn(async move {
        let _slot = slot;
        // On SIGTERM the body ends, so the server stops at once instead of waiting out its
        // shutdown time-out, and the browser reconnects (to another replica) after `retry`.
        tokio::select! {
            _ = run(hub, selection, subscription, last_event_id, options, sender) => {}
            _ = shutdown.stopping() => {}
        }
    });
    ReceiverStream::new(body)
}

struct Closed;

struct Client {
    sender: mpsc::Sender<Result<Bytes, Infallible>>,
}

impl Client {
    async fn send(&self, bytes: Bytes) -> Result<(), Closed> {
        self.sender.send(Ok(bytes)).await.map_err(|_| Closed)
    }

    async fn send_event(&self, name: &str, id: u64, data: &[u8]) -> Result<(), Closed> {
        self.send(event(name, id, data)).await?;
        metrics::counter!("ingress_dash_stream_events_sent_total", "event" => name.to_owned())
            .increment(1);
        Ok(())
    }

    async fn send_start(&self, start: Start, reason: &str) -> Result<(), Closed> {
        match start {
            Start::Snapshot {
                resync_id,
                id,
                snapshot,
            } => {
                if let Some(resync_id) = resync_id {
                    let data = serde_json::to_string(&ResyncNotice { reason })
                        .expect("a notice serialises");
                    self.send_event("resync", resync_id, data.as_bytes())
                        .await?;
                }
                // Written a chunk at a time, like `GET /api/ingresses`: a 10k snapshot is
                // megabytes, and a client may connect while others are still reading theirs.
                self.send(event_head("snapshot", id)).await?;
                for chunk in snapshot.into_json_chunks() {
                    self.send(chunk).await?;
                }
                self.send(Bytes::from_static(b"\n\n")).await?;
                metrics::counter!("ingress_dash_stream_events_sent_total", "event" => "snapshot")
                    .increment(1);
                Ok(())
            }
            Start::Replay(events) => {
                for event in events {
                    self.send_event(event.kind.name(), event.id, &event.data)
                        .await?;
                }
                Ok(())
            }
        }
    }
}

async fn run(
    hub: Arc<Hub>,
    selection: Selection,
    subscription: Subscription,
    last_event_id: Option<u64>,
    options: StreamOptions,
    sender: mpsc::Sender<Result<Bytes, Infallible>>,
) -> Result<(), Closed> {
    let client = Client { sender };
    client.send(retry_field(options.retry)).await?;
    let scopes = subscription.scopes.clone();
    hub.wait_settled(&scopes, options.settle_timeout).await;
    let (start, mut receiver) = hub.start(&selection, &scopes, last_event_id);
    client
        .send_start(start, "the missed events are no longer available")
        .await?;
    let mut heartbeat = tokio::time::interval_at(
        tokio::time::Instant::now() + options.heartbeat,
        options.heartbeat,
    );
    loop {
        tokio::select! {
            _ = client.sender.closed() => return Err(Closed),
            _ = heartbeat.tick() => client.send(Bytes::from_static(HEARTBEAT)).await?,
            received = receiver.recv() => match received {
                Ok(event) => {
                    if event.is_for(&scopes, &selection) {
                        client.send_event(event.kind.name(), event.id, &event.data).await?;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    metrics::counter!("ingress_dash_stream_resyncs_total").increment(1);
                    tracing::info!(missed, "stream client too slow; resyncing");
                    let resync_id = hub.next_id();
                    let notice = ResyncNotice {
                        reason: "slow client: events were dropped",
                    };
                    let data = serde_json::to_string(&notice).expect("a notice serialises");
                    client.send_event("resync", resync_id, data.as_bytes()).await?;
                    let (start, fresh) = hub.start(&selection, &scopes, None);
                    receiver = fresh;
                    client.send_start(start, "").await?;
                }
                Err(broadcast::error::RecvError::Closed) => return Ok(()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;
    use futures_util::future::BoxFuture;
    use k8s_openapi::api::networking::v1::Ingress;
    use kube::api::WatchEvent;
    use serde_json::json;

    use super::*;
    use crate::hub::{HubSettings, WatchSettings};
    use crate::kube_api::{IngressPage, KubeApi, KubeError, WatchEvents};
    use crate::resilience::Resilience;

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
    type Body = ReceiverStream<Result<Bytes, Infallible>>;

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
                redaction: Arc::new(crate::redaction::Redaction::none()),
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
        let mut text = String::new();
        while !(text.contains("event: snapshot") && text.ends_with("\n\n")) {
            let Some(Ok(bytes)) = body.next().await else {
                panic!("stream ended")
            };
            text.push_str(std::str::from_utf8(&bytes).unwrap());
        }
        text
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
        let text = read_through_snapshot(&mut body).await;
        assert!(text.contains("event: resync"), "{text}");
        let snapshot = text.rsplit("event: snapshot\n").next().unwrap();
        assert_eq!(
            snapshot.matches("\"uid\":").count(),
            100,
            "the fresh snapshot has everything"
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
