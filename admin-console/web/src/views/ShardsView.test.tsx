// @vitest-environment jsdom
// The shard grid keeps its DOM bounded at 2,000 indices × 30 nodes (only the window in view is
// rendered), a chip opens the copy's detail with the explanation and the move targets, a move
// sends the documented body, and a viewer sees Move and Retry disabled with the reason. Only
// `fetch` and the scroller's size (jsdom has no layout) are replaced.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { GridCopy, ShardExplanation, ShardGrid, WhoAmI } from "../api/wire";
import { WhoAmIProvider } from "../lib/whoami";
import { ShardsView } from "./ShardsView";
import { type FetchMock, json, mockFetch, notServed } from "../test/fetch";
import { stubElementSize, unstubElementSize } from "../test/layout";

let fetchMock: FetchMock;

beforeEach(() => {
  fetchMock = mockFetch();
  stubElementSize();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  unstubElementSize();
});

const started = (shard: number, primary: boolean, node: number): GridCopy => ({ shard, primary, state: "started", node });

/** `indices` indices of 2 shards × 2 copies over `nodes` nodes. */
function bigGrid(indices: number, nodes: number): ShardGrid {
  return {
    clusterName: "big",
    nodes: Array.from({ length: nodes }, (_, n) => ({ id: `n${n}`, name: `node-${n}`, roles: ["data"], tiers: [], dataNode: true, elected: n === 0 })),
    indices: Array.from({ length: indices }, (_, i) => ({
      name: `index-${String(i).padStart(4, "0")}`,
      closed: false,
      system: false,
      shards: [started(0, true, i % nodes), started(0, false, (i + 1) % nodes), started(1, true, (i + 2) % nodes), started(1, false, (i + 3) % nodes)],
    })),
    unassigned: 0,
    relocating: 0,
    initializing: 0,
  };
}

const EXPLAINED: ShardExplanation = {
  index: "index-0000",
  shard: 0,
  primary: true,
  currentState: "started",
  currentNode: { id: "n0", name: "node-0" },
  headline: "The primary of index-0000 shard 0 is started on node-0; it may stay, and the cluster keeps it there.",
  sentences: ["Elasticsearch cannot rebalance this shard to another node."],
  unassigned: null,
  canAllocate: null,
  canRemain: "yes",
  canMove: null,
  canRebalance: "no",
  remainDeciders: [],
  nodes: [{ nodeId: "n1", nodeName: "node-1", decision: "no", sentence: "node-1 says no because a copy of this shard is already on this node.", weightRanking: 1, deciders: [] }],
};

function answer(grid: ShardGrid) {
  fetchMock.mockImplementation(async (input, init) => {
    const url = String(input);
    if (url.endsWith("/shards")) return json(200, grid);
    if (url.includes("/shards/explain?")) return json(200, EXPLAINED);
    if (url.endsWith("/shards/move") && init?.method === "POST") return json(200, { acknowledged: true });
    return notServed(url);
  });
}

const who = (role: "viewer" | "operator"): WhoAmI => ({ mode: "trusted_headers", user: "u", email: null, groups: [], roles: { prod: role } });

describe("ShardsView", () => {
  it("renders a bounded window of a 2,000 × 30 grid", async () => {
    answer(bigGrid(2000, 30));
    render(<ShardsView clusterId="prod" search="" />);
    await screen.findByTestId("shard-grid");
    const grid = screen.getByTestId("shard-grid");
    expect(grid.getAttribute("aria-colcount")).toBe("2001");
    expect(grid.getAttribute("aria-rowcount")).toBe("31");
    const cells = grid.querySelectorAll('[role="gridcell"]').length;
    const rows = grid.querySelectorAll('[role="row"]').length;
    // 1200 px wide: ~8 columns of 128 px plus overscan; 640 px high: ~19 rows plus overscan.
    expect(cells).toBeGreaterThan(0);
    expect(cells).toBeLessThan(400);
    expect(rows).toBeLessThan(30);
    expect(grid.querySelectorAll('[role="columnheader"]').length).toBeLessThan(20);
  });

  it("opens a copy's detail, explains it and moves it to a node without a copy", async () => {
    answer(bigGrid(3, 5));
    render(
      <WhoAmIProvider value={who("operator")}>
        <ShardsView clusterId="prod" search="" />
      </WhoAmIProvider>,
    );
    const chip = await screen.findByRole("button", { name: "index-0000 shard 0 primary: started" });
    fireEvent.click(chip);
    expect(await screen.findByText(EXPLAINED.headline)).toBeTruthy();
    expect(screen.getByText(EXPLAINED.nodes[0].sentence)).toBeTruthy();
    const select = screen.getByTestId("move-target") as HTMLSelectElement;
    // index-0000 shard 0 is on n0 and n1: the targets are the other three.
    expect([...select.options].map((o) => o.value)).toEqual(["", "n2", "n3", "n4"]);
    fireEvent.change(select, { target: { value: "n3" } });
    fireEvent.click(screen.getByTestId("move-shard"));
    await screen.findByTestId("shards-done");
    const sent = fetchMock.mock.calls.find(([url]) => String(url).endsWith("/shards/move"));
    expect(JSON.parse(String(sent?.[1]?.body))).toEqual({ index: "index-0000", shard: 0, fromNode: "n0", toNode: "n3" });
  });

  it("disables Move and Retry for a viewer with the reason", async () => {
    answer(bigGrid(3, 5));
    render(
      <WhoAmIProvider value={who("viewer")}>
        <ShardsView clusterId="prod" search="" />
      </WhoAmIProvider>,
    );
    const retry = (await screen.findByTestId("retry-failed")) as HTMLButtonElement;
    expect(retry.disabled).toBe(true);
    expect(retry.parentElement?.getAttribute("title")).toBe("Needs the operator role; you have viewer.");
    fireEvent.click(await screen.findByRole("button", { name: "index-0001 shard 1 replica: started" }));
    await waitFor(() => expect((screen.getByTestId("move-shard") as HTMLButtonElement).disabled).toBe(true));
    expect(screen.getAllByText("Needs the operator role; you have viewer.").length).toBeGreaterThan(0);
  });
});
