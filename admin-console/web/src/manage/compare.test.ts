import { describe, expect, test } from "vitest";
import type { CompareSection } from "../api/wire";
import { cellText, summary, visibleEntries } from "./compare";

const section: CompareSection = {
  kind: "indexTemplates",
  leftError: null,
  rightError: "This cluster has no ILM API",
  differences: 2,
  entries: [
    { name: "logs-app", state: "different", left: { priority: 1 }, right: { priority: 2 } },
    { name: "metrics", state: "onlyLeft", left: { priority: 5 }, right: null },
    { name: "logs-web", state: "same", left: "1", right: "1" },
  ],
};

describe("compare", () => {
  test("differences only hides the entries that are the same; the filter matches every word", () => {
    expect(visibleEntries(section, true, "").map((e) => e.name)).toEqual(["logs-app", "metrics"]);
    expect(visibleEntries(section, false, "LOGS").map((e) => e.name)).toEqual(["logs-app", "logs-web"]);
    expect(visibleEntries(section, false, "logs web").map((e) => e.name)).toEqual(["logs-web"]);
    expect(visibleEntries(section, true, "web")).toEqual([]);
  });

  test("cells: absent, strings as they are, the rest as JSON", () => {
    expect(cellText(null)).toBe("—");
    expect(cellText(undefined)).toBe("—");
    expect(cellText("30s")).toBe("30s");
    expect(cellText({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(cellText(false)).toBe("false");
  });

  test("the summary adds the differences and counts the sections a side could not read", () => {
    expect(summary([section, { ...section, rightError: null, differences: 1 }])).toEqual({ differences: 3, unreadable: 1 });
  });
});
