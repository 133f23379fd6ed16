import { describe, expect, it } from "vitest";
import { analyzeRequest, catNumber, filterCatRows, sortCatRows, splitNames, type AnalyzeForm } from "./analysis";

const form = (over: Partial<AnalyzeForm>): AnalyzeForm => ({
  mode: "analyzer",
  text: "Hello World",
  index: "",
  analyzer: "standard",
  field: "",
  tokenizer: "",
  filters: "",
  charFilters: "",
  explain: false,
  ...over,
});

describe("analyzeRequest", () => {
  it("builds each mode's request", () => {
    expect(analyzeRequest(form({}))).toEqual({ request: { text: "Hello World", analyzer: "standard", explain: false } });
    expect(analyzeRequest(form({ mode: "field", index: " logs ", field: "title" }))).toEqual({
      request: { text: "Hello World", index: "logs", field: "title", explain: false },
    });
    expect(analyzeRequest(form({ mode: "chain", tokenizer: "standard", filters: "lowercase, asciifolding", charFilters: "html_strip", explain: true }))).toEqual({
      request: { text: "Hello World", tokenizer: "standard", filters: ["lowercase", "asciifolding"], charFilters: ["html_strip"], explain: true },
    });
  });

  it("says what is missing or refused before sending", () => {
    const problem = (over: Partial<AnalyzeForm>) => {
      const result = analyzeRequest(form(over));
      return "problem" in result ? result.problem : "";
    };
    expect(problem({ text: "" })).toMatch(/Type the text/);
    expect(problem({ text: "x".repeat(10_001) })).toMatch(/limit is 10000/);
    expect(problem({ analyzer: "" })).toMatch(/Name an analyzer/);
    expect(problem({ analyzer: "../x" })).toMatch(/not a name/);
    expect(problem({ mode: "field", field: "title" })).toMatch(/name the index/);
    expect(problem({ mode: "chain" })).toMatch(/Name a tokenizer/);
    expect(problem({ mode: "chain", tokenizer: "standard", filters: Array(21).fill("lowercase").join(",") })).toMatch(/21 filters/);
  });

  it("splits names on commas and blanks", () => {
    expect(splitNames(" a, b  c,,")).toEqual(["a", "b", "c"]);
  });
});

describe("cat tables", () => {
  const rows = [
    ["logs", "1.5kb", "green"],
    ["app", "900b", null],
    ["db", "2gb", "yellow"],
  ];

  it("reads numbers with units", () => {
    expect(catNumber("87%")).toBe(87);
    expect(catNumber("1.5kb")).toBe(1536);
    expect(catNumber("2.1s")).toBe(2100);
    expect(catNumber("node-1")).toBeNull();
    expect(catNumber(null)).toBeNull();
  });

  it("sorts by size, by text, empty cells last", () => {
    expect(sortCatRows(rows, 1, "asc").map((r) => r[0])).toEqual(["app", "logs", "db"]);
    expect(sortCatRows(rows, 1, "desc").map((r) => r[0])).toEqual(["db", "logs", "app"]);
    expect(sortCatRows(rows, 0, "asc").map((r) => r[0])).toEqual(["app", "db", "logs"]);
    expect(sortCatRows(rows, 2, "desc").map((r) => r[0])).toEqual(["db", "logs", "app"]);
  });

  it("filters on any cell", () => {
    expect(filterCatRows(rows, "YEL").map((r) => r[0])).toEqual(["db"]);
    expect(filterCatRows(rows, " ")).toHaveLength(3);
  });
});
