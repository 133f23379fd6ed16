import { describe, expect, it } from "vitest";
import type { DataStreamRow } from "../api/wire";
import { dataStreamNameProblem, filterDataStreams, rolloverSummary, writeIndex } from "./dataStreams";

const row = (name: string, template: string, backing: string[]): DataStreamRow => ({
  name,
  generation: backing.length,
  backingIndices: backing.map((index) => ({ name: index, uuid: null, ilmPolicy: null })),
  template,
  health: "green",
  timestampField: "@timestamp",
  ilmPolicy: null,
  hidden: false,
  storeSizeBytes: null,
  maximumTimestamp: null,
});

describe("data stream names", () => {
  it("follow the index rules in the data stream's words", () => {
    expect(dataStreamNameProblem("logs-app-default")).toBeNull();
    expect(dataStreamNameProblem("")).toBe("The data stream name is empty.");
    expect(dataStreamNameProblem("Logs")).toBe("The data stream name must be lowercase.");
    expect(dataStreamNameProblem("logs-*")).toContain('contains "*"');
    expect(dataStreamNameProblem("_all")).toContain("must not start with -, _ or +");
  });

  it("are not backing indices", () => {
    expect(dataStreamNameProblem(".ds-logs-000001")).toContain("must not start with .ds-");
    expect(dataStreamNameProblem(".logs")).toBeNull();
  });
});

describe("the list", () => {
  const rows = [row("logs-web", "logs", [".ds-logs-web-000001", ".ds-logs-web-000002"]), row("metrics-db", "metrics", [".ds-metrics-db-000001"])];

  it("filters by name, template or backing index", () => {
    expect(filterDataStreams(rows, " WEB ").map((r) => r.name)).toEqual(["logs-web"]);
    expect(filterDataStreams(rows, "metrics").map((r) => r.name)).toEqual(["metrics-db"]);
    expect(filterDataStreams(rows, "000002").map((r) => r.name)).toEqual(["logs-web"]);
    expect(filterDataStreams(rows, "")).toHaveLength(2);
  });

  it("names the last backing index as the write index", () => {
    expect(writeIndex(rows[0])).toBe(".ds-logs-web-000002");
    expect(writeIndex(row("empty", "t", []))).toBeNull();
  });

  it("says what a rollover did", () => {
    expect(rolloverSummary("logs-web", ".ds-logs-web-000001", ".ds-logs-web-000002", true)).toBe(
      "logs-web rolled over: .ds-logs-web-000002 is the write index now (was .ds-logs-web-000001).",
    );
    expect(rolloverSummary("logs-web", null, null, false)).toBe("logs-web was not rolled over.");
  });
});
