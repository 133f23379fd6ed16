import { describe, expect, test } from "vitest";
import { draftFrom, formOf, hasUnsavedText, importSummary, parseTags, visibilityChoices } from "./saved";

describe("saved queries", () => {
  test("tags are trimmed, distinct and never empty", () => {
    expect(parseTags(" daily, health,daily ,, ")).toEqual(["daily", "health"]);
    expect(parseTags("")).toEqual([]);
  });

  test("a query may be private or shared with one of the caller's groups", () => {
    expect(visibilityChoices(["staff", "sre-oncall"])).toEqual(["private", "group:staff", "group:sre-oncall"]);
    expect(visibilityChoices([])).toEqual(["private"]);
  });

  test("the draft needs a name and text, and names this cluster or all", () => {
    const form = { name: " Health ", tags: "a, b", visibility: "private" as const, thisClusterOnly: true };
    expect(draftFrom(form, "GET /_cluster/health", "prod")).toEqual({
      draft: { name: "Health", tags: ["a", "b"], text: "GET /_cluster/health", cluster: "prod", visibility: "private" },
    });
    expect(draftFrom({ ...form, thisClusterOnly: false }, "GET /", "prod")).toMatchObject({ draft: { cluster: "all" } });
    expect(draftFrom({ ...form, name: " " }, "GET /", "prod")).toEqual({ problem: "Give the query a name." });
    expect(draftFrom(form, "  \n", "prod")).toHaveProperty("problem");
  });

  test("only text nobody saved counts as unsaved", () => {
    const start = "# hint\nGET /_cluster/health\n";
    expect(hasUnsavedText(start, null, start)).toBe(false);
    expect(hasUnsavedText("  ", null, start)).toBe(false);
    expect(hasUnsavedText("GET /_cat/nodes", "GET /_cat/nodes\n", start)).toBe(false);
    expect(hasUnsavedText("GET /_cat/nodes?v", "GET /_cat/nodes", start)).toBe(true);
    expect(hasUnsavedText("GET /x", null, start)).toBe(true);
  });

  test("an edit starts from the stored fields", () => {
    const form = formOf({
      id: "1", name: "N", tags: ["a", "b"], text: "GET /", cluster: "all", visibility: "group:staff",
      owner: "vera", version: 3, updated_at: "2026-11-28T12:00:00Z",
    });
    expect(form).toEqual({ name: "N", tags: "a, b", visibility: "group:staff", thisClusterOnly: false });
  });

  test("an import summary names what was skipped and why", () => {
    expect(importSummary({ created: [1, 2], skipped: [] })).toBe("2 created");
    expect(importSummary({ created: [], skipped: [{ name: "Nodes", reason: "you already have this query" }] })).toBe(
      "0 created, 1 skipped (Nodes: you already have this query)",
    );
  });
});
