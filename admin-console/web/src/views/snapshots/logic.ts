// The Snapshots view's plain logic (Vitest tests beside): default names, the name rules the
// server applies, index pattern lists, the rename preview, progress and the virtual window.
import type { SnapshotProgress, SnapshotRow, SnapshotState } from "../../api/wire";

const pad = (n: number) => String(n).padStart(2, "0");

/** `snapshot-2026.11.24-042359`: the date and time (UTC), lowercase, unique to the second. */
export function defaultSnapshotName(now: Date): string {
  return `snapshot-${now.getUTCFullYear()}.${pad(now.getUTCMonth() + 1)}.${pad(now.getUTCDate())}-${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
}

const FORBIDDEN = ["\\", "/", "*", "?", '"', "<", ">", "|", ",", "#"];

/** Why `name` is not a valid snapshot (or repository) name, or null: the server's rules. */
export function nameProblem(name: string, kind: "snapshot" | "repository"): string | null {
  if (name === "") return `The ${kind} name must not be empty.`;
  if (new TextEncoder().encode(name).length > 255) return `The ${kind} name is longer than 255 bytes.`;
  if (/\s/.test(name)) return `The ${kind} name must not contain whitespace.`;
  const bad = FORBIDDEN.find((c) => name.includes(c));
  if (bad) return `The ${kind} name must not contain '${bad}'.`;
  if (name.startsWith("_")) return `The ${kind} name must not start with '_'.`;
  if (name === "." || name === "..") return `The ${kind} name must not be '.' or '..'.`;
  if (kind === "snapshot" && name.toLowerCase() !== name) return "The snapshot name must be lowercase.";
  return null;
}

/** Index names or patterns typed as a list (commas, spaces or new lines between them). */
export function parsePatterns(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

/** What an index is restored as with this rename (JavaScript's regex, close to the cluster's
 * Java one for the usual patterns): the first match replaced, `$1`… as groups. Null when the
 * pattern does not compile here. */
export function renamed(index: string, pattern: string, replacement: string): string | null {
  if (!pattern) return index;
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch {
    return null;
  }
  return index.replace(regex, replacement);
}

/** The indices of a restore: the ticked ones, or every one (an empty list) when all are. */
export function restoreSelection(all: string[], ticked: ReadonlySet<string>): string[] {
  if (ticked.size === 0 || all.every((i) => ticked.has(i))) return [];
  return all.filter((i) => ticked.has(i));
}

export const isRunning = (state: SnapshotState | undefined) => state === "IN_PROGRESS";

/** Shards and bytes done as a fraction 0..1 (bytes when there are, else shards). */
export function progressFraction(p: SnapshotProgress): number {
  if (p.bytesTotal > 0) return Math.min(1, p.bytesDone / p.bytesTotal);
  if (p.shardsTotal > 0) return Math.min(1, p.shardsDone / p.shardsTotal);
  return isRunning(p.state) ? 0 : 1;
}

/** `3.2 s`, `4 min 05 s`, `2 h 03 min`; `–` without a value. */
export function formatElapsed(ms: number | null | undefined): string {
  if (ms == null) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${pad(Math.floor(s % 60))} s`;
  return `${Math.floor(m / 60)} h ${pad(m % 60)} min`;
}

/** The rows of a fixed-height list to render for a scroll position (plus `overscan` each side). */
export function visibleRange(
  scrollTop: number,
  viewport: number,
  rowHeight: number,
  count: number,
  overscan = 8,
): { start: number; end: number } {
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const visible = Math.ceil(Math.max(viewport, rowHeight) / rowHeight);
  return { start: Math.max(0, first - overscan), end: Math.min(count, first + visible + overscan) };
}

/** The snapshots whose name contains `filter` (case-insensitive), in the server's order. */
export function filterSnapshots(rows: SnapshotRow[], filter: string): SnapshotRow[] {
  const f = filter.trim().toLowerCase();
  return f ? rows.filter((r) => r.name.toLowerCase().includes(f)) : rows;
}

/** A repository's place, shown in its row: the fs location or the URL. */
export function repositoryPlace(settings: Record<string, unknown>): string {
  const place = settings.location ?? settings.url ?? settings.bucket ?? settings.container;
  return typeof place === "string" ? place : "";
}
