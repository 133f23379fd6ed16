// @vitest-environment jsdom
// Recovery progress: a relocating chip on the grid carries its recovery's percent, stage and
// bytes (read only while copies move, and no more once none does); a node's page lists the
// copies leaving and arriving; an index's page reads its own route. Only `fetch` and the
// scroller's size (jsdom has no layout) are replaced.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import type { Recoveries, Recovery, ShardGrid } from "../api/wire";
import { ShardsView } from "./ShardsView";
import { RecoveriesPanel } from "./RecoveriesPanel";
import { recoveryLine } from "./recoveryModel";
import { type FetchMock, json, mockFetch, notServed } from "../test/fetch";
import { stubElementSize, unstubElementSize } from "../test/layout";

let fetchMock: FetchMock;

beforeEach(() => {
  fetchMock = mockFetch();
  stubElementSize();
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  unstubElementSize();
});

const MB = 1024 * 1024;

const recovery = (over: Partial<Recovery> = {}): Recovery => ({
  index: "logs",
  shard: 0,
  primary: true,
  kind: "peer",
  stage: "index",
  sourceNodeId: "n0",
  sourceNode: "node-0",
  sourceSnapshot: null,
  targetNodeId: "n2",
  targetNode: "node-2",
  bytes: { recovered: 1 * MB, total: 4 * MB, percent: 25 },
  files: { recovered: 3, total: 12, percent: 25 },
  translogOps: { recovered: 0, total: 0, percent: 0 },
  elapsedMillis: 5321,
  ...over,
});

const list = (recoveries: Recovery[]): Recoveries => ({ recoveries, total: recoveries.length, truncated: false });

const nodes = [0, 1, 2].map((n) => ({ id: `n${n}`, name: `node-${n}`, roles: ["data"], tiers: [], dataNode: true, elected: n === 0 }));

function grid(moving: boolean): ShardGrid {
  return {
    clusterName: "c",
    nodes,
    indices: [
      {
        name: "logs",
        closed: false,
        system: false,
        shards: [
          moving ? { shard: 0, primary: true, state: "relocating", node: 0, relocatingNode: 2 } : { shard: 0, primary: true, state: "started", node: 2 },
          { shard: 0, primary: false, state: "started", node: 1 },
        ],
      },
    ],
    unassigned: 0,
    relocating: moving ? 1 : 0,
    initializing: 0,
  };
}

describe("recovery progress", () => {
  it("says a recovery in one line", () => {
    expect(recoveryLine(recovery())).toBe("25.0% · index · 1.0 MB of 4.0 MB · 3/12 files · 5.32 s");
    expect(recoveryLine(recovery({ stage: "verify_index", translogOps: { recovered: 5, total: 9, percent: 55 } }))).toContain("verify index · 1.0 MB of 4.0 MB · 3/12 files · 5/9 translog ops");
  });

  it("shows a relocating chip's progress and stops reading recoveries once nothing moves", async () => {
    // Timers run at real pace, and the quiet window at the end is skipped, not waited for.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let moving = true;
    fetchMock.mockImplementation(async (input) => {
      const url = String(input);
      if (url.endsWith("/shards")) return json(200, grid(moving));
      if (url.endsWith("/api/clusters/c/recoveries")) return json(200, list(moving ? [recovery()] : []));
      return notServed(url);
    });
    render(<ShardsView clusterId="c" search="" />);
    // The grid first, then (copies move) the recoveries: two reads before the chips change.
    const chips = await screen.findAllByRole("button", { name: /logs shard 0 primary.*\(25\.0% · index · 1\.0 MB of 4\.0 MB/ }, { timeout: 5_000 });
    // The copy leaving node-0 and the one arriving on node-2 both carry it.
    expect(chips.map((chip) => chip.getAttribute("data-progress"))).toEqual(["25.0", "25.0"]);
    expect(chips[0].querySelector(".chip-progress")?.getAttribute("style")).toContain("width: 25%");
    expect(chips[0].textContent).toBe("0→25%");

    moving = false;
    const recoveryReads = () => fetchMock.mock.calls.filter(([url]) => String(url).endsWith("/recoveries")).length;
    await waitFor(() => expect(screen.queryAllByRole("button", { name: /\(25\.0%/ })).toEqual([]), { timeout: 5_000 });
    const after = recoveryReads();
    // Absence over a window needs the window: longer than the 2-second poll it would have made.
    await vi.advanceTimersByTimeAsync(2_500);
    expect(recoveryReads()).toBe(after);
  }, 15_000);

  it("lists a draining node's copies leaving and arriving", async () => {
    fetchMock.mockImplementation(async (input) => {
      const url = String(input);
      if (url.endsWith("/api/clusters/c/recoveries"))
        return json(200, list([recovery(), recovery({ index: "other", sourceNodeId: "n2", sourceNode: "node-2", targetNodeId: "n0", targetNode: "node-0" }), recovery({ index: "elsewhere", sourceNodeId: "n1", targetNodeId: "n2" })]));
      return notServed(url);
    });
    render(<RecoveriesPanel clusterId="c" scope={{ nodeId: "n0" }} />);
    const rows = await screen.findAllByTestId("recovery-row", {}, { timeout: 5_000 });
    expect(rows.map((row) => [row.getAttribute("data-direction"), row.children[1].textContent])).toEqual([
      ["leaving", "logs"],
      ["arriving", "other"],
    ]);
    expect(rows[0].textContent).toContain("node-0node-2");
    expect(rows[0].textContent).toContain("1.0 MB of 4.0 MB");
    expect(screen.getByText("Recoveries (2)")).toBeTruthy();
  });

  it("reads an index's own recoveries and shows nothing when none runs", async () => {
    fetchMock.mockImplementation(async (input) => {
      const url = String(input);
      if (url.endsWith("/indices/logs%231/recoveries")) return json(200, list([]));
      return notServed(url);
    });
    const { container } = render(<RecoveriesPanel clusterId="c" scope={{ index: "logs#1" }} />);
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    expect(String(fetchMock.mock.calls[0][0])).toContain("/api/clusters/c/indices/logs%231/recoveries");
    expect(container.textContent).toBe("");
  });
});
