// Console history: per cluster, newest first, capped, kept in the browser's storage so it
// survives browser sessions. A full storage quota drops the oldest entries instead of failing.
import type { KeyValueStorage } from "../lib/storage";

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
