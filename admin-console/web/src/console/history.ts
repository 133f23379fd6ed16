// Console history: per cluster, newest first, capped, kept in the browser's storage so it
// survives browser sessions. A full storage quota drops the oldest entries instead of failing.
import type { KeyValueStorage } from "../lib/storage";

/** The console's methods, as specified (the relay also takes HEAD, e.g. from curl). */
export const HTTP_METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface HistoryEntry {
  method: HttpMethod;
  path: string;
  /** The request body as typed; absent when there was none. */
  body?: string;
  /** When it was executed, Unix milliseconds (browser clock, display only). */
  executedAt: number;
  /** The cluster's answer, for the list; absent when the request never got one. */
  status?: number;
  durationMs?: number;
}

export const HISTORY_LIMIT = 100;
const KEY_PREFIX = "admin-console.history.";

export function historyKey(clusterId: string): string {
  return KEY_PREFIX + clusterId;
}

function isEntry(value: unknown): value is HistoryEntry {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.method === "string" &&
    (HTTP_METHODS as readonly string[]).includes(v.method) &&
    typeof v.path === "string" &&
    (v.body === undefined || typeof v.body === "string") &&
    typeof v.executedAt === "number"
  );
}

/** Same request (method, path, body), whatever its result. */
export function sameRequest(a: HistoryEntry, b: HistoryEntry): boolean {
  return a.method === b.method && a.path === b.path && (a.body ?? "") === (b.body ?? "");
}

export class HistoryStore {
  /** Entries that could not be written even after trimming: kept for this tab only. */
  private readonly unsaved = new Map<string, HistoryEntry[]>();

  constructor(
    private readonly storage: KeyValueStorage,
    private readonly limit = HISTORY_LIMIT,
  ) {}

  list(clusterId: string): HistoryEntry[] {
    const pending = this.unsaved.get(clusterId);
    if (pending) return pending;
    let raw: string | null = null;
    try {
      raw = this.storage.getItem(historyKey(clusterId));
    } catch {
      return [];
    }
    if (raw == null) return [];
    try {
      const parsed: unknown = JSON.parse(raw);
      // A corrupted or foreign value is ignored entry by entry, never fatal.
      return Array.isArray(parsed) ? parsed.filter(isEntry).slice(0, this.limit) : [];
    } catch {
      return [];
    }
  }

  /**
   * Puts `entry` on top; an older identical request moves up instead of being repeated.
   * Returns the new list and whether it reached the browser's storage.
   */
  add(clusterId: string, entry: HistoryEntry): { entries: HistoryEntry[]; persisted: boolean } {
    const entries = [entry, ...this.list(clusterId).filter((e) => !sameRequest(e, entry))].slice(
      0,
      this.limit,
    );
    return { entries, persisted: this.save(clusterId, entries) };
  }

  /** Puts imported entries in, without duplicates (the newer of two identical requests wins),
   * newest first, within the limit. Returns the new list and whether it was stored. */
  merge(clusterId: string, imported: HistoryEntry[]): { entries: HistoryEntry[]; persisted: boolean } {
    const entries = mergeEntries(this.list(clusterId), imported, this.limit);
    return { entries, persisted: this.save(clusterId, entries) };
  }

  clear(clusterId: string): void {
    this.unsaved.delete(clusterId);
    try {
      this.storage.removeItem(historyKey(clusterId));
    } catch {
      // Nothing stored, nothing to clear.
    }
  }

  /** Writes, halving the list while the quota refuses it; the newest entries are kept. */
  private save(clusterId: string, entries: HistoryEntry[]): boolean {
    let kept = entries;
    for (;;) {
      try {
        this.storage.setItem(historyKey(clusterId), JSON.stringify(kept));
        if (kept.length === entries.length) {
          this.unsaved.delete(clusterId);
          return true;
        }
        // Stored a shorter list; show the full one in this tab.
        this.unsaved.set(clusterId, entries);
        return false;
      } catch {
        if (kept.length <= 1) {
          this.unsaved.set(clusterId, entries);
          return false;
        }
        kept = kept.slice(0, Math.floor(kept.length / 2));
      }
    }
  }
}

/** `current` and `imported` as one list: identical requests once (the newer kept), newest
 * first, at most `limit`. */
export function mergeEntries(current: HistoryEntry[], imported: HistoryEntry[], limit = HISTORY_LIMIT): HistoryEntry[] {
  const merged: HistoryEntry[] = [];
  for (const entry of [...current, ...imported].sort((a, b) => b.executedAt - a.executedAt)) {
    if (!merged.some((kept) => sameRequest(kept, entry))) merged.push(entry);
    if (merged.length >= limit) break;
  }
  return merged;
}

// ---- Export and import as a JSON file ----

export const EXPORT_FORMAT = "admin-console-history";
export const EXPORT_VERSION = 1;
/** Larger files are refused before they are read. */
export const MAX_IMPORT_BYTES = 1024 * 1024;
const MAX_PATH_LENGTH = 4096;
const MAX_BODY_LENGTH = 256 * 1024;

export interface HistoryExport {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  cluster: string;
  exportedAt: string;
  entries: HistoryEntry[];
}

export function exportHistory(clusterId: string, entries: HistoryEntry[], now = new Date()): HistoryExport {
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    cluster: clusterId,
    exportedAt: now.toISOString(),
    entries: entries.map(({ method, path, body, executedAt, status, durationMs }) => ({
      method,
      path,
      ...(body !== undefined ? { body } : {}),
      executedAt,
      ...(status !== undefined ? { status } : {}),
      ...(durationMs !== undefined ? { durationMs } : {}),
    })),
  };
}

/** `console-history-<cluster>-<yyyy-mm-dd>.json`, with only safe characters. */
export function exportFileName(clusterId: string, now = new Date()): string {
  const safe = clusterId.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 64) || "cluster";
  return `console-history-${safe}-${now.toISOString().slice(0, 10)}.json`;
}

export type ImportResult =
  | { ok: true; entries: HistoryEntry[]; skipped: number }
  | { ok: false; message: string };

/** One imported entry, checked and copied field by field (nothing else is kept). */
function importedEntry(value: unknown): HistoryEntry | null {
  if (!isEntry(value)) return null;
  const v = value as unknown as Record<string, unknown>;
  const entry: HistoryEntry = {
    method: value.method,
    path: value.path,
    executedAt: value.executedAt,
  };
  if (
    value.path.length > MAX_PATH_LENGTH ||
    (value.body !== undefined && value.body.length > MAX_BODY_LENGTH) ||
    !Number.isFinite(value.executedAt) ||
    value.executedAt < 0
  ) {
    return null;
  }
  if (value.body !== undefined) entry.body = value.body;
  if (typeof v.status === "number" && Number.isInteger(v.status) && v.status >= 100 && v.status <= 599) {
    entry.status = v.status;
  }
  if (typeof v.durationMs === "number" && Number.isFinite(v.durationMs) && v.durationMs >= 0) {
    entry.durationMs = v.durationMs;
  }
  return entry;
}

/**
 * Reads an exported history file's text. Accepts this console's export (`{format, version,
 * entries}`) and a bare array of entries; entries that are not requests are skipped and
 * counted; anything else gets a message saying what is wrong. Never throws.
 */
export function parseHistoryImport(text: string, sizeBytes = text.length): ImportResult {
  if (sizeBytes > MAX_IMPORT_BYTES) {
    return {
      ok: false,
      message: `The file is too large (${Math.ceil(sizeBytes / 1024)} KiB); a history export is at most ${MAX_IMPORT_BYTES / 1024} KiB.`,
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `The file is not JSON: ${(e as Error).message}` };
  }
  let list: unknown;
  if (Array.isArray(parsed)) {
    list = parsed;
  } else if (typeof parsed === "object" && parsed !== null) {
    const o = parsed as Record<string, unknown>;
    if (o.format !== EXPORT_FORMAT) {
      return {
        ok: false,
        message: `The file is not a console history export: "format" should be "${EXPORT_FORMAT}".`,
      };
    }
    if (o.version !== EXPORT_VERSION) {
      return {
        ok: false,
        message: `The history export has version ${JSON.stringify(o.version)}; this console reads version ${EXPORT_VERSION}.`,
      };
    }
    list = o.entries;
  } else {
    return { ok: false, message: "The file is not a console history export: expected an object with \"entries\"." };
  }
  if (!Array.isArray(list)) {
    return { ok: false, message: 'The file is not a console history export: "entries" should be a list.' };
  }
  const entries: HistoryEntry[] = [];
  for (const item of list) {
    const entry = importedEntry(item);
    if (entry) entries.push(entry);
  }
  const skipped = list.length - entries.length;
  if (entries.length === 0) {
    return {
      ok: false,
      message:
        list.length === 0
          ? "The file holds no requests."
          : `None of the ${list.length} entries is a request (each needs method, path and executedAt).`,
    };
  }
  return { ok: true, entries, skipped };
}
