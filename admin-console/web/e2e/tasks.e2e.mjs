// Tasks on real clusters, in both flavors: a long-running cancellable task is listed with its
// node and detail, and cancelling it from the browser makes it go; cancelling a task the cluster
// cannot cancel shows the cluster's reason. OpenSearch: a throttled `_reindex`; the stack's own
// cluster is a single OpenSearch 3.8 node here (the 2.19 zip has no reindex module; two JVMs
// less to start).
// Elasticsearch 8.19 (secured; its zip has no reindex either): a task listing waiting for the
// hot threads task below to complete, which Elasticsearch cancels at once (a waiting
// `_cluster/health` is cancellable too, but ends only at its timeout). The task neither can
// cancel: a `_nodes/hot_threads` sampling for minutes.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { clusterCall, newPage, screenshot, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";

let stack;
beforeAll(async () => {
  stack = await startStack({ main: "opensearch3", clusters: { "ops-es": "elasticsearch8-secured" } });
  // 1,000 documents for the reindex, copied 10 at a time at one document a second.
  const bulk = Array.from({ length: 1000 }, (_, n) => `{"index":{"_index":"orders","_id":"${n}"}}\n{"n":${n}}\n`).join("");
  await clusterCall(stack.clusters.prod, "POST", "_bulk?refresh=true", bulk);
});
afterAll(async () => {
  await stopStack(stack);
});

/** Sends a request that runs for a long time, tagged with `X-Opaque-Id: tag`, without waiting for
 * its answer; answers the id of its task once the cluster lists it. */
async function startTask(cluster, action, tag, method, path, body) {
  const tagged = { ...cluster, headers: { "X-Opaque-Id": tag } };
  clusterCall(tagged, method, path, body, { raw: true }).catch(() => {});
  const deadline = Date.now() + 30_000;
  for (;;) {
    const listed = await clusterCall(cluster, "GET", `_tasks?detailed=true&actions=${encodeURIComponent(action)}`);
    for (const { tasks } of Object.values(listed.nodes)) {
      for (const [id, task] of Object.entries(tasks)) {
        if (task.headers?.["X-Opaque-Id"] === tag && !task.parent_task_id) return id;
      }
    }
    assert.ok(Date.now() < deadline, `the cluster lists the task ${tag}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const CASES = [
  {
    id: "prod",
    cancellable: (cluster) =>
      startTask(cluster, "indices:data/write/reindex", "e2e-reindex", "POST", "_reindex?wait_for_completion=false&requests_per_second=1", {
        source: { index: "orders", size: 10 },
        dest: { index: "orders-archive" },
      }),
    detail: async (detail) => {
      await detail.locator('[data-testid="task-detail-description"]', { hasText: "reindex from [orders] to [orders-archive]" }).waitFor();
      await detail.locator("pre", { hasText: '"total": 1000' }).waitFor();
    },
  },
  {
    id: "ops-es",
    cancellable: (cluster) =>
      startTask(
        cluster,
        "cluster:monitor/tasks/lists",
        "e2e-wait",
        "GET",
        `_tasks?wait_for_completion=true&timeout=300s&actions=${encodeURIComponent("cluster:monitor/nodes/hot_threads")}`,
      ),
    detail: async (detail) => {
      await detail.getByText("cluster:monitor/tasks/lists").first().waitFor();
    },
  },
];

const byId = (page, taskId) => page.locator(`[data-testid="task-row"][data-task-id="${taskId}"]`);

for (const { id, cancellable, detail: checkDetail } of CASES) {
  test(`${id}: cancel a running task from the tasks view and see it go`, async () => {
    const cluster = stack.clusters[id];
    const stuckId = await startTask(cluster, "cluster:monitor/nodes/hot_threads", `e2e-hot-${id}`, "GET", "_nodes/hot_threads?interval=300s");
    const taskId = await cancellable(cluster);

    const page = await newPage(stack);
    await openCluster(page, id, "tasks");
    const task = byId(page, taskId);
    await task.waitFor();
    // The listing's own task is there too, so the list is a live read.
    await page.locator('[data-testid="task-row"]', { hasText: "lists" }).first().waitFor();

    // Filter: cancellable only leaves out hot threads, which cannot be cancelled.
    // (One render shows both: the task's row and no hot threads; the list may be empty while
    // it loads.)
    await page.locator('[data-testid="tasks-cancellable"]').check();
    await page.waitForFunction(
      ([kept, left]) =>
        document.querySelector(`[data-testid="task-row"][data-task-id="${kept}"]`) !== null &&
        document.querySelector(`[data-testid="task-row"][data-task-id="${left}"]`) === null,
      [taskId, stuckId],
    );
    await page.locator('[data-testid="tasks-cancellable"]').uncheck();

    // Detail, with the request's tag among its headers.
    await task.click();
    const detail = page.locator('[data-testid="task-detail"]');
    await checkDetail(detail);
    await detail.getByText(id === "prod" ? "e2e-reindex" : "e2e-wait").waitFor();
    await screenshot(page, `tasks-${id}-detail`);

    // A task the cluster cannot cancel: its reason, in the dialog.
    await byId(page, stuckId).locator('[data-testid="task-cancel"]').click();
    const dialog = page.locator('[data-testid="task-cancel-dialog"]');
    await dialog.locator(".banner-warn", { hasText: "not cancellable" }).waitFor();
    await dialog.locator('[data-testid="confirm-button"]').click();
    const refusal = dialog.locator('[data-testid="confirm-error"]');
    await refusal.waitFor();
    assert.match(await refusal.textContent(), /doesn't support cancellation/);
    await screenshot(page, `tasks-${id}-refused`);
    await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
    await dialog.waitFor({ state: "detached" });

    // Cancel the task: confirmed, then gone from the list (the cluster may list it as
    // cancelled for a moment first; the list refreshes by itself).
    await task.locator('[data-testid="task-cancel"]').click();
    await dialog.locator('[data-testid="confirm-button"]').click();
    await dialog.waitFor({ state: "detached" });
    const notice = page.locator('[data-testid="tasks-notice"]');
    await notice.waitFor();
    assert.match(await notice.textContent(), new RegExp(`Cancelled ${taskId.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    // Gone, while the task that could not be cancelled is still running (in the same render).
    await page.waitForFunction(
      ([gone, running]) =>
        document.querySelector(`[data-testid="task-row"][data-task-id="${gone}"]`) === null &&
        document.querySelector(`[data-testid="task-row"][data-task-id="${running}"]`) !== null,
      [taskId, stuckId],
      { timeout: 15_000 },
    );
    await screenshot(page, `tasks-${id}-cancelled`);
    await page.close();
  });
}
