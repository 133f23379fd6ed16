import { describe, expect, test } from "vitest";
import type { SnapshotProgress, SnapshotRow } from "../../api/wire";
import {
  defaultSnapshotName,
  filterSnapshots,
  formatElapsed,
  nameProblem,
  parsePatterns,
  progressFraction,
  renamed,
  repositoryPlace,
  restoreSelection,
  visibleRange,
} from "./logic";

describe("names", () => {
  test("the default name is the UTC date and time, lowercase and valid", () => {
    const name = defaultSnapshotName(new Date(Date.UTC(2026, 10, 4, 3, 7, 59)));
    expect(name).toBe("snapshot-2026.11.04-030759");
    expect(nameProblem(name, "snapshot")).toBeNull();
  });

  test("the server's rules are checked before sending", () => {
    expect(nameProblem("", "snapshot")).toMatch(/must not be empty/);
    expect(nameProblem("Nightly", "snapshot")).toMatch(/lowercase/);
    expect(nameProblem("Nightly", "repository")).toBeNull();
    expect(nameProblem("a b", "repository")).toMatch(/whitespace/);
    expect(nameProblem("a,b", "snapshot")).toMatch(/','/);
    expect(nameProblem("a/b", "snapshot")).toMatch(/'\/'/);
    expect(nameProblem("_x", "snapshot")).toMatch(/start with '_'/);
    expect(nameProblem("..", "repository")).toMatch(/'\.' or '\.\.'/);
    expect(nameProblem("é".repeat(128), "snapshot")).toMatch(/255 bytes/);
  });
});

test("patterns are split on commas, spaces and new lines", () => {
  expect(parsePatterns(" logs-*, books\n-logs-old  ")).toEqual(["logs-*", "books", "-logs-old"]);
  expect(parsePatterns("  ")).toEqual([]);
});

test("the rename preview follows the pattern and replacement", () => {
  expect(renamed("books", "(.+)", "restored-$1")).toBe("restored-books");
  expect(renamed("logs-1", "logs-(\\d+)", "old-logs-$1")).toBe("old-logs-1");
  expect(renamed("books", "", "")).toBe("books");
  expect(renamed("books", "(", "x")).toBeNull();
});

test("ticking every index or none restores all of them", () => {
  const all = ["a", "b", "c"];
  expect(restoreSelection(all, new Set())).toEqual([]);
  expect(restoreSelection(all, new Set(all))).toEqual([]);
  expect(restoreSelection(all, new Set(["c", "a"]))).toEqual(["a", "c"]);
});

const progress = (patch: Partial<SnapshotProgress>): SnapshotProgress => ({
  state: "IN_PROGRESS",
  shardsDone: 0,
  shardsTotal: 0,
  shardsFailed: 0,
  shardsStarted: 0,
  shardsInitializing: 0,
  shardsFinalizing: 0,
  bytesDone: 0,
  bytesTotal: 0,
  filesDone: 0,
  filesTotal: 0,
  sizeInRepositoryBytes: 0,
  timeMillis: null,
  ...patch,
});

test("progress is by bytes, else by shards", () => {
  expect(progressFraction(progress({ bytesDone: 250, bytesTotal: 1000, shardsDone: 3, shardsTotal: 3 }))).toBe(0.25);
  expect(progressFraction(progress({ shardsDone: 1, shardsTotal: 4 }))).toBe(0.25);
  expect(progressFraction(progress({}))).toBe(0);
  expect(progressFraction(progress({ state: "SUCCESS" }))).toBe(1);
});

test("elapsed times read naturally", () => {
  expect(formatElapsed(null)).toBe("–");
  expect(formatElapsed(420)).toBe("420 ms");
  expect(formatElapsed(3_240)).toBe("3.2 s");
  expect(formatElapsed(245_000)).toBe("4 min 05 s");
  expect(formatElapsed(7_380_000)).toBe("2 h 03 min");
});

test("only the rows in view (and a margin) are rendered", () => {
  expect(visibleRange(0, 400, 40, 10_000, 5)).toEqual({ start: 0, end: 15 });
  expect(visibleRange(40_000, 400, 40, 10_000, 5)).toEqual({ start: 995, end: 1015 });
  expect(visibleRange(1e9, 400, 40, 100, 5).end).toBe(100);
  expect(visibleRange(-50, 0, 40, 3, 0)).toEqual({ start: 0, end: 1 });
});

test("the filter matches names case-insensitively and keeps the order", () => {
  const row = (name: string) => ({ name }) as SnapshotRow;
  const rows = [row("nightly-2"), row("weekly-1"), row("Nightly-1")];
  expect(filterSnapshots(rows, "NIGHT").map((r) => r.name)).toEqual(["nightly-2", "Nightly-1"]);
  expect(filterSnapshots(rows, " ")).toBe(rows);
});

test("a repository's place is its location or URL", () => {
  expect(repositoryPlace({ location: "/mnt/b", compress: "true" })).toBe("/mnt/b");
  expect(repositoryPlace({ url: "https://x/r" })).toBe("https://x/r");
  expect(repositoryPlace({})).toBe("");
});
