// The named events of `GET /api/ingresses/stream`, decoded. Their data are the generated wire
// types (wire.ts); the union of event names is the client's own.
import type { IngressRecord, NamespaceError, RecoveredNotice, ResyncNotice, Snapshot } from "./wire";

/** One named event of the stream with its decoded data. */
export type StreamEvent =
  | { type: "snapshot"; data: Snapshot }
  | { type: "added" | "modified" | "deleted"; data: IngressRecord }
  | { type: "error"; data: NamespaceError }
  | { type: "recovered"; data: RecoveredNotice }
  | { type: "resync"; data: ResyncNotice };

export type StreamEventType = StreamEvent["type"];

export const STREAM_EVENT_TYPES: readonly StreamEventType[] = [
  "snapshot",
  "added",
  "modified",
  "deleted",
  "error",
  "recovered",
  "resync",
];
