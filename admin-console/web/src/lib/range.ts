// Time ranges for the Statistics view. Everything on the wire is Unix seconds (UTC); the
// browser converts to local time only for display and for the date-time inputs.

export type Preset = "1h" | "6h" | "24h" | "7d" | "30d";

export const PRESETS: ReadonlyArray<{ id: Preset; label: string; seconds: number }> = [
  { id: "1h", label: "Last 1 hour", seconds: 3600 },
  { id: "6h", label: "Last 6 hours", seconds: 6 * 3600 },
  { id: "24h", label: "Last 24 hours", seconds: 24 * 3600 },
  { id: "7d", label: "Last 7 days", seconds: 7 * 86400 },
  { id: "30d", label: "Last 30 days", seconds: 30 * 86400 },
];

export const DEFAULT_PRESET: Preset = "24h";

export type RangeSelection =
  | { kind: "preset"; preset: Preset }
  | { kind: "custom"; start: number; end: number };

export interface TimeRange {
  start: number;
  end: number;
}

export function isPreset(value: string): value is Preset {
  return PRESETS.some((p) => p.id === value);
}

/** The concrete `[start, end]` of a selection; presets end at `nowSeconds`. */
export function resolveRange(selection: RangeSelection, nowSeconds: number): TimeRange {
  if (selection.kind === "custom") return { start: selection.start, end: selection.end };
  const preset = PRESETS.find((p) => p.id === selection.preset) ?? PRESETS[2];
  const end = Math.floor(nowSeconds);
  return { start: end - preset.seconds, end };
}

// Anything above this is in milliseconds: 10^11 seconds is the year 5138.
const MAX_PLAUSIBLE_SECONDS = 99_999_999_999;

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** A Unix time in seconds as written in a URL; milliseconds and non-numbers are refused. */
export function parseUnixSeconds(text: string | null | undefined, name = "time"): Parsed<number> {
  if (text == null || text.trim() === "") return { ok: false, error: `${name} is missing` };
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) {
    return { ok: false, error: `${name} must be Unix seconds (a whole number), not "${trimmed}"` };
  }
  const value = Number(trimmed);
  if (value > MAX_PLAUSIBLE_SECONDS) {
    return { ok: false, error: `${name} looks like milliseconds; use Unix seconds` };
  }
  return { ok: true, value };
}

/** Checks a custom range: both ends set and start strictly before end. */
export function validateRange(start: number, end: number): string | null {
  if (!Number.isFinite(start) || !Number.isFinite(end)) return "Both start and end are required";
  if (start >= end) return "The start must be before the end";
  return null;
}

/** `YYYY-MM-DDTHH:mm` (a datetime-local input, local time) to Unix seconds, or null. */
export function parseLocalDateTime(value: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m;
  const date = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0));
  // Reject dates the Date constructor silently rolled over (e.g. February 31st).
  if (date.getMonth() !== Number(mo) - 1 || date.getDate() !== Number(d)) return null;
  return Math.floor(date.getTime() / 1000);
}

const pad = (n: number) => String(n).padStart(2, "0");

/** Unix seconds to the local `YYYY-MM-DDTHH:mm` a datetime-local input shows. */
export function toLocalDateTimeInput(seconds: number): string {
  const d = new Date(seconds * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A short local-time label for a range, e.g. "2026-11-20 14:00 → 2026-11-21 09:30". */
export function formatRange(range: TimeRange): string {
  const f = (s: number) => toLocalDateTimeInput(s).replace("T", " ");
  return `${f(range.start)} → ${f(range.end)}`;
}

export function describeSelection(selection: RangeSelection): string {
  if (selection.kind === "custom") return formatRange(selection);
  return PRESETS.find((p) => p.id === selection.preset)?.label ?? selection.preset;
}
