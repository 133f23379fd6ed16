// The event reducer: applies batches of stream events to the client's copy of the ingress list,
// keyed by uid. Batches keep a burst of events to one copy of the maps and one render.

import type { StreamEvent } from "../api/events";
import type { IngressRecord, NamespaceError, Notice } from "../api/wire";

/** How long a row stays highlighted after it was added or changed. */
export const HIGHLIGHT_MS = 4_000;
/** How long the last known state of a deleted ingress is kept (for an open details panel). */
export const DELETED_KEEP_MS = 10 * 60_000;
const DELETED_KEEP_MAX = 200;
/** More rows than this changed by one batch are not highlighted (see applyEvents). */
export const BULK_CHANGE_ROWS = 250;

export type ChangeKind = "added" | "modified";

export interface RecentChange {
  kind: ChangeKind;
  /** Epoch milliseconds when the client applied the change. */
  at: number;
}

export interface DeletedIngress {
  record: IngressRecord;
  at: number;
}

export interface IngressState {
  items: ReadonlyMap<string, IngressRecord>;
  /** Namespaces whose watch is failing, by namespace. */
  errors: ReadonlyMap<string, NamespaceError>;
  /** Rows to highlight, by uid. */
  changes: ReadonlyMap<string, RecentChange>;
  deleted: ReadonlyMap<string, DeletedIngress>;
  /** False until the first snapshot of the current stream scope arrived. */
  hasSnapshot: boolean;
  lastResync: { reason: string; at: number } | null;
  /** Notices about the installation from the last snapshot (e.g. the Gateway API is not installed). */
  notices: readonly Notice[];
  /** The server's `certificates.expiry_warning_days`, from the last snapshot; null before one. */
  expiryWarningDays: number | null;
  /** Bumped on every change, a cheap dependency for memoised views. */
  revision: number;
}

export const initialIngressState: IngressState = {
  items: new Map(),
  errors: new Map(),
  changes: new Map(),
  deleted: new Map(),
  hasSnapshot: false,
  lastResync: null,
  notices: [],
  expiryWarningDays: null,
  revision: 0,
};

export type IngressAction =
  | { type: "events"; events: readonly StreamEvent[]; now: number }
  /** The stream scope changed (other namespaces): the next snapshot is a first one again. */
  | { type: "rescope" }
  /** Drops highlights and deleted records that have expired. */
  | { type: "expire"; now: number };

export function ingressReducer(state: IngressState, action: IngressAction): IngressState {
  switch (action.type) {
    case "events":
      return applyEvents(state, action.events, action.now);
    case "rescope":
      return state.hasSnapshot ? { ...state, hasSnapshot: false, revision: state.revision + 1 } : state;
    case "expire":
      return expire(state, action.now);
  }
}

/** Copy-on-first-write maps, so a batch copies each map at most once. */
class Draft {
  items: Map<string, IngressRecord> | null = null;
  errors: Map<string, NamespaceError> | null = null;
  changes: Map<string, RecentChange> | null = null;
  deleted: Map<string, DeletedIngress> | null = null;

  constructor(private readonly base: IngressState) {}

  get currentItems(): ReadonlyMap<string, IngressRecord> {
    return this.items ?? this.base.items;
  }
  mutItems(): Map<string, IngressRecord> {
    return (this.items ??= new Map(this.base.items));
  }
  mutErrors(): Map<string, NamespaceError> {
    return (this.errors ??= new Map(this.base.errors));
  }
  mutChanges(): Map<string, RecentChange> {
    return (this.changes ??= new Map(this.base.changes));
  }
  mutDeleted(): Map<string, DeletedIngress> {
    return (this.deleted ??= new Map(this.base.deleted));
  }
  get currentErrors(): ReadonlyMap<string, NamespaceError> {
    return this.errors ?? this.base.errors;
  }
}

export function applyEvents(state: IngressState, events: readonly StreamEvent[], now: number): IngressState {
  if (events.length === 0) return state;
  const draft = new Draft(state);
  let hasSnapshot = state.hasSnapshot;
  let lastResync = state.lastResync;
  let notices = state.notices;
  let expiryWarningDays = state.expiryWarningDays;

  for (const event of events) {
    switch (event.type) {
      case "snapshot": {
        const previous = draft.currentItems;
        const next = new Map<string, IngressRecord>();
        for (const record of event.data.items) next.set(record.uid, record);
        // A snapshot after a reconnect or resync replaces the list: highlight what differs
        // from what the page showed, and keep what vanished as deleted. A page that showed
        // nothing yet is loading, not watching changes.
        if (hasSnapshot && previous.size > 0) {
          for (const [uid, record] of next) {
            const before = previous.get(uid);
            if (!before) draft.mutChanges().set(uid, { kind: "added", at: now });
            else if (before.resourceVersion !== record.resourceVersion)
              draft.mutChanges().set(uid, { kind: "modified", at: now });
          }
          for (const [uid, record] of previous) {
            if (!next.has(uid)) {
              draft.mutDeleted().set(uid, { record, at: now });
              draft.mutChanges().delete(uid);
            }
          }
        } else if (state.changes.size > 0 || draft.changes) {
          draft.changes = new Map();
        }
        draft.items = next;
        draft.errors = new Map(event.data.errors.map((e) => [e.namespace, e]));
        // Older servers send neither.
        notices = event.data.notices ?? [];
        expiryWarningDays = typeof event.data.expiryWarningDays === "number" ? event.data.expiryWarningDays : null;
        hasSnapshot = true;
        break;
      }
      case "added":
      case "modified": {
        const record = event.data;
        const before = draft.currentItems.get(record.uid);
        draft.mutItems().set(record.uid, record);
        // An event that repeats what the page has (a replay overlap) is not a change.
        if (!before || before.resourceVersion !== record.resourceVersion) {
          // A row that is still new stays marked as new when it changes again.
          const pending = (draft.changes ?? state.changes).get(record.uid);
          const kind: ChangeKind = before && pending?.kind !== "added" ? "modified" : "added";
          draft.mutChanges().set(record.uid, { kind, at: now });
        }
        if (draft.deleted?.has(record.uid) ?? state.deleted.has(record.uid)) draft.mutDeleted().delete(record.uid);
        clearNamespaceError(draft, record.namespace);
        break;
      }
      case "deleted": {
        const record = event.data;
        const before = draft.currentItems.get(record.uid);
        if (before) draft.mutItems().delete(record.uid);
        draft.mutDeleted().set(record.uid, { record: before ?? record, at: now });
        if (draft.changes?.has(record.uid) ?? state.changes.has(record.uid)) draft.mutChanges().delete(record.uid);
        clearNamespaceError(draft, record.namespace);
        break;
      }
      case "error":
        draft.mutErrors().set(event.data.namespace, event.data);
        break;
      case "recovered":
        if (draft.currentErrors.has(event.data.namespace)) draft.mutErrors().delete(event.data.namespace);
        break;
      case "resync":
        lastResync = { reason: event.data.reason, at: now };
        break;
    }
  }

  // A batch that changes hundreds of rows at once is a bulk load (a namespace's first list, a
  // re-list), not a change someone can follow row by row: it is not highlighted.
  if (draft.changes) {
    const changedNow = [...draft.changes].filter(([, change]) => change.at === now);
    if (changedNow.length > BULK_CHANGE_ROWS) for (const [uid] of changedNow) draft.changes.delete(uid);
  }

  const next: IngressState = {
    items: draft.items ?? state.items,
    errors: draft.errors ?? state.errors,
    changes: draft.changes ?? state.changes,
    deleted: draft.deleted ?? state.deleted,
    hasSnapshot,
    lastResync,
    notices,
    expiryWarningDays,
    revision: state.revision + 1,
  };
  return expire(next, now);
}

/** The `namespace` of an error from the cluster-wide watcher (no namespace list configured). */
export const CLUSTER_SCOPE = "*";

/**
 * An event from a namespace shows its watch works again (the backend sends no separate
 * "recovered" event); with one cluster-wide watcher, any event shows that one works.
 */
function clearNamespaceError(draft: Draft, namespace: string) {
  if (draft.currentErrors.has(namespace)) draft.mutErrors().delete(namespace);
  if (draft.currentErrors.has(CLUSTER_SCOPE)) draft.mutErrors().delete(CLUSTER_SCOPE);
}

function expire(state: IngressState, now: number): IngressState {
  let changes: Map<string, RecentChange> | null = null;
  for (const [uid, change] of state.changes) {
    if (now - change.at >= HIGHLIGHT_MS) (changes ??= new Map(state.changes)).delete(uid);
  }
  let deleted: Map<string, DeletedIngress> | null = null;
  for (const [uid, gone] of state.deleted) {
    if (now - gone.at >= DELETED_KEEP_MS) (deleted ??= new Map(state.deleted)).delete(uid);
  }
  const kept = deleted ?? state.deleted;
  if (kept.size > DELETED_KEEP_MAX) {
    deleted = new Map([...kept].slice(kept.size - DELETED_KEEP_MAX));
  }
  if (!changes && !deleted) return state;
  return {
    ...state,
    changes: changes ?? state.changes,
    deleted: deleted ?? state.deleted,
    revision: state.revision + 1,
  };
}

/** The namespaces the page knows of: from the list endpoint, the records and the errors. */
export function knownNamespaces(
  items: IngressState["items"],
  errors: IngressState["errors"],
  listed: readonly string[],
): string[] {
  const all = new Set(listed);
  for (const record of items.values()) all.add(record.namespace);
  for (const namespace of errors.keys()) if (namespace !== CLUSTER_SCOPE) all.add(namespace);
  return [...all].sort();
}
