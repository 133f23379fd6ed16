import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openEventSource, type RelayCommand, type RelayMessage } from "./eventSourceRelay";

/** The page's own EventSource, recorded. */
class FakeEventSource extends EventTarget {
  static instances: FakeEventSource[] = [];
  readyState = 0;
  closed = false;
  constructor(readonly url: string) {
    super();
    FakeEventSource.instances.push(this);
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
}

/** A worker whose messages the test plays: what the page posted, and what it may answer. */
class FakeWorker {
  posted: RelayCommand[] = [];
  terminated = false;
  onmessage: ((event: MessageEvent<RelayMessage>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  postMessage(command: RelayCommand) {
    this.posted.push(command);
  }
  terminate() {
    this.terminated = true;
  }
  answer(message: RelayMessage) {
    this.onmessage?.(new MessageEvent("message", { data: message }));
  }
}

describe("openEventSource", () => {
  let worker: FakeWorker;
  beforeEach(() => {
    FakeEventSource.instances = [];
    worker = new FakeWorker();
    vi.stubGlobal("EventSource", FakeEventSource);
    vi.stubGlobal("Worker", FakeWorker);
    vi.stubGlobal("location", { href: "http://dash.example:8080/?kind=Ingress" });
  });
  afterEach(() => vi.unstubAllGlobals());

  const open = () => openEventSource("/api/ingresses/stream", ["snapshot", "error"], () => worker as unknown as Worker);

  it("stops a worker it could not hand the stream to, and opens the stream on the page", () => {
    worker.postMessage = () => {
      throw new Error("DataCloneError");
    };
    openEventSource("/api/ingresses/stream", ["snapshot"], () => worker as unknown as Worker);
    expect(worker.terminated).toBe(true);
    expect(FakeEventSource.instances.map((source) => source.url)).toEqual(["/api/ingresses/stream"]);
  });

  it("opens the stream in the worker and relays its events, connection errors and state", () => {
    const source = open();
    expect(FakeEventSource.instances).toEqual([]);
    expect(worker.posted).toEqual([{ type: "open", url: "http://dash.example:8080/api/ingresses/stream", types: ["snapshot", "error"] }]);
    const seen: string[] = [];
    source.addEventListener("open", () => seen.push(`open ${source.readyState}`));
    source.addEventListener("snapshot", (e) => seen.push(`snapshot ${(e as MessageEvent).data} ${(e as MessageEvent).lastEventId}`));
    source.addEventListener("error", (e) => seen.push(e instanceof MessageEvent ? `error event ${e.data}` : `connection error ${source.readyState}`));

    worker.answer({ kind: "open" });
    worker.answer({ kind: "message", type: "snapshot", data: '{"items":[]}', lastEventId: "7" });
    worker.answer({ kind: "message", type: "error", data: '{"namespace":"ops"}', lastEventId: "8" });
    worker.answer({ kind: "error", readyState: 0 });
    worker.answer({ kind: "error", readyState: 2 });
    expect(seen).toEqual([
      "open 1",
      'snapshot {"items":[]} 7',
      'error event {"namespace":"ops"}',
      "connection error 0",
      "connection error 2",
    ]);

    source.close();
    expect(source.readyState).toBe(2);
    expect(worker.posted.at(-1)).toEqual({ type: "close" });
    expect(worker.terminated).toBe(true);
    // Nothing after close reaches the page.
    worker.answer({ kind: "open" });
    expect(seen).toHaveLength(5);
  });

  it("falls back to the page's EventSource where there is no Worker", () => {
    vi.stubGlobal("Worker", undefined);
    const source = open();
    expect(source).toBeInstanceOf(FakeEventSource);
    expect(FakeEventSource.instances.map((s) => s.url)).toEqual(["/api/ingresses/stream"]);
  });

  it("falls back when the worker cannot start, has no EventSource, or fails to load", () => {
    const refused = openEventSource("/api/ingresses/stream", ["snapshot"], () => {
      throw new DOMException("blocked by the content security policy", "SecurityError");
    });
    expect(refused).toBeInstanceOf(FakeEventSource);

    const source = open();
    const seen: string[] = [];
    source.addEventListener("open", () => seen.push(`open ${source.readyState}`));
    source.addEventListener("snapshot", (e) => seen.push(`snapshot ${(e as MessageEvent).data}`));
    source.addEventListener("error", (e) => seen.push(e instanceof MessageEvent ? `error event ${e.data}` : "connection error"));
    worker.answer({ kind: "unsupported" });
    expect(worker.terminated).toBe(true);
    const page = FakeEventSource.instances.at(-1)!;
    expect(page.url).toBe("/api/ingresses/stream");
    page.readyState = 1;
    page.dispatchEvent(new Event("open"));
    page.dispatchEvent(new MessageEvent("snapshot", { data: "{}" }));
    page.dispatchEvent(new MessageEvent("error", { data: "{}" }));
    page.readyState = 0;
    page.dispatchEvent(new Event("error"));
    expect(seen).toEqual(["open 1", "snapshot {}", "error event {}", "connection error"]);
    source.close();
    expect(page.closed).toBe(true);

    // A worker script that does not load.
    worker = new FakeWorker();
    const broken = open();
    worker.onerror?.(new Event("error") as ErrorEvent);
    expect(FakeEventSource.instances).toHaveLength(3);
    broken.close();
  });
});
