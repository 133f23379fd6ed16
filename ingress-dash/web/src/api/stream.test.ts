import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { jsonResponse, stubFetch } from "../test/fetch";
import { ingress } from "../test/fixtures";
import { openIngressStream, preopenIngressStream, RECONNECT_QUIET_MS, STALE_AFTER_MS, streamUrl, type ConnectionStatus } from "./stream";
import type { StreamEvent } from "./events";

/** Just enough of EventSource to drive the client as a browser would. */
class FakeEventSource extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static instances: FakeEventSource[] = [];
  readyState = FakeEventSource.CONNECTING;
  closed = false;
  constructor(readonly url: string) {
    super();
    FakeEventSource.instances.push(this);
  }
  open() {
    this.readyState = FakeEventSource.OPEN;
    this.dispatchEvent(new Event("open"));
  }
  emit(type: string, data: unknown) {
    this.dispatchEvent(new MessageEvent(type, { data: JSON.stringify(data) }));
  }
  /** A dropped connection the browser will retry (CONNECTING) or a refused one (CLOSED). */
  fail(readyState: number) {
    this.readyState = readyState;
    this.dispatchEvent(new Event("error"));
  }
  close() {
    this.closed = true;
    this.readyState = FakeEventSource.CLOSED;
  }
}

describe("stream client", () => {
  let events: StreamEvent[][];
  let statuses: ConnectionStatus[];
  let close: () => void;

  beforeEach(async () => {
    vi.useFakeTimers();
    vi.stubGlobal("EventSource", FakeEventSource);
    // The snapshot fetch and the refusal probe find nothing unless a test says otherwise.
    stubFetch(() => Promise.reject(new TypeError("network down")));
    FakeEventSource.instances = [];
    events = [];
    statuses = [];
    close = openIngressStream("/api/ingresses/stream", {
      onEvents: (batch) => events.push(batch),
      onStatus: (status) => statuses.push(status),
    });
    // The failed snapshot fetch: the stream opens as before, with its own snapshot.
    await vi.advanceTimersByTimeAsync(0);
  });

  afterEach(() => {
    close();
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  const source = () => FakeEventSource.instances.at(-1)!;
  const state = () => statuses.at(-1)?.state;

  it("builds the stream URL from the namespace filter", () => {
    expect(streamUrl([])).toBe("/api/ingresses/stream");
    expect(streamUrl(["a", "b"])).toBe("/api/ingresses/stream?namespaces=a,b");
  });

  it("starts connecting, is live once open, and batches decoded events", async () => {
    expect(state()).toBe("connecting");
    source().open();
    expect(state()).toBe("live");
    const record = ingress({ name: "web" });
    source().emit("snapshot", { items: [record], errors: [], notices: [], expiryWarningDays: 14 });
    source().emit("added", record);
    source().emit("error", { namespace: "ops", code: "forbidden", message: "no" });
    expect(events).toEqual([]);
    await vi.advanceTimersByTimeAsync(300);
    expect(events).toHaveLength(1);
    expect(events[0]!.map((e) => e.type)).toEqual(["snapshot", "added", "error"]);
  });

  it("the stream's own error event is data, not a connection failure", async () => {
    source().open();
    source().emit("error", { namespace: "ops", code: "forbidden", message: "no" });
    expect(state()).toBe("live");
    await vi.advanceTimersByTimeAsync(300);
    expect(events[0]).toEqual([{ type: "error", data: { namespace: "ops", code: "forbidden", message: "no" } }]);
  });

  it("a snapshot drops the events queued before it", async () => {
    source().open();
    source().emit("added", ingress({ name: "old" }));
    source().emit("snapshot", { items: [], errors: [], notices: [], expiryWarningDays: 14 });
    await vi.advanceTimersByTimeAsync(300);
    expect(events[0]!.map((e) => e.type)).toEqual(["snapshot"]);
  });

  it("a dropped connection is reconnecting, then stale since the drop, then live again", async () => {
    source().open();
    const droppedAt = Date.now();
    source().fail(FakeEventSource.CONNECTING);
    expect(state()).toBe("live");
    // The browser's next attempt fails too, before the drop is shown: it still shows in time.
    await vi.advanceTimersByTimeAsync(RECONNECT_QUIET_MS / 2);
    source().fail(FakeEventSource.CONNECTING);
    await vi.advanceTimersByTimeAsync(RECONNECT_QUIET_MS / 2);
    expect(statuses.at(-1)).toEqual({ state: "reconnecting", since: droppedAt });
    await vi.advanceTimersByTimeAsync(STALE_AFTER_MS - RECONNECT_QUIET_MS);
    expect(statuses.at(-1)).toEqual({ state: "stale", since: droppedAt, retryAt: null });
    // EventSource reconnects by itself (with Last-Event-ID): same object, open again.
    source().open();
    expect(state()).toBe("live");
    expect(FakeEventSource.instances).toHaveLength(1);
  });

  it("a stream the server ends after its lifetime is resumed by the browser without leaving live", async () => {
    source().open();
    const before = statuses.length;
    // The server ends the stream (retry: 100); EventSource reconnects with Last-Event-ID.
    source().fail(FakeEventSource.CONNECTING);
    await vi.advanceTimersByTimeAsync(100);
    source().open();
    await vi.advanceTimersByTimeAsync(STALE_AFTER_MS);
    expect(statuses.slice(before).map((s) => s.state)).toEqual([]);
    expect(state()).toBe("live");
    expect(FakeEventSource.instances).toHaveLength(1);
  });

  it("a refused stream is stale and retried with a new EventSource after a backoff", async () => {
    source().open();
    source().fail(FakeEventSource.CLOSED);
    expect(state()).toBe("stale");
    expect(FakeEventSource.instances).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(FakeEventSource.instances).toHaveLength(2);
    source().fail(FakeEventSource.CLOSED);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(FakeEventSource.instances).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(FakeEventSource.instances).toHaveLength(3);
    source().open();
    expect(state()).toBe("live");
  });

  it("says why the server refused the stream and honours Retry-After", async () => {
    stubFetch(() =>
      Response.json({ error: { code: "rate_limited", message: "Too many requests." } }, { status: 429, headers: { "retry-after": "5" } }),
    );
    source().open();
    source().fail(FakeEventSource.CLOSED);
    await vi.advanceTimersByTimeAsync(0);
    const status = statuses.at(-1);
    expect(status).toMatchObject({ state: "stale", reason: "HTTP 429: Too many requests." });
    await vi.advanceTimersByTimeAsync(4_000);
    expect(FakeEventSource.instances).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(FakeEventSource.instances).toHaveLength(2);
  });

  it("closing stops the source and every timer", async () => {
    source().open();
    source().fail(FakeEventSource.CLOSED);
    close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(FakeEventSource.instances).toHaveLength(1);
    expect(FakeEventSource.instances[0]!.closed).toBe(true);
  });
});

describe("stream opened before the app mounts", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal("EventSource", FakeEventSource);
    stubFetch(() => Promise.reject(new TypeError("network down")));
    FakeEventSource.instances = [];
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  const snapshot = (name: string) => ({ items: [ingress({ name })], errors: [], notices: [], expiryWarningDays: 14 });

  it("is taken over with what arrived meanwhile: the last snapshot, the events after it, the status", async () => {
    preopenIngressStream("/api/ingresses/stream");
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeEventSource.instances).toHaveLength(1);
    const early = FakeEventSource.instances[0]!;
    early.open();
    early.emit("snapshot", snapshot("first"));
    await vi.advanceTimersByTimeAsync(300);
    early.emit("snapshot", snapshot("second"));
    early.emit("added", ingress({ name: "third" }));
    await vi.advanceTimersByTimeAsync(300);

    const events: StreamEvent[][] = [];
    const statuses: ConnectionStatus[] = [];
    const close = openIngressStream("/api/ingresses/stream", {
      onEvents: (batch) => events.push(batch),
      onStatus: (status) => statuses.push(status),
    });
    // The same connection, no second request.
    expect(FakeEventSource.instances).toHaveLength(1);
    expect(statuses.map((s) => s.state)).toEqual(["live"]);
    expect(events.flat().map((e) => e.type)).toEqual(["snapshot", "added"]);
    expect((events[0]![0]!.data as { items: { name: string }[] }).items[0]!.name).toBe("second");

    // Later events go straight to the app; closing closes the early connection.
    early.emit("modified", ingress({ name: "third" }));
    await vi.advanceTimersByTimeAsync(300);
    expect(events.flat().map((e) => e.type)).toEqual(["snapshot", "added", "modified"]);
    close();
    expect(early.closed).toBe(true);
  });

  it("is closed when the app asks for other namespaces, and the app's stream is a new one", async () => {
    preopenIngressStream("/api/ingresses/stream");
    await vi.advanceTimersByTimeAsync(0);
    const early = FakeEventSource.instances[0]!;
    const close = openIngressStream("/api/ingresses/stream?namespaces=shop", { onEvents: () => {}, onStatus: () => {} });
    await vi.advanceTimersByTimeAsync(0);
    expect(early.closed).toBe(true);
    expect(FakeEventSource.instances.map((s) => s.url)).toEqual(["/api/ingresses/stream", "/api/ingresses/stream?namespaces=shop"]);
    // Taken over once only: a second open for the first URL is a new connection.
    const again = openIngressStream("/api/ingresses/stream", { onEvents: () => {}, onStatus: () => {} });
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeEventSource.instances).toHaveLength(3);
    close();
    again();
  });
});

describe("snapshot delivery", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it("hands a snapshot over in the next task, other events with the next frame's batch", async () => {
    vi.useFakeTimers();
    vi.stubGlobal("EventSource", FakeEventSource);
    FakeEventSource.instances = [];
    const events: StreamEvent[][] = [];
    stubFetch(() => Promise.reject(new TypeError("network down")));
    const close = openIngressStream("/api/ingresses/stream", { onEvents: (b) => events.push(b), onStatus: () => {} });
    await vi.advanceTimersByTimeAsync(0);
    const source = FakeEventSource.instances[0]!;
    source.open();
    source.emit("added", ingress({ name: "early" }));
    await vi.advanceTimersByTimeAsync(0);
    expect(events).toEqual([]);
    source.emit("snapshot", { items: [], errors: [], notices: [], expiryWarningDays: 14 });
    source.emit("added", ingress({ name: "after" }));
    await vi.advanceTimersByTimeAsync(0);
    expect(events.map((b) => b.map((e) => e.type))).toEqual([["snapshot", "added"]]);
    close();
  });
});

describe("start-up: the snapshot fetched, then the stream from its eventId", () => {
  let requests: string[];
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal("EventSource", FakeEventSource);
    FakeEventSource.instances = [];
    requests = [];
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  /** `GET /api/ingresses` answers `body` (a snapshot) with `status`. */
  const serve = (body: unknown, status = 200) =>
    stubFetch((url) => {
      requests.push(url);
      return jsonResponse(body, status);
    });
  const fetched = (name: string, eventId?: number) => ({
    items: [ingress({ name })],
    errors: [],
    notices: [],
    expiryWarningDays: 14,
    ...(eventId === undefined ? {} : { eventId }),
  });
  const open = (url = "/api/ingresses/stream") => {
    const events: StreamEvent[][] = [];
    const close = openIngressStream(url, { onEvents: (batch) => events.push(batch), onStatus: () => {} });
    return { events, close };
  };
  const names = (events: StreamEvent[][]) =>
    events.flat().map((e) => (e.type === "snapshot" ? `snapshot:${e.data.items.map((i) => i.name).join(",")}` : `${e.type}:${(e.data as { name?: string }).name}`));

  it("applies the fetched snapshot and opens the stream after its eventId", async () => {
    serve(fetched("web", 41));
    const { events, close } = open("/api/ingresses/stream?namespaces=a,b");
    expect(FakeEventSource.instances).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(requests).toEqual(["/api/ingresses?namespaces=a,b"]);
    expect(FakeEventSource.instances.map((s) => s.url)).toEqual(["/api/ingresses/stream?namespaces=a,b&lastEventId=41"]);
    FakeEventSource.instances[0]!.open();
    FakeEventSource.instances[0]!.emit("modified", ingress({ name: "web", resourceVersion: "2" }));
    await vi.advanceTimersByTimeAsync(300);
    expect(names(events)).toEqual(["snapshot:web", "modified:web"]);
    // Decoded like the stream's own snapshot (absent parts filled in).
    const snapshot = events[0]![0]!;
    expect(snapshot.type === "snapshot" && Array.isArray(snapshot.data.items[0]!.rules)).toBe(true);
    close();
  });

  it("keeps events the stream brings before the snapshot is applied, after it, once", async () => {
    serve(fetched("web", 7));
    const { events, close } = open();
    // The fetch resolves and the stream opens; its events arrive before the snapshot's task ran.
    await vi.advanceTimersByTimeAsync(0);
    const source = FakeEventSource.instances[0]!;
    expect(source.url).toBe("/api/ingresses/stream?lastEventId=7");
    source.open();
    source.emit("added", ingress({ name: "api" }));
    source.emit("deleted", ingress({ name: "web" }));
    await vi.advanceTimersByTimeAsync(300);
    expect(names(events)).toEqual(["snapshot:web", "added:api", "deleted:web"]);
    close();
  });

  it("opens the stream as before when the fetch fails", async () => {
    serve({ error: { code: "forbidden", message: "no" } }, 403);
    const { events, close } = open();
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeEventSource.instances.map((s) => s.url)).toEqual(["/api/ingresses/stream"]);
    await vi.advanceTimersByTimeAsync(300);
    expect(events).toEqual([]);
    close();
  });

  it("opens the stream as before when the body has no eventId, without showing that body", async () => {
    serve(fetched("listed"));
    const { events, close } = open();
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeEventSource.instances.map((s) => s.url)).toEqual(["/api/ingresses/stream"]);
    FakeEventSource.instances[0]!.emit("snapshot", fetched("streamed"));
    await vi.advanceTimersByTimeAsync(300);
    expect(names(events)).toEqual(["snapshot:streamed"]);
    close();
  });

  it("ignores a body that is not JSON or an eventId that is not an id", async () => {
    for (const body of ["<html>proxy</html>", JSON.stringify(fetched("web", -1)), JSON.stringify({ ...fetched("web"), eventId: "9" })]) {
      FakeEventSource.instances = [];
      stubFetch(() => new Response(body, { status: 200 }));
      const { events, close } = open();
      await vi.advanceTimersByTimeAsync(300);
      expect(FakeEventSource.instances.map((s) => s.url)).toEqual(["/api/ingresses/stream"]);
      expect(events).toEqual([]);
      close();
    }
  });

  it("a stream refused later starts again without the old id", async () => {
    serve(fetched("web", 7));
    const { close } = open();
    await vi.advanceTimersByTimeAsync(0);
    FakeEventSource.instances[0]!.fail(FakeEventSource.CLOSED);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(FakeEventSource.instances.map((s) => s.url)).toEqual(["/api/ingresses/stream?lastEventId=7", "/api/ingresses/stream"]);
    close();
  });

  it("closed while the snapshot is fetched: no stream opens", async () => {
    serve(fetched("web", 7));
    const { events, close } = open();
    close();
    await vi.advanceTimersByTimeAsync(300);
    expect(FakeEventSource.instances).toHaveLength(0);
    expect(events).toEqual([]);
  });

  it("opened before the app mounts: the fetched snapshot waits for the app", async () => {
    serve(fetched("web", 3));
    preopenIngressStream("/api/ingresses/stream");
    await vi.advanceTimersByTimeAsync(0);
    FakeEventSource.instances[0]!.emit("added", ingress({ name: "api" }));
    await vi.advanceTimersByTimeAsync(300);
    const { events, close } = open();
    expect(FakeEventSource.instances).toHaveLength(1);
    expect(names(events)).toEqual(["snapshot:web", "added:api"]);
    close();
  });
});
