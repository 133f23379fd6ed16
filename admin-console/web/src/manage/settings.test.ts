import { describe, expect, it } from "vitest";
import { filterSettings, parseSettingValue, settingRows } from "./settings";

const settings = {
  persistent: { "cluster.routing.allocation.enable": "primaries", "cluster.max_shards_per_node": "2000" },
  transient: { "cluster.routing.allocation.enable": "none" },
  defaults: { "cluster.max_shards_per_node": "1000", "action.auto_create_index": "true" },
};

describe("settingRows", () => {
  it("lists every scope and marks the value in force", () => {
    expect(settingRows(settings).map((r) => [r.key, r.source, r.effective])).toEqual([
      ["action.auto_create_index", "default", true],
      ["cluster.max_shards_per_node", "persistent", true],
      ["cluster.max_shards_per_node", "default", false],
      ["cluster.routing.allocation.enable", "transient", true],
      ["cluster.routing.allocation.enable", "persistent", false],
    ]);
  });
  it("works without defaults", () => {
    expect(settingRows({ ...settings, defaults: null })).toHaveLength(3);
  });
});

describe("filterSettings", () => {
  it("keeps rows whose key or value has every word", () => {
    const rows = settingRows(settings);
    expect(filterSettings(rows, "allocation none").map((r) => r.source)).toEqual(["transient"]);
    expect(filterSettings(rows, "MAX_SHARDS")).toHaveLength(2);
    expect(filterSettings(rows, "  ")).toHaveLength(5);
  });
});

describe("parseSettingValue", () => {
  it("reads JSON scalars, lists and null, and bare text as a string", () => {
    expect(parseSettingValue("5")).toEqual({ ok: true, value: 5 });
    expect(parseSettingValue("true")).toEqual({ ok: true, value: true });
    expect(parseSettingValue("null")).toEqual({ ok: true, value: null });
    expect(parseSettingValue('"1gb"')).toEqual({ ok: true, value: "1gb" });
    expect(parseSettingValue(" primaries ")).toEqual({ ok: true, value: "primaries" });
    expect(parseSettingValue('["zone", "rack"]')).toEqual({ ok: true, value: ["zone", "rack"] });
  });
  it("refuses objects, nested lists, broken JSON and nothing", () => {
    for (const text of ['{"a": 1}', "[[1]]", '["a"', "", "  "]) expect(parseSettingValue(text).ok, text).toBe(false);
    const verdict = parseSettingValue('{"a": 1}');
    expect(!verdict.ok && verdict.error).toContain("set each key");
  });
});
