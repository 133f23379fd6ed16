// The templates view's logic: one list of the three kinds for the table, the filter, the
// skeleton a new template starts from, and the check of a definition before it is sent (the
// same rules the server applies, so the user sees them while typing).
import type { TemplateKind, TemplateList } from "../api/wire";

export interface TemplateRow {
  kind: TemplateKind;
  name: string;
  patterns: string[];
  /** Priority (index templates) or order (legacy templates). */
  priority: number | null;
  composedOf: string[];
  version: number | null;
  dataStream: boolean;
  /** Component templates: the index templates composed of it. */
  usedBy: string[];
}

export function templateRows(list: TemplateList): TemplateRow[] {
  const base = { composedOf: [], dataStream: false, usedBy: [], patterns: [], priority: null };
  return [
    ...list.index.map((t): TemplateRow => ({ ...base, kind: "index", name: t.name, patterns: t.indexPatterns, priority: t.priority, composedOf: t.composedOf, version: t.version, dataStream: t.dataStream })),
    ...list.component.map((t): TemplateRow => ({ ...base, kind: "component", name: t.name, version: t.version, usedBy: t.usedBy })),
    ...list.legacy.map((t): TemplateRow => ({ ...base, kind: "legacy", name: t.name, patterns: t.indexPatterns, priority: t.order, version: t.version })),
  ];
}

/** Rows of `kind` (or all) whose name, patterns or components contain every word of `text`. */
export function filterTemplates(rows: readonly TemplateRow[], kind: TemplateKind | "all", text: string): TemplateRow[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  return rows.filter((row) => {
    if (kind !== "all" && row.kind !== kind) return false;
    const hay = [row.name, ...row.patterns, ...row.composedOf].join(" ").toLowerCase();
    return words.every((word) => hay.includes(word));
  });
}

export const SKELETONS: Record<TemplateKind, Record<string, unknown>> = {
  index: {
    index_patterns: ["logs-*"],
    priority: 100,
    composed_of: [],
    template: { settings: { number_of_shards: 1, number_of_replicas: 1 }, mappings: { properties: {} }, aliases: {} },
  },
  component: { template: { settings: {}, mappings: { properties: {} } } },
  legacy: { index_patterns: ["logs-*"], order: 0, settings: {}, mappings: {}, aliases: {} },
};

export const KIND_LABELS: Record<TemplateKind, string> = { index: "Index template", component: "Component template", legacy: "Legacy template" };

/** The server's name rules: lower case, no spaces, `,` `#` `*` `/` `\` `?` `%` `"` `<` `>` `|`,
 * not starting with `_`, not `.` or `..`, at most 255 bytes. */
export function templateNameProblem(name: string): string | null {
  if (name === "") return "Give the template a name.";
  if (new TextEncoder().encode(name).length > 255) return "The name is longer than 255 bytes.";
  if (name === "." || name === "..") return "The name cannot be . or ..";
  if (name.startsWith("_")) return "The name must not start with _.";
  // eslint-disable-next-line no-control-regex
  const bad = /[\s,#*/\\?%"<>|\u0000-\u001f]/.exec(name);
  if (bad) return `The name must not contain ${JSON.stringify(bad[0])}.`;
  if (name.toLowerCase() !== name) return "The name must be lower case.";
  return null;
}

/** Parses and checks a definition: a JSON object with what its kind needs. */
export function checkDefinition(kind: TemplateKind, text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `The definition is not valid JSON: ${(e as Error).message}` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { ok: false, error: "The definition must be a JSON object ({…})." };
  }
  const object = parsed as Record<string, unknown>;
  if (kind !== "component") {
    const patterns = object.index_patterns;
    const valid =
      (typeof patterns === "string" && patterns !== "") ||
      (Array.isArray(patterns) && patterns.length > 0 && patterns.every((p) => typeof p === "string" && p !== ""));
    if (!valid) return { ok: false, error: 'It needs "index_patterns": a non-empty list of index patterns.' };
  } else if (typeof object.template !== "object" || object.template === null || Array.isArray(object.template)) {
    return { ok: false, error: 'A component template needs "template": an object with settings, mappings or aliases.' };
  }
  return { ok: true, value: object };
}

/** Whether an index template's JSON text has `data_stream` (matching names become data
 * streams); null when the text is not a JSON object. */
export function hasDataStream(text: string): boolean | null {
  const object = jsonObject(text);
  if (object === null) return null;
  const dataStream = object.data_stream;
  return typeof dataStream === "object" && dataStream !== null && !Array.isArray(dataStream);
}

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The JSON text with `data_stream: {}` added (`on`) or removed, the rest kept; null when the
 * text is not a JSON object. */
export function withDataStream(text: string, on: boolean): string | null {
  const object = jsonObject(text);
  if (object === null) return null;
  const { data_stream: existing, ...rest } = object;
  const next = on ? { ...rest, data_stream: hasDataStream(text) ? existing : {} } : rest;
  return JSON.stringify(next, null, 2);
}
