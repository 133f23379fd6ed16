// A dedicated worker that holds the stream's EventSource (eventSourceRelay.ts is its other half).
// Receiving a 60 MiB snapshot event costs the thread that owns the EventSource seconds of
// work and a long pause after the event; here that thread is this one, and the page's main
// thread only receives the event's text. The events are relayed as they are: the page parses
// and decodes them (stream.ts), so the worker never builds objects the page would have to copy.

import type { RelayCommand, RelayMessage } from "./eventSourceRelay";

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<RelayCommand>) => void) | null;
  postMessage(message: RelayMessage): void;
};

let source: EventSource | null = null;

scope.onmessage = ({ data: command }) => {
  if (command.type === "close") {
    source?.close();
    source = null;
    return;
  }
  if (typeof EventSource === "undefined") {
    scope.postMessage({ kind: "unsupported" });
    return;
  }
  source?.close();
  const es = new EventSource(command.url);
  source = es;
  es.addEventListener("open", () => scope.postMessage({ kind: "open" }));
  es.addEventListener("error", (event) => {
    // The stream's own `error` events are MessageEvents and are relayed below.
    if (!(event instanceof MessageEvent)) scope.postMessage({ kind: "error", readyState: es.readyState });
  });
  for (const type of command.types)
    es.addEventListener(type, (event) => {
      if (event instanceof MessageEvent)
        scope.postMessage({ kind: "message", type, data: event.data as string, lastEventId: event.lastEventId });
    });
};
