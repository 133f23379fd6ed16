// Tasks: the real binary in front of search-test-server's simulated tasks, in both
// flavors (the stack's `prod` is OpenSearch 2; `ops-es` an Elasticsearch 8 front of its own): the
// seeded reindex is listed with its node and detail, and cancelling it from the browser makes it
// go; cancelling a task the cluster cannot cancel shows the cluster's reason.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { newPage, screenshot, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";
import { startSearchTestServers } from "./searchTestServer.mjs";

let stack;
let clusters;
beforeAll(async () => {
  clusters = await startSearchTestServers([{ id: "ops-es", flavor: "elasticsearch8" }]);
  stack = await startStack({ extraClusters: clusters.yaml });
});
afterAll(async () => {
  await stopStack(stack);
  await clusters?.stop();
});

const row = (page, action) => page.locator('[data-testid="task-row"]', { hasText: action });

for (const id of ["prod", "ops-es"]) {
  test(`${id}: cancel the seeded reindex from the tasks view and see it go`, async () => {
    const page = await newPage(stack);
    await openCluster(page, id, "tasks");
    const reindex = row(page, "reindex");
    await reindex.waitFor();
    const taskId = await reindex.getAttribute("data-task-id");
    // The listing's own task is there too, so the list is a live read.
    await row(page, "lists").first().waitFor();

    // Filter: cancellable only leaves the reindex (the seeded bulk and force merge cannot be).
    await page.locator('[data-testid="tasks-cancellable"]').check();
    await page.waitForFunction(() => !document.querySelector('[data-testid="task-row"][data-task-id] td')?.textContent?.includes("bulk") &&
      [...document.querySelectorAll('[data-testid="task-row"]')].every((r) => !r.textContent.includes("forcemerge")));
    await page.locator('[data-testid="tasks-cancellable"]').uncheck();

    // Detail.
    await reindex.click();
    const detail = page.locator('[data-testid="task-detail"]');
    await detail.locator('[data-testid="task-detail-description"]', { hasText: "reindex from [orders] to [orders-archive]" }).waitFor();
    await detail.locator("pre", { hasText: '"total": 100000' }).waitFor();
    await screenshot(page, `tasks-${id}-detail`);

    // A task the cluster cannot cancel: its reason, in the dialog.
    const bulk = row(page, "bulk");
    await bulk.locator('[data-testid="task-cancel"]').click();
    const dialog = page.locator('[data-testid="task-cancel-dialog"]');
    await dialog.locator(".banner-warn", { hasText: "not cancellable" }).waitFor();
    await dialog.locator('[data-testid="confirm-button"]').click();
    const refusal = dialog.locator('[data-testid="confirm-error"]');
    await refusal.waitFor();
    assert.match(await refusal.textContent(), /doesn't support this operation/);
    await screenshot(page, `tasks-${id}-refused`);
    await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
    await dialog.waitFor({ state: "detached" });

    // Cancel the reindex: confirmed, then gone from the list (the cluster lists it as cancelled
    // for a moment first; the list refreshes by itself).
    await reindex.locator('[data-testid="task-cancel"]').click();
    await dialog.locator('[data-testid="confirm-button"]').click();
    await dialog.waitFor({ state: "detached" });
    const notice = page.locator('[data-testid="tasks-notice"]');
    await notice.waitFor();
    assert.match(await notice.textContent(), new RegExp(`Cancelled ${taskId.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    await page.locator(`[data-testid="task-row"][data-task-id="${taskId}"]`).waitFor({ state: "detached", timeout: 15_000 });
    assert.equal(await row(page, "bulk").count(), 1, "the task that could not be cancelled is still running");
    await screenshot(page, `tasks-${id}-cancelled`);
    await page.close();
  });
}
