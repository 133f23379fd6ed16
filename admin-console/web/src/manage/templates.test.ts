import { describe, expect, it } from "vitest";
import type { TemplateList } from "../api/wire";
import { checkDefinition, filterTemplates, hasDataStream, templateNameProblem, templateRows, withDataStream } from "./templates";

const list: TemplateList = {
  index: [{ name: "logs", indexPatterns: ["logs-*"], priority: 200, composedOf: ["base"], version: 3, dataStream: true }],
  component: [{ name: "base", version: 1, hasSettings: true, hasMappings: false, hasAliases: false, usedBy: ["logs"] }],
  legacy: [{ name: "old", indexPatterns: ["old-*", "logs-*"], order: 2, version: null }],
  errors: [],
};

describe("templateRows and filterTemplates", () => {
  it("lists the three kinds with their priority or order", () => {
    const rows = templateRows(list);
    expect(rows.map((r) => [r.kind, r.name, r.priority])).toEqual([
      ["index", "logs", 200],
      ["component", "base", null],
      ["legacy", "old", 2],
    ]);
    expect(rows[1].usedBy).toEqual(["logs"]);
  });
  it("filters by kind and by words in names, patterns and components", () => {
    const rows = templateRows(list);
    expect(filterTemplates(rows, "all", "logs").map((r) => r.name)).toEqual(["logs", "old"]);
    expect(filterTemplates(rows, "legacy", "").map((r) => r.name)).toEqual(["old"]);
    expect(filterTemplates(rows, "all", "BASE").map((r) => r.name)).toEqual(["logs", "base"]);
  });
});

describe("templateNameProblem", () => {
  it("follows the server's rules", () => {
    expect(templateNameProblem("logs@mappings")).toBeNull();
    expect(templateNameProblem("")).toContain("name");
    expect(templateNameProblem("Logs")).toContain("lower case");
    expect(templateNameProblem("_x")).toContain("start with _");
    expect(templateNameProblem("a/b")).toContain('"/"');
    expect(templateNameProblem("a b")).toContain("contain");
  });
});

describe("checkDefinition", () => {
  it("accepts what the kind needs", () => {
    expect(checkDefinition("index", '{"index_patterns": ["a-*"]}').ok).toBe(true);
    expect(checkDefinition("legacy", '{"index_patterns": "a-*"}').ok).toBe(true);
    expect(checkDefinition("component", '{"template": {}}').ok).toBe(true);
  });
  it("says what is wrong", () => {
    const error = (kind: "index" | "component" | "legacy", text: string) => {
      const verdict = checkDefinition(kind, text);
      return verdict.ok ? "" : verdict.error;
    };
    expect(error("index", "{")).toContain("not valid JSON");
    expect(error("index", "[1]")).toContain("JSON object");
    expect(error("index", "{}")).toContain("index_patterns");
    expect(error("index", '{"index_patterns": []}')).toContain("index_patterns");
    expect(error("component", '{"settings": {}}')).toContain('"template"');
  });
});

describe("the data stream option of an index template", () => {
  it("is read from the definition", () => {
    expect(hasDataStream('{"index_patterns": ["logs-*"], "data_stream": {}}')).toBe(true);
    expect(hasDataStream('{"index_patterns": ["logs-*"]}')).toBe(false);
    expect(hasDataStream('{"data_stream": true}')).toBe(false);
    expect(hasDataStream("[1]")).toBeNull();
    expect(hasDataStream("{")).toBeNull();
  });

  it("is switched on and off, the rest and its own settings kept", () => {
    const on = withDataStream('{"index_patterns": ["logs-*"], "priority": 5}', true);
    expect(JSON.parse(on ?? "")).toEqual({ index_patterns: ["logs-*"], priority: 5, data_stream: {} });
    const kept = withDataStream('{"index_patterns": ["a"], "data_stream": {"hidden": true}}', true);
    expect(JSON.parse(kept ?? "")).toEqual({ index_patterns: ["a"], data_stream: { hidden: true } });
    expect(JSON.parse(withDataStream(on ?? "", false) ?? "")).toEqual({ index_patterns: ["logs-*"], priority: 5 });
    expect(withDataStream("not json", true)).toBeNull();
  });
});
