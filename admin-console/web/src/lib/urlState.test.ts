import { describe, expect, it } from "vitest";
import {
  DEFAULT_INDICES_QUERY,
  indicesApiQuery,
  readIndicesQuery,
  readRange,
  writeIndicesQuery,
  writeRange,
} from "./urlState";

describe("range in the URL", () => {
  it("defaults to the last 24 hours", () => {
    expect(readRange("")).toEqual({ selection: { kind: "preset", preset: "24h" }, error: null });
  });

  it("reads presets and custom ranges", () => {
    expect(readRange("?range=7d").selection).toEqual({ kind: "preset", preset: "7d" });
    expect(readRange("?start=100&end=200").selection).toEqual({ kind: "custom", start: 100, end: 200 });
  });

  it("round-trips a custom range and keeps other parameters", () => {
    const search = writeRange("?foo=bar&range=1h", { kind: "custom", start: 1_700_000_000, end: 1_700_003_600 });
    expect(search).toBe("?foo=bar&start=1700000000&end=1700003600");
    expect(readRange(search)).toEqual({
      selection: { kind: "custom", start: 1_700_000_000, end: 1_700_003_600 },
      error: null,
    });
  });

  it("writes presets, leaving the default out", () => {
    expect(writeRange("?start=1&end=2", { kind: "preset", preset: "6h" })).toBe("?range=6h");
    expect(writeRange("?range=6h", { kind: "preset", preset: "24h" })).toBe("");
  });

  it("falls back to the default with the reason for a bad range", () => {
    expect(readRange("?start=200&end=100").error).toMatch(/before/);
    expect(readRange("?start=1700000000000&end=1800000000000").error).toMatch(/milliseconds/);
    expect(readRange("?start=abc&end=5").error).toMatch(/start must be Unix seconds/);
    expect(readRange("?start=5").error).toMatch(/end is missing/);
    expect(readRange("?range=2y").error).toMatch(/Unknown range/);
    expect(readRange("?range=2y").selection).toEqual({ kind: "preset", preset: "24h" });
  });
});

describe("indices query in the URL", () => {
  it("defaults and omits defaults when written", () => {
    expect(readIndicesQuery("")).toEqual(DEFAULT_INDICES_QUERY);
    expect(writeIndicesQuery("", DEFAULT_INDICES_QUERY)).toBe("");
  });

  it("round-trips every field", () => {
    const q = { page: 3, size: 100, sort: "docsCount" as const, order: "desc" as const, filter: "logs-*" };
    const search = writeIndicesQuery("?x=1", q);
    expect(readIndicesQuery(search)).toEqual(q);
    expect(search).toContain("x=1");
  });

  it("ignores invalid values", () => {
    expect(readIndicesQuery("?page=0&size=9999&sort=evil&order=sideways")).toEqual(DEFAULT_INDICES_QUERY);
    expect(readIndicesQuery("?page=-2&size=abc")).toEqual(DEFAULT_INDICES_QUERY);
  });

  it("builds the API query, trimming the filter", () => {
    expect(indicesApiQuery({ ...DEFAULT_INDICES_QUERY, filter: "  web " })).toBe(
      "page=1&size=50&sort=name&order=asc&filter=web",
    );
    expect(indicesApiQuery(DEFAULT_INDICES_QUERY)).not.toContain("filter");
  });
});
