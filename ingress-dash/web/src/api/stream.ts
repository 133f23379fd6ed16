// The SSE connection to `GET /api/ingresses/stream`: decodes named events, batches them per
// animation frame, and reports the connection state. It starts with the snapshot from
// `GET /api/ingresses` (gzip-compressed and cached by the server: about a twentieth of the bytes
// of the stream's own `snapshot` event) and opens the stream from that snapshot's `eventId`
// (`?lastEventId=`), so the stream carries only the changes after it; when the fetch fails or its
// body has no `eventId` (the server is still listing), the stream starts with its own snapshot.
// EventSource reconnects by itself after a dropped connection and sends `Last-Event-ID` (the
// server also ends each stream after its maximum lifetime, with `retry: 100`, so that the
// reconnect passes the sign-in proxy again: a drop mended within RECONNECT_QUIET_MS keeps the
// status "live"); when the server refuses the stream (an HTTP error closes an EventSource for good) this opens a new one
// with backoff, which starts from a snapshot.

import { openEventSource, type StreamSource } from "./eventSourceRelay";
import { STREAM_EVENT_TYPES, type StreamEvent, type StreamEventType } from "./events";
import type { ErrorBody } from "./wire";
import { decodeEvent, decodeRecord, decodeSnapshot } from "./decode";
import { readSnapshotJson } from "./snapshotBody";
import { markOnce } from "../lib/perfMarks";

/** A drop that lasts longer than this turns "reconnecting" into "stale". */
export const STALE_AFTER_MS = 10_000;
/** A live stream's drop is shown as "reconnecting" only when it lasts longer than this. */
export const RECONNECT_QUIET_MS = 1_000;
const BACKOFF_INITIAL_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;

export type ConnectionStatus =
  | { state: "connecting" }
  | { state: "live"; since: number }
  /** `since`: when the page last had a working stream; its data may be older than now. */
  | { state: "reconnecting"; since: number }
  | {
      state: "stale";
      since: number;
      retryAt: number | null;
      /** Why the server refused the stream, when it said so (status and error message). */
      reason?: string;
    };

export interface StreamHandlers {
  onEvents(events: StreamEvent[]): void;
  onStatus(status: ConnectionStatus): void;
}

export function streamUrl(namespaces: readonly string[]): string {
  if (namespaces.length === 0) return "/api/ingresses/stream";
  return `/api/ingresses/stream?namespaces=${namespaces.map(encodeURIComponent).join(",")}`;
}

/** The `GET /api/ingresses` URL of the same namespaces as the stream URL `url`. */
export function snapshotUrl(url: string): string {
  return url.replace("/api/ingresses/stream", "/api/ingresses");
}

/** The stream URL `url` resumed after the event `id`. */
export function resumeUrl(url: string, id: number): string {
  return `${url}${url.includes("?") ? "&" : "?"}lastEventId=${id}`;
}

/** A snapshot fetched with `GET /api/ingresses` and the id the stream resumes from. */
export interface FetchedSnapshot {
  event: Extract<StreamEvent, { type: "snapshot" }>;
  eventId: number;
}

/**
 * `GET /api/ingresses` (the browser asks for gzip by itself): the decoded snapshot and its
 * `eventId`, or null when the call fails, the body is not JSON, or it has no usable `eventId`.
 */
export async function fetchSnapshot(url: string, signal: AbortSignal): Promise<FetchedSnapshot | null> {
  try {
    const response = await fetch(url, { signal, headers: { accept: "application/json" } });
    if (!response.ok) return null;
    // Each record is filled to its full shape as soon as its line is parsed.
    const body = (await readSnapshotJson(response, decodeRecord)) as { eventId?: unknown } | null;
    const eventId = body?.eventId;
    if (typeof eventId !== "number" || !Number.isSafeInteger(eventId) || eventId < 0) return null;
    const event = { type: "snapshot" as const, data: decodeSnapshot(body, true) };
    markOnce("snapshot-parsed");
    return { event, eventId };
  } catch {
    // Offline, aborted, or not a snapshot: the stream brings its own.
    return null;
  }
}

/** A stream opened before the app mounted, waiting for the app to take it over. */
let early: { url: string; adopt(handlers: StreamHandlers): void; close(): void } | null = null;

/**
 * Opens the stream before React mounts (main.tsx), so the page's largest download starts while
 * the app renders its first frame; what arrives meanwhile is kept. The app's first
 * `openIngressStream` for the same URL takes it over; one for another URL closes it.
 */
export function preopenIngressStream(url: string): void {
  if (early) return;
  let target: StreamHandlers | null = null;
  let pending: StreamEvent[][] = [];
  let lastStatus: ConnectionStatus | null = null;
  const close = openStream(url, {
    onEvents(events) {
      if (target) return target.onEvents(events);
      // A snapshot replaces everything before it.
      if (events.some((e) => e.type === "snapshot")) pending = [];
      pending.push(events);
    },
    onStatus(status) {
      if (target) target.onStatus(status);
      else lastStatus = status;
    },
  });
  early = {
    url,
    close,
    adopt(handlers) {
      target = handlers;
      if (lastStatus) handlers.onStatus(lastStatus);
      const batches = pending;
      pending = [];
      for (const events of batches) handlers.onEvents(events);
    },
  };
}

/** Opens the stream (or takes over the one `preopenIngressStream` opened); returns a function that closes it. */
export function openIngressStream(url: string, handlers: StreamHandlers): () => void {
  const opened = early;
  early = null;
  if (opened?.url === url) {
    opened.adopt(handlers);
    return opened.close;
  }
  opened?.close();
  return openStream(url, handlers);
}

function openStream(url: string, handlers: StreamHandlers): () => void {
  let source: StreamSource | null = null;
  let closed = false;
  let queue: StreamEvent[] = [];
  let flushScheduled = false;
  let status: ConnectionStatus = { state: "connecting" };
  let lostAt: number | null = null;
  let staleTimer: ReturnType<typeof setTimeout> | undefined;
  let reconnectingTimer: ReturnType<typeof setTimeout> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let backoff = BACKOFF_INITIAL_MS;

  const setStatus = (next: ConnectionStatus) => {
    status = next;
    handlers.onStatus(next);
  };

  const flush = () => {
    flushScheduled = false;
    if (closed || queue.length === 0) return;
    const batch = queue;
    queue = [];
    markOnce("first-flush");
    handlers.onEvents(batch);
  };

  const controller = new AbortController();

  const scheduleFlush = (urgent: boolean) => {
    // A snapshot is applied at once: waiting for an animation frame after parsing megabytes
    // only delays the first paint (a frame may be long in coming after that much work).
    if (urgent) {
      flushScheduled = true;
      setTimeout(flush, 0);
      return;
    }
    if (flushScheduled) return;
    flushScheduled = true;
    // Hidden tabs get no animation frames; a timer still drains the queue there.
    if (typeof document !== "undefined" && document.visibilityState === "visible") requestAnimationFrame(flush);
    else setTimeout(flush, 250);
  };

  const enqueue = (event: StreamEvent) => {
    // A snapshot replaces everything before it: a hidden tab's queue stays bounded.
    if (event.type === "snapshot") queue = [];
    queue.push(event);
    scheduleFlush(event.type === "snapshot");
  };

  const markLive = () => {
    clearTimeout(staleTimer);
    clearTimeout(reconnectingTimer);
    lostAt = null;
    backoff = BACKOFF_INITIAL_MS;
    if (status.state !== "live") setStatus({ state: "live", since: Date.now() });
  };

  const markLost = (permanent: boolean) => {
    const firstLoss = lostAt === null;
    const since = lostAt ?? (status.state === "live" ? Date.now() : statusSince(status) ?? Date.now());
    lostAt = since;
    if (permanent) {
      const delay = backoff;
      backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
      setStatus({ state: "stale", since, retryAt: Date.now() + delay });
      clearTimeout(retryTimer);
      retryTimer = setTimeout(() => connect(), delay);
      // EventSource hides the HTTP status; ask once more with fetch to say why (429, 400, 5xx).
      void explainRefusal(url).then((refusal) => {
        if (closed || !refusal || status.state !== "stale" || status.since !== since) return;
        const wait = refusal.retryAfterMs ?? delay;
        clearTimeout(retryTimer);
        retryTimer = setTimeout(() => connect(), wait);
        setStatus({ state: "stale", since, retryAt: Date.now() + wait, reason: refusal.reason });
      });
      return;
    }
    if (status.state === "stale") return;
    if (status.state !== "live") {
      setStatus({ state: "reconnecting", since });
    } else if (firstLoss) {
      // The end of a stream's lifetime: the browser is back within `retry: 100`. Later errors
      // of the same drop leave this timer be.
      reconnectingTimer = setTimeout(() => {
        if (!closed && lostAt === since && status.state === "live") setStatus({ state: "reconnecting", since });
      }, RECONNECT_QUIET_MS);
    }
    clearTimeout(staleTimer);
    staleTimer = setTimeout(() => {
      if (!closed && status.state === "reconnecting") setStatus({ state: "stale", since, retryAt: null });
    }, Math.max(0, since + STALE_AFTER_MS - Date.now()));
  };

  const listener = (type: StreamEventType) => (event: Event) => {
    // The stream's own `error` event shares its name with EventSource's connection error;
    // only a MessageEvent carries data.
    if (!(event instanceof MessageEvent)) return;
    if (type === "snapshot") markOnce("snapshot-received");
    try {
      // decodeEvent fills in the empty parts the server leaves out of records.
      enqueue(decodeEvent(type, JSON.parse(event.data as string)));
      if (type === "snapshot") markOnce("snapshot-parsed");
    } catch (err) {
      console.warn(`ingress-dash: undecodable ${type} event`, err);
    }
    if (status.state !== "live") markLive();
  };

  /** Opens the stream, from the event `resumeAfter` when the page has the state through it. */
  function connect(resumeAfter: number | null = null) {
    if (closed) return;
    source?.close();
    markOnce("stream-open");
    // In a worker where the page can start one (eventSourceRelay.ts): receiving a large
    // snapshot then costs the page's thread only the copy of its text.
    const es = openEventSource(resumeAfter === null ? url : resumeUrl(url, resumeAfter), STREAM_EVENT_TYPES);
    source = es;
    es.addEventListener("open", () => {
      if (source === es) markLive();
    });
    for (const type of STREAM_EVENT_TYPES) es.addEventListener(type, listener(type));
    es.addEventListener("error", (event) => {
      if (source !== es || closed || event instanceof MessageEvent) return;
      markLost(es.readyState === EventSource.CLOSED);
    });
  }

  const onOnline = () => {
    // Back from offline: try at once rather than waiting out the backoff.
    if (!closed && source?.readyState === EventSource.CLOSED) {
      clearTimeout(retryTimer);
      connect();
    }
  };
  if (typeof window !== "undefined") window.addEventListener("online", onOnline);

  setStatus(status);
  // The snapshot first, then the stream from its position. The snapshot is queued before the
  // stream opens, so every event the stream brings comes after it in the same queue: nothing
  // is lost or applied twice.
  void fetchSnapshot(snapshotUrl(url), controller.signal).then((fetched) => {
    if (closed) return;
    if (fetched) enqueue(fetched.event);
    connect(fetched?.eventId ?? null);
  });

  return () => {
    closed = true;
    controller.abort();
    clearTimeout(staleTimer);
    clearTimeout(reconnectingTimer);
    clearTimeout(retryTimer);
    if (typeof window !== "undefined") window.removeEventListener("online", onOnline);
    source?.close();
    source = null;
    queue = [];
  };
}

interface Refusal {
  reason: string;
  retryAfterMs: number | null;
}

/** The status and common error body of a refused stream request, or null if it now works. */
async function explainRefusal(url: string): Promise<Refusal | null> {
  const controller = new AbortController();
  try {
    const response = await fetch(url, { signal: controller.signal, headers: { accept: "text/event-stream" } });
    if (response.ok) return null;
    let message = response.statusText;
    try {
      const body = (await response.json()) as Partial<ErrorBody>;
      if (body.error?.message) message = body.error.message;
    } catch {
      // Not the common error body (a proxy's page): the status says enough.
    }
    const retryAfter = Number(response.headers.get("retry-after"));
    return {
      reason: `HTTP ${response.status}${message ? `: ${message}` : ""}`,
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, BACKOFF_MAX_MS) : null,
    };
  } catch {
    return null;
  } finally {
    controller.abort();
  }
}

function statusSince(status: ConnectionStatus): number | null {
  return status.state === "connecting" ? null : status.since;
}
