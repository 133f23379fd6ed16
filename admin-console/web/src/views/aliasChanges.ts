// The pending alias changes of the Aliases view: collected one by one, shown, then applied
// together as one atomic `_aliases` call. Pure functions, tested directly.
import type { AliasAction, AliasRow } from "../api/wire";
import { parseJsonObject } from "../lib/json";
import { nameProblem } from "./indexForms";

export interface AddForm {
  index: string;
  alias: string;
  filter: string;
  indexRouting: string;
  searchRouting: string;
  isWriteIndex: "unset" | "true" | "false";
}

export const EMPTY_ADD_FORM: AddForm = { index: "", alias: "", filter: "", indexRouting: "", searchRouting: "", isWriteIndex: "unset" };

export type Checked<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/** One add action from the form, or every problem at once. */
export function addAction(form: AddForm): Checked<AliasAction> {
  const errors: string[] = [];
  const index = form.index.trim();
  const alias = form.alias.trim();
  const indexProblem = nameProblem(index, "index");
  const aliasProblem = nameProblem(alias, "alias");
  if (indexProblem) errors.push(indexProblem);
  if (aliasProblem) errors.push(aliasProblem);
  const filter = parseJsonObject(form.filter, "Filter");
  if (!filter.ok) errors.push(filter.error);
  if (errors.length > 0) return { ok: false, errors };
  const add: Extract<AliasAction, { add: unknown }>["add"] = { index, alias };
  if (filter.ok && filter.value && Object.keys(filter.value).length > 0) add.filter = filter.value;
  if (form.indexRouting.trim()) add.indexRouting = form.indexRouting.trim();
  if (form.searchRouting.trim()) add.searchRouting = form.searchRouting.trim();
  if (form.isWriteIndex !== "unset") add.isWriteIndex = form.isWriteIndex === "true";
  return { ok: true, value: { add } };
}

export function removeAction(row: Pick<AliasRow, "index" | "alias">): AliasAction {
  return { remove: { index: row.index, alias: row.alias } };
}

const key = (action: AliasAction) => {
  const { index, alias } = "add" in action ? action.add : action.remove;
  return `${index}\u0000${alias}`;
};

/** Adds a change to the pending list: a change of the same index and alias replaces the older
 * one (adding then removing the same pair is just the removal, which the cluster applies in
 * order anyway). */
export function withChange(pending: readonly AliasAction[], action: AliasAction): AliasAction[] {
  const k = key(action);
  const kept = pending.filter((p) => key(p) !== k);
  return [...kept, action];
}

export function withoutChange(pending: readonly AliasAction[], position: number): AliasAction[] {
  return pending.filter((_, i) => i !== position);
}

/** Whether a row of the list is about to be removed. */
export function isPendingRemoval(pending: readonly AliasAction[], row: Pick<AliasRow, "index" | "alias">): boolean {
  return pending.some((p) => "remove" in p && p.remove.index === row.index && p.remove.alias === row.alias);
}

/** A change in words ("add logs → logs-2 (write index, filtered)"). */
export function describe(action: AliasAction): string {
  if ("remove" in action) return `remove ${action.remove.alias} from ${action.remove.index}`;
  const a = action.add;
  const extras = [
    a.isWriteIndex === true ? "write index" : a.isWriteIndex === false ? "not the write index" : null,
    a.filter ? "filtered" : null,
    a.indexRouting ? `index routing ${a.indexRouting}` : null,
    a.searchRouting ? `search routing ${a.searchRouting}` : null,
  ].filter(Boolean);
  return `add ${a.alias} to ${a.index}${extras.length ? ` (${extras.join(", ")})` : ""}`;
}

/** Rows whose alias or index contains `filter` (case-insensitive). */
export function filterRows(rows: readonly AliasRow[], filter: string): AliasRow[] {
  const f = filter.trim().toLowerCase();
  if (!f) return [...rows];
  return rows.filter((r) => r.alias.toLowerCase().includes(f) || r.index.toLowerCase().includes(f));
}

/** The add form filled from an existing alias, to change its filter, routing or write flag
 * (adding an alias that exists replaces its properties). */
export function formFromRow(row: AliasRow): AddForm {
  return {
    index: row.index,
    alias: row.alias,
    filter: row.filter ? JSON.stringify(row.filter, null, 2) : "",
    indexRouting: row.indexRouting ?? "",
    searchRouting: row.searchRouting ?? "",
    isWriteIndex: row.isWriteIndex === true ? "true" : row.isWriteIndex === false ? "false" : "unset",
  };
}
