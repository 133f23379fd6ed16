// The cluster settings view's logic: one row per key with its scope and whether it is the value
// in force (transient over persistent over default), the key filter, and reading a typed value.
import type { ClusterSettings } from "../api/wire";
import type { SettingValue } from "../api/settings";

export type SettingSource = "transient" | "persistent" | "default";

export interface SettingRow {
  key: string;
  value: unknown;
  source: SettingSource;
  /** False when a transient value hides this persistent one, or a set value hides this default. */
  effective: boolean;
}

/** Every key of every scope, sorted by key then by precedence. */
export function settingRows(settings: ClusterSettings): SettingRow[] {
  const rows: SettingRow[] = [];
  const set = new Set<string>();
  for (const [key, value] of Object.entries(settings.transient)) {
    rows.push({ key, value, source: "transient", effective: true });
    set.add(key);
  }
  for (const [key, value] of Object.entries(settings.persistent)) {
    rows.push({ key, value, source: "persistent", effective: !(key in settings.transient) });
    set.add(key);
  }
  for (const [key, value] of Object.entries(settings.defaults ?? {})) {
    rows.push({ key, value, source: "default", effective: !set.has(key) });
  }
  const rank: Record<SettingSource, number> = { transient: 0, persistent: 1, default: 2 };
  return rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : rank[a.source] - rank[b.source]));
}

/** Rows whose key (or value) contains every word of `text`, case-insensitively. */
export function filterSettings(rows: readonly SettingRow[], text: string): SettingRow[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...rows];
  return rows.filter((row) => {
    const hay = `${row.key} ${formatSetting(row.value)}`.toLowerCase();
    return words.every((word) => hay.includes(word));
  });
}

export function formatSetting(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

const isScalar = (v: unknown) => typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/** A typed value: JSON (`5`, `true`, `"1gb"`, `["a","b"]`, `null` to reset) or, when it is not
 * JSON, the text itself as a string (`primaries`, `50mb`). Objects are refused: each key of a
 * group is its own setting. */
export function parseSettingValue(text: string): { ok: true; value: SettingValue } | { ok: false; error: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, error: "Type a value, or null to reset the setting to its default." };
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    if (/^[[{"]/.test(trimmed)) return { ok: false, error: "The value starts like JSON but is not valid JSON." };
    return { ok: true, value: trimmed };
  }
  if (parsed === null || isScalar(parsed)) return { ok: true, value: parsed as SettingValue };
  if (Array.isArray(parsed) && parsed.every(isScalar)) return { ok: true, value: parsed as SettingValue };
  return { ok: false, error: "A setting's value is a string, a number, a boolean, a list of those, or null; an object is a group of settings: set each key." };
}

/** The text to start editing a value from. */
export function editText(value: unknown): string {
  return value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
}

/** The key the allocation lock in the header also writes (persistent). */
export const ALLOCATION_KEY = "cluster.routing.allocation.enable";
