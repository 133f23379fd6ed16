// The logic of the index forms, kept out of the components so tests call it directly: the
// index name rules (the server's, docs/api/admin-console.md), the create body, the bulk
// actions and what each needs, and the reading of per-index results.
import type { ActionAnswer, CreateIndex, IndexAction } from "../api/wire";
import { ACTION_ROLES, type Role } from "../lib/access";
import { parseJsonObject } from "../lib/json";

const FORBIDDEN = ["\\", "/", "*", "?", '"', "<", ">", "|", ",", "#", ":", " "];

/** Why `name` is not a valid index (or alias) name, or null. The same rules as the server:
 * lowercase (indices), none of \ / * ? " < > | , # : or spaces, not starting with - _ +, not
 * . or .., at most 255 bytes; OpenSearch also refuses + in a new index's name. */
export function nameProblem(name: string, kind: "index" | "alias" = "index", opensearch = false): string | null {
  if (name === "") return `The ${kind} name is empty.`;
  const bytes = new TextEncoder().encode(name).length;
  if (bytes > 255) return `The ${kind} name is ${bytes} bytes long; the limit is 255.`;
  if (name === "." || name === "..") return `"${name}" is not a name.`;
  if (/^[-_+]/.test(name)) return `The ${kind} name must not start with -, _ or +.`;
  const bad = FORBIDDEN.find((c) => name.includes(c));
  if (bad !== undefined) return `The ${kind} name contains ${bad === " " ? "a space" : `"${bad}"`}; use one name, no wildcards or lists.`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return `The ${kind} name contains a control character.`;
  if (kind === "index" && name !== name.toLowerCase()) return "The index name must be lowercase.";
  if (kind === "index" && opensearch && name.includes("+")) return "OpenSearch does not accept \"+\" in index names.";
  return null;
}

export interface CreateForm {
  name: string;
  shards: string;
  replicas: string;
  settings: string;
  mappings: string;
}

export const EMPTY_CREATE_FORM: CreateForm = { name: "", shards: "1", replicas: "1", settings: "", mappings: "" };

export type Checked<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/** A whole number field in [min, max]; empty is undefined; out of range adds its problem. */
export function whole(text: string, field: string, min: number, max: number, errors: string[]): number | undefined {
  if (text.trim() === "") return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    errors.push(`${field} must be a whole number between ${min} and ${max}.`);
    return undefined;
  }
  return value;
}

/** The body of `POST /indices`, or every problem of the form at once. */
export function buildCreateIndex(form: CreateForm, opensearch = false): Checked<CreateIndex> {
  const errors: string[] = [];
  const name = form.name.trim();
  const problem = nameProblem(name, "index", opensearch);
  if (problem) errors.push(problem);
  const shards = whole(form.shards, "Shards", 1, 1024, errors);
  const replicas = whole(form.replicas, "Replicas", 0, 1024, errors);
  const settings = parseJsonObject(form.settings, "Settings");
  const mappings = parseJsonObject(form.mappings, "Mappings");
  if (!settings.ok) errors.push(settings.error);
  if (!mappings.ok) errors.push(mappings.error);
  if (settings.ok && settings.value) {
    const keys = flatKeys(settings.value).map((k) => k.replace(/^index\./, ""));
    if (shards !== undefined && keys.includes("number_of_shards")) errors.push("number_of_shards is given twice: in Shards and in Settings; keep one.");
    if (replicas !== undefined && keys.includes("number_of_replicas")) errors.push("number_of_replicas is given twice: in Replicas and in Settings; keep one.");
  }
  if (mappings.ok && mappings.value && "properties" in mappings.value) {
    const properties = mappings.value.properties;
    if (typeof properties !== "object" || properties === null || Array.isArray(properties)) errors.push("Mappings: properties must be a JSON object.");
  }
  if (errors.length > 0) return { ok: false, errors };
  const body: CreateIndex = { name };
  if (shards !== undefined) body.shards = shards;
  if (replicas !== undefined) body.replicas = replicas;
  if (settings.ok && settings.value) body.settings = settings.value;
  if (mappings.ok && mappings.value) body.mappings = mappings.value;
  return { ok: true, value: body };
}

export function flatKeys(object: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(object).flatMap(([key, value]) =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? flatKeys(value as Record<string, unknown>, `${prefix}${key}.`)
      : [`${prefix}${key}`],
  );
}

/** The text a delete of `count` indices needs (the server checks the same). */
export function deleteConfirmation(count: number): string {
  return count === 1 ? "delete 1 index" : `delete ${count} indices`;
}

export interface ActionInfo {
  action: IndexAction;
  label: string;
  /** What it does, for the button's title and the confirmation. */
  hint: string;
  role: Role;
  /** Asks for a confirmation first. */
  confirm: boolean;
}

/** The actions of the index list and page, in menu order, with the role each needs (the
 * server's table: docs/api/admin-console.md). */
export const INDEX_ACTIONS: readonly ActionInfo[] = [
  { action: "refresh", label: "Refresh", hint: "make recent writes searchable", role: ACTION_ROLES.indexMaintenance, confirm: false },
  { action: "flush", label: "Flush", hint: "write the transaction log to disk", role: ACTION_ROLES.indexMaintenance, confirm: false },
  { action: "forcemerge", label: "Force merge", hint: "merge segments (heavy on disk and CPU)", role: ACTION_ROLES.indexMaintenance, confirm: true },
  { action: "clear_cache", label: "Clear cache", hint: "drop the query, request and field data caches", role: ACTION_ROLES.indexMaintenance, confirm: false },
  { action: "close", label: "Close", hint: "serves no searches or writes until opened again", role: ACTION_ROLES.closeIndex, confirm: true },
  { action: "open", label: "Open", hint: "serve searches and writes again", role: ACTION_ROLES.openIndex, confirm: false },
  { action: "block_write", label: "Block writes", hint: "refuse writes; reads go on", role: ACTION_ROLES.indexWriteBlock, confirm: true },
  { action: "unblock_write", label: "Unblock writes", hint: "accept writes again", role: ACTION_ROLES.indexWriteBlock, confirm: false },
  { action: "delete", label: "Delete", hint: "deletes the data for good", role: ACTION_ROLES.deleteIndex, confirm: true },
];

export function actionInfo(action: IndexAction): ActionInfo {
  return INDEX_ACTIONS.find((a) => a.action === action)!;
}

/** A one-line summary of a bulk answer ("Close: 2 done, 1 failed."). */
export function summarise(answer: ActionAnswer): string {
  const ok = answer.results.filter((r) => r.ok).length;
  const failed = answer.results.length - ok;
  const label = actionInfo(answer.action).label;
  if (failed === 0) return `${label}: done on ${ok} ${ok === 1 ? "index" : "indices"}.`;
  return `${label}: ${ok} done, ${failed} failed.`;
}

/** The selection after a change of the list: names no longer shown are dropped. */
export function keepVisible(selected: ReadonlySet<string>, visible: readonly string[]): Set<string> {
  const shown = new Set(visible);
  return new Set([...selected].filter((name) => shown.has(name)));
}
