import { describe, expect, it } from "vitest";
import { buildCreateIndex, deleteConfirmation, EMPTY_CREATE_FORM, INDEX_ACTIONS, keepVisible, nameProblem, summarise } from "./indexForms";
import { settingsEdit, showValue } from "./indexSettings";
import { parseJsonObject } from "../lib/json";
import { rowWindow } from "../components/useVirtualRows";

describe("index names", () => {
  it("follow the server's rules, each with its message", () => {
    for (const name of ["logs-2026.11", ".kibana_1", "é", "x+y", "a".repeat(255)]) expect(nameProblem(name)).toBeNull();
    const cases: Array<[string, string]> = [
      ["", "is empty"],
      ["Logs", "must be lowercase"],
      ["_all", "must not start with"],
      ["-x", "must not start with"],
      ["logs-*", 'contains "*"'],
      ["a,b", 'contains ","'],
      ["a/b", 'contains "/"'],
      ["a b", "contains a space"],
      ["remote:x", 'contains ":"'],
      ["..", "is not a name"],
      ["é".repeat(128), "256 bytes long"],
    ];
    for (const [name, message] of cases) expect(nameProblem(name), name).toContain(message);
    expect(nameProblem("Read-Alias", "alias")).toBeNull();
    expect(nameProblem("a+b", "index", true)).toContain("OpenSearch");
  });
});

describe("the create form", () => {
  it("becomes the documented body", () => {
    const checked = buildCreateIndex({
      name: " orders-1 ",
      shards: "2",
      replicas: "0",
      settings: '{"index": {"refresh_interval": "5s"}}',
      mappings: '{"properties": {"sku": {"type": "keyword"}}}',
    });
    expect(checked).toEqual({
      ok: true,
      value: {
        name: "orders-1",
        shards: 2,
        replicas: 0,
        settings: { index: { refresh_interval: "5s" } },
        mappings: { properties: { sku: { type: "keyword" } } },
      },
    });
    expect(buildCreateIndex({ ...EMPTY_CREATE_FORM, name: "x", shards: "", replicas: "" })).toEqual({ ok: true, value: { name: "x" } });
  });

  it("lists every problem before sending", () => {
    const checked = buildCreateIndex({ name: "Bad*", shards: "0", replicas: "1.5", settings: "{oops", mappings: "[1]" });
    expect(checked.ok).toBe(false);
    const errors = checked.ok ? [] : checked.errors;
    expect(errors).toHaveLength(5);
    expect(errors[0]).toContain('contains "*"');
    expect(errors[1]).toBe("Shards must be a whole number between 1 and 1024.");
    expect(errors[2]).toBe("Replicas must be a whole number between 0 and 1024.");
    expect(errors[3]).toMatch(/^Settings is not valid JSON: .*line 1, column/);
    expect(errors[4]).toBe("Mappings must be a JSON object ({…}), not a list.");
    const twice = buildCreateIndex({ ...EMPTY_CREATE_FORM, name: "x", settings: '{"index.number_of_shards": 3}' });
    expect(twice.ok ? [] : twice.errors).toEqual(["number_of_shards is given twice: in Shards and in Settings; keep one."]);
  });
});

describe("JSON objects", () => {
  it("are empty, an object, or an error naming the field", () => {
    expect(parseJsonObject("  ", "Filter")).toEqual({ ok: true, value: undefined });
    expect(parseJsonObject('{"a": 1}', "Filter")).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonObject("3", "Filter")).toEqual({ ok: false, error: "Filter must be a JSON object ({…}), not a number." });
    expect(parseJsonObject("null", "Filter")).toEqual({ ok: false, error: "Filter must be a JSON object ({…}), not null." });
    const broken = parseJsonObject('{\n  "a": }', "Filter");
    expect(broken.ok).toBe(false);
    expect(broken.ok ? "" : broken.error).toMatch(/^Filter is not valid JSON: /);
  });
});

describe("bulk actions", () => {
  it("need the typed text the server checks", () => {
    expect(deleteConfirmation(1)).toBe("delete 1 index");
    expect(deleteConfirmation(3)).toBe("delete 3 indices");
  });

  it("carry the server's roles and confirm what is destructive", () => {
    const role = Object.fromEntries(INDEX_ACTIONS.map((a) => [a.action, a.role]));
    expect(role).toEqual({
      refresh: "operator",
      flush: "operator",
      forcemerge: "operator",
      clear_cache: "operator",
      close: "operator",
      open: "operator",
      block_write: "admin",
      unblock_write: "admin",
      delete: "admin",
    });
    expect(INDEX_ACTIONS.filter((a) => a.confirm).map((a) => a.action)).toEqual(["forcemerge", "close", "block_write", "delete"]);
  });

  it("summarise their per-index results", () => {
    expect(summarise({ action: "close", results: [{ index: "a", ok: true, message: null }, { index: "b", ok: true, message: null }] })).toBe("Close: done on 2 indices.");
    expect(summarise({ action: "delete", results: [{ index: "a", ok: true, message: null }, { index: "b", ok: false, message: "no such index" }] })).toBe("Delete: 1 done, 1 failed.");
  });

  it("keep only the selected names still shown", () => {
    expect([...keepVisible(new Set(["a", "b", "c"]), ["b", "c", "d"])]).toEqual(["b", "c"]);
  });
});

describe("settings edits", () => {
  it("send text or null, and skip empty fields", () => {
    expect(settingsEdit({ "index.refresh_interval": " 5s ", "index.blocks.write": null, "index.max_result_window": "" })).toEqual({
      "index.refresh_interval": "5s",
      "index.blocks.write": null,
    });
    expect(showValue(["a", "b"])).toBe("a,b");
    expect(showValue(null)).toBeNull();
    expect(showValue("1")).toBe("1");
  });
});

describe("the row window", () => {
  it("renders a bounded slice with spacers keeping the height", () => {
    const top = rowWindow(10_000, 37, 0, 740);
    expect(top).toEqual({ start: 0, end: 40, before: 0, after: (10_000 - 40) * 37 });
    const middle = rowWindow(10_000, 37, 37 * 5000, 740);
    expect(middle.start).toBe(4990);
    expect(middle.end - middle.start).toBe(40);
    expect(middle.before + (middle.end - middle.start) * 37 + middle.after).toBe(10_000 * 37);
    const bottom = rowWindow(100, 37, 37 * 100, 740);
    expect(bottom.end).toBe(100);
    expect(bottom.end - bottom.start).toBe(40);
    // No layout (jsdom, first paint): a fixed number of rows.
    expect(rowWindow(1000, 37, 0, 0).end).toBe(60);
    expect(rowWindow(3, 37, 0, 740)).toEqual({ start: 0, end: 3, before: 0, after: 0 });
  });
});
