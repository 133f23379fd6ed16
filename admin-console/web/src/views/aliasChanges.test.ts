import { describe, expect, it } from "vitest";
import type { AliasRow } from "../api/wire";
import { addAction, describe as say, EMPTY_ADD_FORM, filterRows, formFromRow, isPendingRemoval, removeAction, withChange, withoutChange } from "./aliasChanges";

describe("the add form", () => {
  it("becomes one add action with only what was given", () => {
    expect(addAction({ ...EMPTY_ADD_FORM, index: " logs-2 ", alias: "logs" })).toEqual({ ok: true, value: { add: { index: "logs-2", alias: "logs" } } });
    expect(
      addAction({ index: "logs-2", alias: "logs", filter: '{"term": {"a": "x"}}', indexRouting: "1", searchRouting: "1,2", isWriteIndex: "true" }),
    ).toEqual({
      ok: true,
      value: { add: { index: "logs-2", alias: "logs", filter: { term: { a: "x" } }, indexRouting: "1", searchRouting: "1,2", isWriteIndex: true } },
    });
    expect(addAction({ ...EMPTY_ADD_FORM, index: "a", alias: "b", isWriteIndex: "false" })).toEqual({
      ok: true,
      value: { add: { index: "a", alias: "b", isWriteIndex: false } },
    });
  });

  it("lists every problem", () => {
    const checked = addAction({ ...EMPTY_ADD_FORM, index: "logs-*", alias: "", filter: "[" });
    expect(checked.ok ? [] : checked.errors).toEqual([
      'The index name contains "*"; use one name, no wildcards or lists.',
      "The alias name is empty.",
      expect.stringMatching(/^Filter is not valid JSON/),
    ]);
  });
});

describe("pending changes", () => {
  const add = { add: { index: "a", alias: "x" } };
  const remove = removeAction({ index: "a", alias: "x" });
  it("keep one change per index and alias, the latest", () => {
    let pending = withChange([], add);
    pending = withChange(pending, { add: { index: "b", alias: "x" } });
    pending = withChange(pending, remove);
    expect(pending).toEqual([{ add: { index: "b", alias: "x" } }, remove]);
    expect(isPendingRemoval(pending, { index: "a", alias: "x" })).toBe(true);
    expect(isPendingRemoval(pending, { index: "b", alias: "x" })).toBe(false);
    expect(withoutChange(pending, 0)).toEqual([remove]);
  });

  it("are described in words", () => {
    expect(say(remove)).toBe("remove x from a");
    expect(say({ add: { index: "a", alias: "x", isWriteIndex: true, filter: {}, searchRouting: "1" } })).toBe(
      "add x to a (write index, filtered, search routing 1)",
    );
  });
});

it("rows filter by alias or index", () => {
  const row = (alias: string, index: string): AliasRow => ({ alias, index, filter: null, indexRouting: null, searchRouting: null, isWriteIndex: null, isHidden: null });
  const rows = [row("logs", "logs-1"), row("metrics", "m-1"), row("all", "LOGS-2")];
  expect(filterRows(rows, "logs").map((r) => r.index)).toEqual(["logs-1", "LOGS-2"]);
  expect(filterRows(rows, " ")).toHaveLength(3);
});

it("an existing alias fills the form, and comes back as the same add", () => {
  const row: AliasRow = { alias: "logs", index: "l-1", filter: { term: { a: "x" } }, indexRouting: "1", searchRouting: null, isWriteIndex: false, isHidden: null };
  const form = formFromRow(row);
  expect(form.isWriteIndex).toBe("false");
  expect(addAction(form)).toEqual({
    ok: true,
    value: { add: { index: "l-1", alias: "logs", filter: { term: { a: "x" } }, indexRouting: "1", isWriteIndex: false } },
  });
});
