import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ingress } from "../test/fixtures";
import { openIngressStream, STALE_AFTER_MS, streamUrl, type ConnectionStatus } from "./stream";
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
