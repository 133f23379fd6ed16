import { describe, expect, it } from "vitest";
import type { Task, TaskDetail } from "../api/wire";
import { buildForcemerge, buildReindex, buildResize, endNotice, shrinkCounts, sourceFacts, taskProgress } from "./operations";

const SOURCE = { name: "logs", shards: 4, readOnly: true };

function task(status: unknown, description: string | null = "reindex from [a] to [b]"): Task {
  return {
    id: "n:1",
    node: "n",
    nodeName: "node-0",
    action: "indices:data/write/reindex",
    type: "transport",
    description,
    startTimeMillis: 0,
    runningTimeNanos: 1,
    cancellable: true,
    cancelled: false,
    parentTaskId: null,
    headers: {},
    status,
  };
}

const errorsOf = (checked: { ok: boolean; errors?: string[] }) => (checked.ok ? [] : (checked.errors ?? []));

describe("resize dialogs", () => {
  it("offer the shard counts the source allows", () => {
    expect(shrinkCounts(12)).toEqual([1, 2, 3, 4, 6]);
    expect(shrinkCounts(1)).toEqual([]);
  });

  it("build the body once every field is right", () => {
    expect(buildResize("shrink", SOURCE, { target: "logs-small", shards: "2", replicas: "0" })).toEqual({
      ok: true,
      value: { target: "logs-small", shards: 2, replicas: 0 },
    });
    expect(buildResize("clone", SOURCE, { target: "logs-copy", shards: "", replicas: "" })).toEqual({ ok: true, value: { target: "logs-copy" } });
    expect(buildResize("split", SOURCE, { target: "logs-big", shards: "8", replicas: "" })).toEqual({ ok: true, value: { target: "logs-big", shards: 8 } });
  });

  it("say every problem as it is typed", () => {
    expect(errorsOf(buildResize("shrink", SOURCE, { target: "logs-small", shards: "3", replicas: "" }))).toEqual([
      "A shrink of 4 shards goes to one of 1, 2.",
    ]);
    expect(errorsOf(buildResize("split", SOURCE, { target: "logs-big", shards: "6", replicas: "" }))[0]).toContain("larger multiple of 4, such as 8");
    expect(errorsOf(buildResize("shrink", SOURCE, { target: "", shards: "", replicas: "x" }))).toEqual([
      "The index name is empty.",
      "Shards is needed: the target's number of primary shards.",
      "Replicas must be a whole number between 0 and 16.",
    ]);
    expect(errorsOf(buildResize("clone", SOURCE, { target: "logs", shards: "", replicas: "" }))).toEqual([
      "The target must be a new index, not the source itself.",
    ]);
    expect(errorsOf(buildResize("clone", { ...SOURCE, readOnly: false }, { target: "copy", shards: "", replicas: "" }))[0]).toContain(
      "must be read-only first",
    );
    expect(errorsOf(buildResize("clone", SOURCE, { target: "a+b", shards: "", replicas: "" }, true))[0]).toContain("OpenSearch");
    expect(errorsOf(buildResize("shrink", { ...SOURCE, shards: 1 }, { target: "x", shards: "1", replicas: "" }))[0]).toContain("cannot shrink");
  });

  it("read the source's shards and write block from its page", () => {
    const settings = [
      { key: "index.number_of_shards", value: "6", dynamic: false },
      { key: "index.blocks.write", value: "true", dynamic: true },
    ];
    expect(sourceFacts({ name: "logs", settings, shards: [] })).toEqual({ name: "logs", shards: 6, readOnly: true });
    expect(sourceFacts({ name: "logs", settings: [], shards: [] }).readOnly).toBe(false);
  });
});

describe("force merge and reindex dialogs", () => {
  it("check segments and the destination", () => {
    expect(buildForcemerge("1")).toEqual({ ok: true, value: { maxNumSegments: 1 } });
    expect(buildForcemerge("")).toEqual({ ok: true, value: {} });
    expect(errorsOf(buildForcemerge("0"))[0]).toContain("between 1 and 1024");
    expect(buildReindex("logs", { dest: "logs-v2", requestsPerSecond: "500" })).toEqual({
      ok: true,
      value: { source: "logs", dest: "logs-v2", requestsPerSecond: 500 },
    });
    expect(errorsOf(buildReindex("logs", { dest: "logs", requestsPerSecond: "" }))).toEqual(["The destination must be another index."]);
    expect(errorsOf(buildReindex("logs", { dest: "Logs*", requestsPerSecond: "-1" }))).toHaveLength(2);
  });
});

describe("following a task", () => {
  it("shows a reindex's progress in words", () => {
    expect(taskProgress(task({ total: 3000, created: 1000, updated: 500 }))?.text).toBe("1,500 of 3,000 (50%)");
    expect(taskProgress(task({ total: 0 }))?.text).toBe("0 of 0 (100%)");
    expect(taskProgress(task(null))).toBeNull();
    expect(taskProgress(task({ phase: "merging" }))).toBeNull();
    expect(taskProgress(task({ total: "many" }))).toBeNull();
  });

  it("says how a task ended", () => {
    const detail = (over: Partial<TaskDetail>): TaskDetail => ({ completed: true, task: task(null), response: null, error: null, ...over });
    expect(endNotice(detail({ completed: false }))).toBeNull();
    expect(endNotice(detail({ response: { created: 3000, failures: [] } }))).toEqual({
      ok: true,
      text: "Done: reindex from [a] to [b] (3,000 documents created)",
    });
    expect(endNotice(detail({ error: { type: "illegal_state_exception", reason: "the number of routing shards [1024] must be a multiple of the target shards [12]" } }))).toEqual({
      ok: false,
      text: "Failed: reindex from [a] to [b]: the number of routing shards [1024] must be a multiple of the target shards [12]",
    });
    expect(endNotice(detail({ response: { failures: [{}, {}] } }))?.text).toBe("Done with 2 failures: reindex from [a] to [b]");
  });
});
