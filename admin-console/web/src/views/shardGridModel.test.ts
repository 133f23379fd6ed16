import { describe, expect, it } from "vitest";
import type { GridCopy, ShardGrid } from "../api/wire";
import {
  NO_FILTERS,
  UNASSIGNED_KEY,
  describeCopy,
  failedCount,
  layoutGrid,
  moveTargets,
  nodeNamer,
  offsetsOf,
  readShardFilters,
  rowHeights,
  SIZES,
  visibleFixed,
  visibleRange,
  writeShardFilters,
} from "./shardGridModel";
import type { DataTier, GridNode } from "../api/wire";

/** Node ids to their positions in `grid.nodes` (copies name nodes by position). */
const AT: Record<string, number> = { n1: 0, n2: 1, n3: 2, m: 3 };

const copy = (shard: number, primary: boolean, state: GridCopy["state"], node: string | null, relocatingNode: string | null = null): GridCopy => ({
  shard,
  primary,
  state,
  ...(node === null ? {} : { node: AT[node] }),
  ...(relocatingNode === null ? {} : { relocatingNode: AT[relocatingNode] }),
  ...(state === "unassigned"
    ? { unassigned: { reason: "ALLOCATION_FAILED", reasonText: "failed", at: null, details: null, allocationStatus: null, failedAttempts: 5, delayed: false } }
    : {}),
});

const grid: ShardGrid = {
  clusterName: "prod",
  nodes: [
    { id: "n1", name: "es-1", roles: ["data"], tiers: [], dataNode: true, elected: true },
    { id: "n2", name: "es-2", roles: ["data"], tiers: [], dataNode: true, elected: false },
    { id: "n3", name: "es-3", roles: ["data"], tiers: [], dataNode: true, elected: false },
    { id: "m", name: "manager", roles: ["master"], tiers: [], dataNode: false, elected: false },
  ],
  indices: [
    { name: ".kibana", closed: false, system: true, shards: [copy(0, true, "started", "n1")] },
    { name: "archive", closed: true, system: false, shards: [copy(0, true, "started", "n2")] },
    {
      name: "logs",
      closed: false,
      system: false,
      shards: [copy(0, true, "relocating", "n1", "n3"), copy(0, false, "started", "n2"), copy(1, true, "started", "n2"), copy(1, false, "unassigned", null)],
    },
  ],
  unassigned: 1,
  relocating: 1,
  initializing: 0,
};

describe("layoutGrid", () => {
  it("puts the unassigned row first, one row per data node, one column per index", () => {
    const layout = layoutGrid(grid, NO_FILTERS);
    expect(layout.rows.map((r) => r.label)).toEqual(["Unassigned", "es-1", "es-2", "es-3"]);
    expect(layout.columns.map((c) => c.name)).toEqual([".kibana", "archive", "logs"]);
    expect(layout.cells.get(UNASSIGNED_KEY)?.get(2)?.map((c) => c.copy.shard)).toEqual([1]);
    expect(layout.cells.get("n2")?.get(2)?.map((c) => `${c.copy.shard}${c.copy.primary ? "p" : "r"}`)).toEqual(["0r", "1p"]);
    expect(layout.shown).toBe(6);
  });

  it("shows a relocation on its source and, as incoming, on its target", () => {
    const layout = layoutGrid(grid, NO_FILTERS);
    expect(layout.cells.get("n1")?.get(2)?.[0]).toMatchObject({ incoming: false, copy: { state: "relocating" } });
    expect(layout.cells.get("n3")?.get(2)?.[0]).toMatchObject({ incoming: true, nodeId: "n1", copy: { relocatingNode: 2 } });
  });

  it("filters by index, node, state and hides closed and system indices", () => {
    expect(layoutGrid(grid, { ...NO_FILTERS, index: "LOG" }).columns.map((c) => c.name)).toEqual(["logs"]);
    expect(layoutGrid(grid, { ...NO_FILTERS, hideClosed: true, hideSystem: true }).columns.map((c) => c.name)).toEqual(["logs"]);
    const byNode = layoutGrid(grid, { ...NO_FILTERS, node: "es-2" });
    expect(byNode.rows.map((r) => r.label)).toEqual(["es-2"]);
    const unassigned = layoutGrid(grid, { ...NO_FILTERS, state: "unassigned" });
    expect(unassigned.rows.map((r) => r.label)).toEqual(["Unassigned"]);
    expect(unassigned.columns.map((c) => c.name)).toEqual(["logs"]);
    const relocating = layoutGrid(grid, { ...NO_FILTERS, state: "relocating" });
    expect(relocating.rows.map((r) => r.label)).toEqual(["es-1", "es-3"]);
    const initializing = layoutGrid(grid, { ...NO_FILTERS, state: "initializing" });
    expect(initializing.rows.map((r) => r.label)).toEqual(["es-3"]);
    expect(initializing.cells.get("n3")?.get(0)?.[0].incoming).toBe(true);
  });
});

describe("virtualisation", () => {
  it("sizes rows by their fullest cell", () => {
    const many: ShardGrid = {
      ...grid,
      indices: [{ name: "wide", closed: false, system: false, shards: Array.from({ length: 9 }, (_, n) => copy(n, true, "started", "n1")) }],
    };
    const layout = layoutGrid(many, NO_FILTERS);
    expect(rowHeights(layout)).toEqual([SIZES.cellPadding + 3 * SIZES.line, SIZES.cellPadding + SIZES.line, SIZES.cellPadding + SIZES.line]);
  });

  it("renders only the window of a long axis, whatever its length", () => {
    const offsets = offsetsOf(Array.from({ length: 2000 }, () => 32));
    expect(offsets[2000]).toBe(64_000);
    expect(visibleRange(offsets, 0, 320, 2)).toEqual([0, 12]);
    expect(visibleRange(offsets, 32_000, 320, 2)).toEqual([998, 1012]);
    expect(visibleRange(offsets, 70_000, 320, 2)).toEqual([1997, 2000]);
    expect(visibleRange(offsetsOf([]), 0, 100)).toEqual([0, 0]);
    expect(visibleFixed(2000, 128, 128 * 500, 1280, 1)).toEqual([499, 511]);
    expect(visibleFixed(3, 128, 0, 1280)).toEqual([0, 3]);
  });
});

describe("moveTargets", () => {
  it("offers the data nodes that hold no copy of the shard, counting a relocation's target", () => {
    const logs = grid.indices[2];
    expect(moveTargets(grid, "logs", logs.shards[0]).map((n) => n.id)).toEqual([]);
    expect(moveTargets(grid, "logs", logs.shards[2]).map((n) => n.id)).toEqual(["n1", "n3"]);
  });
});

describe("describeCopy", () => {
  it("says what a chip is in words", () => {
    const name = nodeNamer(grid);
    const logs = grid.indices[2];
    expect(describeCopy({ index: "logs", copy: logs.shards[0], incoming: false, nodeId: "n1" }, name)).toBe("logs shard 0 primary: relocating to es-3");
    expect(describeCopy({ index: "logs", copy: logs.shards[0], incoming: true, nodeId: "n1" }, name)).toBe("logs shard 0 primary: initialising here, relocating from es-1");
    expect(describeCopy({ index: "logs", copy: logs.shards[3], incoming: false, nodeId: null }, name)).toBe("logs shard 1 replica: unassigned (ALLOCATION_FAILED)");
    expect(failedCount(grid)).toBe(1);
  });
});

describe("filters in the URL", () => {
  it("round-trips, leaves defaults out and ignores what it does not know", () => {
    const filters = { index: "logs", node: "", state: "unassigned" as const, hideClosed: true, hideSystem: false, tier: "warm" as const };
    const search = writeShardFilters("?other=x", filters);
    expect(search).toBe("?other=x&index=logs&state=unassigned&hideClosed=1&tier=warm");
    expect(readShardFilters(search)).toEqual(filters);
    expect(writeShardFilters("", NO_FILTERS)).toBe("");
    expect(readShardFilters("?state=bogus&hideClosed=yes&tier=lukewarm")).toEqual(NO_FILTERS);
  });
});

describe("data tiers", () => {
  const node = (id: string, tiers: DataTier[], dataNode = true): GridNode => ({
    id,
    name: id,
    roles: tiers.map((t) => `data_${t}`),
    tiers,
    dataNode,
    elected: false,
  });
  // As the API orders them: data nodes by first tier (none last), then by name.
  const tiered: ShardGrid = {
    ...grid,
    nodes: [node("hot-1", ["hot", "content"]), node("warm-1", ["warm"]), node("warm-2", ["warm"]), node("cold-1", ["cold"]), node("plain", []), node("voter", [], false)],
    indices: [{ name: "logs", closed: false, system: false, shards: [{ shard: 0, primary: true, state: "started", node: 1 }, { shard: 0, primary: false, state: "unassigned" }] }],
  };
  const shape = (filters = NO_FILTERS) => layoutGrid(tiered, filters).rows.map((row) => (row.kind === "tier" ? `# ${row.label} (${row.nodes})` : row.label));

  it("groups the rows under a header per tier, in tier order, nodes without a tier last", () => {
    expect(shape()).toEqual(["Unassigned", "# Hot (1)", "hot-1", "# Warm (2)", "warm-1", "warm-2", "# Cold (1)", "cold-1", "# No tier (1)", "plain"]);
    // A tier-only data node is a data node: it is a move target.
    expect(moveTargets(tiered, "logs", tiered.indices[0].shards[0]).map((n) => n.id)).toEqual(["hot-1", "warm-2", "cold-1", "plain"]);
  });

  it("filters to one tier, a node with several tiers under the one asked for", () => {
    expect(shape({ ...NO_FILTERS, tier: "warm" })).toEqual(["# Warm (2)", "warm-1", "warm-2"]);
    expect(shape({ ...NO_FILTERS, tier: "content" })).toEqual(["# Content (1)", "hot-1"]);
    expect(shape({ ...NO_FILTERS, tier: "frozen" })).toEqual([]);
  });

  it("gives a group header a fixed height and leaves a cluster without tiers ungrouped", () => {
    const layout = layoutGrid(tiered, NO_FILTERS);
    expect(rowHeights(layout)[1]).toBe(SIZES.tierHeader);
    expect(layoutGrid(grid, NO_FILTERS).rows.every((row) => row.kind !== "tier")).toBe(true);
  });
});
