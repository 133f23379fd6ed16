import { describe, expect, it } from "vitest";
import type { Task } from "../api/wire";
import { formatRunning, nodeGroupRows, parseMinRunning, readTaskUrl, shortAction, taskRows, writeTaskUrl } from "./tasks";

function task(id: string, runningMs: number, parentTaskId: string | null = null): Task {
  return {
    id,
    node: id.split(":")[0],
    nodeName: "node-1",
    action: "indices:data/write/reindex",
    type: "transport",
    description: null,
    startTimeMillis: 0,
    runningTimeNanos: runningMs * 1e6,
    cancellable: true,
    cancelled: false,
    parentTaskId,
    headers: {},
    status: null,
  };
}

describe("taskRows", () => {
  const tasks = [
    task("n:1", 10),
    task("n:2", 500),
    task("n:3", 400, "n:2"),
    task("n:4", 450, "n:2"),
    task("n:5", 300, "n:4"),
    task("n:6", 5, "n:99"), // its parent is not listed
  ];
  it("puts children under their parent, longest running first", () => {
    expect(taskRows(tasks, new Set()).map((r) => [r.task.id, r.depth])).toEqual([
      ["n:2", 0],
      ["n:4", 1],
      ["n:5", 2],
      ["n:3", 1],
      ["n:1", 0],
      ["n:6", 0],
    ]);
    const root = taskRows(tasks, new Set())[0];
    expect(root.descendants).toBe(3);
    expect(root.hasChildren).toBe(true);
  });
  it("hides the children of a collapsed task", () => {
    expect(taskRows(tasks, new Set(["n:2"])).map((r) => r.task.id)).toEqual(["n:2", "n:1", "n:6"]);
  });
  it("survives a cycle or a task that is its own parent", () => {
    const rows = taskRows([task("a:1", 1, "a:2"), task("a:2", 2, "a:1"), task("a:3", 3, "a:3")], new Set());
    expect(rows.map((r) => r.task.id).sort()).toEqual(["a:1", "a:2", "a:3"]);
  });
});

describe("formatRunning", () => {
  it("says the running time in the unit that reads best", () => {
    expect(formatRunning(0.5e6)).toBe("< 1 ms");
    expect(formatRunning(850e6)).toBe("850 ms");
    expect(formatRunning(12_340e6)).toBe("12.3 s");
    expect(formatRunning(245_000e6)).toBe("4 m 05 s");
    expect(formatRunning(7_380_000e6)).toBe("2 h 03 m");
    expect(formatRunning(273_600_000e6)).toBe("3 d 04 h");
  });
});

describe("parseMinRunning", () => {
  it("reads durations with units, bare numbers as seconds", () => {
    expect(parseMinRunning("")).toEqual({ ok: true, ms: 0 });
    expect(parseMinRunning("500ms")).toEqual({ ok: true, ms: 500 });
    expect(parseMinRunning("30")).toEqual({ ok: true, ms: 30_000 });
    expect(parseMinRunning(" 5m ")).toEqual({ ok: true, ms: 300_000 });
    expect(parseMinRunning("1.5h")).toEqual({ ok: true, ms: 5_400_000 });
  });
  it("refuses anything else with a hint", () => {
    const verdict = parseMinRunning("soon");
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.error).toContain("500ms, 30s, 5m");
    expect(parseMinRunning("-5s").ok).toBe(false);
  });
});

describe("shortAction", () => {
  it("keeps the last word of the action", () => {
    expect(shortAction("indices:data/write/reindex")).toBe("reindex");
    expect(shortAction("cluster:monitor/tasks/lists[n]")).toBe("lists");
    expect(shortAction("plain")).toBe("plain");
  });
});

describe("nodeGroupRows", () => {
  it("groups by node, busiest first, each under a heading with its counts", () => {
    const on = (t: Task, node: string, name: string, cancellable = true): Task => ({ ...t, node, nodeName: name, cancellable });
    const rows = nodeGroupRows([
      on(task("a:1", 10), "a", "node-a"),
      on(task("b:1", 30), "b", "node-b", false),
      on(task("b:2", 50), "b", "node-b"),
    ]);
    expect(rows.map((r) => (r.kind === "node" ? `${r.name} ${r.count}/${r.cancellable}` : r.task.id))).toEqual([
      "node-b 2/1",
      "b:2",
      "b:1",
      "node-a 1/1",
      "a:1",
    ]);
  });
});

describe("the URL state", () => {
  it("round-trips the filters and the grouping, keeping other parameters", () => {
    const state = { actions: "*reindex", nodes: "node-1", running: "30s", cancellable: true, group: "node" as const };
    const search = writeTaskUrl("?x=1", state);
    expect(search).toBe("?x=1&actions=*reindex&nodes=node-1&running=30s&cancellable=true&group=node");
    expect(readTaskUrl(search)).toEqual(state);
  });
  it("leaves defaults out and reads nonsense as defaults", () => {
    expect(writeTaskUrl("?actions=a", { actions: " ", nodes: "", running: "", cancellable: false, group: "parent" })).toBe("");
    expect(readTaskUrl("?group=weird&cancellable=1")).toEqual({ actions: "", nodes: "", running: "", cancellable: false, group: "parent" });
  });
});
