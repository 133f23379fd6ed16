// An EventSource whose connection lives in a Web Worker (streamWorker.ts): the same events,
// `readyState` and `close()` as the browser's own, so stream.ts drives it unchanged. Where
// there is no Worker (tests in Node, old browsers) or the worker has no EventSource, it is the
// browser's EventSource on the page's thread, as before.

export type RelayCommand = { type: "open"; url: string; types: readonly string[] } | { type: "close" };

export type RelayMessage =
  | { kind: "open" }
  | { kind: "error"; readyState: number }
  | { kind: "message"; type: string; data: string; lastEventId: string }
  /** The worker has no EventSource: the page opens the stream itself. */
  | { kind: "unsupported" };

/** What stream.ts uses of an EventSource. */
export interface StreamSource extends EventTarget {
  readonly readyState: number;
  close(): void;
}

const CONNECTING = 0;
const OPEN = 1;
const CLOSED = 2;

export type WorkerFactory = () => Worker;

const defaultWorker: WorkerFactory = () => new Worker(new URL("./streamWorker.ts", import.meta.url), { type: "module" });

/**
 * Opens `url` with the named events `types` through a worker when the page can start one,
 * else with the page's own EventSource.
 */
export function openEventSource(url: string, types: readonly string[], worker: WorkerFactory | null = defaultWorker): StreamSource {
  if (worker === null || typeof Worker === "undefined") return new EventSource(url);
  let started: Worker | null = null;
  try {
    started = worker();
    return new RelayedEventSource(url, types, started);
  } catch {
    // A worker the page may not start (a Content-Security-Policy without worker-src, say), or
    // one that started but could not be given the stream: it is not left running.
    started?.terminate();
    return new EventSource(url);
  }
}

class RelayedEventSource extends EventTarget implements StreamSource {
  readyState = CONNECTING;
  /** The page's own EventSource, once the worker turned out to have none. */
  private fallback: EventSource | null = null;

  constructor(
    private readonly url: string,
    private readonly types: readonly string[],
    private worker: Worker | null,
  ) {
    super();
    const w = worker!;
    w.onmessage = (event: MessageEvent<RelayMessage>) => this.receive(event.data);
    // The worker's script did not load or threw: the page opens the stream itself.
    w.onerror = (event) => {
      event.preventDefault?.();
      this.useFallback();
    };
    w.postMessage({ type: "open", url: new URL(url, globalThis.location?.href).href, types } satisfies RelayCommand);
  }

  close(): void {
    this.readyState = CLOSED;
    this.fallback?.close();
    this.fallback = null;
    this.worker?.postMessage({ type: "close" } satisfies RelayCommand);
    this.worker?.terminate();
    this.worker = null;
  }

  private receive(message: RelayMessage) {
    if (this.readyState === CLOSED) return;
    switch (message.kind) {
      case "open":
        this.readyState = OPEN;
        this.dispatchEvent(new Event("open"));
        break;
      case "error":
        this.readyState = message.readyState;
        this.dispatchEvent(new Event("error"));
        break;
      case "message":
        this.dispatchEvent(new MessageEvent(message.type, { data: message.data, lastEventId: message.lastEventId }));
        break;
      case "unsupported":
        this.useFallback();
        break;
    }
  }

  private useFallback() {
    if (this.readyState === CLOSED || this.fallback) return;
    this.worker?.terminate();
    this.worker = null;
    const es = new EventSource(this.url);
    this.fallback = es;
    const relay = (event: Event) => {
      if (this.fallback !== es) return;
      this.readyState = es.readyState;
      this.dispatchEvent(event instanceof MessageEvent ? new MessageEvent(event.type, { data: event.data, lastEventId: event.lastEventId }) : new Event(event.type));
    };
    es.addEventListener("open", relay);
    es.addEventListener("error", relay);
    for (const type of this.types) if (type !== "error") es.addEventListener(type, relay);
  }
}
