import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ingress } from "../test/fixtures";
import { openIngressStream, preopenIngressStream, STALE_AFTER_MS, streamUrl, type ConnectionStatus } from "./stream";
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

  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal("EventSource", FakeEventSource);
    // The refusal probe finds nothing unless a test says otherwise.
    vi.stubGlobal("fetch", vi.fn(async () => Promise.reject(new TypeError("network down"))));
    FakeEventSource.instances = [];
    events = [];
    statuses = [];
    close = openIngressStream("/api/ingresses/stream", {
      onEvents: (batch) => events.push(batch),
      onStatus: (status) => statuses.push(status),
    });
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
    expect(statuses.at(-1)).toEqual({ state: "reconnecting", since: droppedAt });
    await vi.advanceTimersByTimeAsync(STALE_AFTER_MS);
    expect(statuses.at(-1)).toEqual({ state: "stale", since: droppedAt, retryAt: null });
    // EventSource reconnects by itself (with Last-Event-ID): same object, open again.
    source().open();
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
    vi.stubGlobal(
      "fetch",
      vi.fn(async () =>
        Response.json(
          { error: { code: "rate_limited", message: "Too many requests." } },
          { status: 429, headers: { "retry-after": "5" } },
        ),
      ),
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
    vi.stubGlobal("fetch", vi.fn(async () => Promise.reject(new TypeError("network down"))));
    FakeEventSource.instances = [];
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  const snapshot = (name: string) => ({ items: [ingress({ name })], errors: [], notices: [], expiryWarningDays: 14 });

  it("is taken over with what arrived meanwhile: the last snapshot, the events after it, the status", async () => {
    preopenIngressStream("/api/ingresses/stream");
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

  it("is closed when the app asks for other namespaces, and the app's stream is a new one", () => {
    preopenIngressStream("/api/ingresses/stream");
    const early = FakeEventSource.instances[0]!;
    const close = openIngressStream("/api/ingresses/stream?namespaces=shop", { onEvents: () => {}, onStatus: () => {} });
    expect(early.closed).toBe(true);
    expect(FakeEventSource.instances.map((s) => s.url)).toEqual(["/api/ingresses/stream", "/api/ingresses/stream?namespaces=shop"]);
    // Taken over once only: a second open for the first URL is a new connection.
    const again = openIngressStream("/api/ingresses/stream", { onEvents: () => {}, onStatus: () => {} });
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
    const close = openIngressStream("/api/ingresses/stream", { onEvents: (b) => events.push(b), onStatus: () => {} });
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
