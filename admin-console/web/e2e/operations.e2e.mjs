// Long operations from an index's page on a real cluster: the Operations menu's dialogs check
// what is typed, a reindex starts as a task (`wait_for_completion=false`), the notice links to
// the Tasks view, which shows the task's progress and then a notice when it has ended; the
// page stays usable all along. An alias whose write index the page shows rolls over from the
// same menu. The stack's cluster is a single OpenSearch 3.8 node (the 2.19
// zip has no reindex module).
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { clusterCall, newPage, screenshot, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";

let stack;
beforeAll(async () => {
  stack = await startStack({ main: "opensearch3" });
  const bulk = Array.from({ length: 3000 }, (_, n) => `{"index":{"_index":"orders","_id":"${n}"}}\n{"n":${n}}\n`).join("");
  await clusterCall(stack.clusters.prod, "POST", "_bulk?refresh=true", bulk);
  await clusterCall(stack.clusters.prod, "PUT", "events-000001", { aliases: { events: { is_write_index: true } } });
});
afterAll(async () => {
  await stopStack(stack);
});

test("a reindex started from the index page is followed in Tasks until it ends", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod", "indices/orders");
  await page.locator('[data-testid="index-detail"] [data-testid="index-stats"]').waitFor();

  // A clone needs a read-only source: the dialog says so before anything is sent.
  await page.locator('[data-testid="operations-menu"]').click();
  await page.locator('[data-testid="operation-clone"]').click();
  const dialog = page.locator('[data-testid="operation-dialog"]');
  await dialog.locator('[data-testid="operation-target"]').fill("orders-copy");
  await dialog.locator('[data-testid="operation-problems"]', { hasText: "must be read-only first" }).waitFor();
  await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
  await dialog.waitFor({ state: "detached" });

  await page.locator('[data-testid="operations-menu"]').click();
  await page.locator('[data-testid="operation-reindex"]').click();
  await dialog.locator('[data-testid="operation-target"]').fill("Orders-v2");
  await dialog.locator('[data-testid="operation-problems"]', { hasText: "must be lowercase" }).waitFor();
  await dialog.locator('[data-testid="operation-target"]').fill("orders-v2");
  // Five batches of 1,000 a second or two apart: long enough to see it running.
  await dialog.locator('[data-testid="operation-rate"]').fill("500");
  await dialog.locator('[data-testid="operation-problems"]').waitFor({ state: "detached" });
  await dialog.locator('[data-testid="confirm-button"]').click();
  await dialog.waitFor({ state: "detached" });
  const started = page.locator('[data-testid="operation-started"]');
  await started.waitFor();
  assert.match(await started.textContent(), /Started reindex of orders into orders-v2 as task \S+:\d+/);
  await screenshot(page, "operations-started");

  await page.locator('[data-testid="operation-task-link"]').click();
  await page.locator('[data-testid="tasks-view"]').waitFor();
  // Ends with a notice naming the documents created (its progress may show on the way).
  const ended = page.locator('[data-testid="watched-task-ended"]');
  await ended.waitFor({ timeout: 60_000 });
  assert.equal(await ended.getAttribute("data-ok"), "true");
  assert.match(await ended.textContent(), /Done: reindex from \[orders\] to \[orders-v2\] \(3,000 documents created\)/);
  await screenshot(page, "operations-ended");
  const count = await clusterCall(stack.clusters.prod, "GET", "orders-v2/_count");
  assert.equal(count.count, 3000);
  await page.close();
});

test("the write index's page rolls its alias over", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod", "indices/events-000001");
  await page.locator('[data-testid="operations-menu"]').click();
  await page.locator('[data-testid="operation-rollover"][data-alias="events"]').click();
  const dialog = page.locator('[data-testid="rollover-dialog"]');
  await dialog.locator('[data-testid="confirm-button"]').click();
  await dialog.waitFor({ state: "detached" });
  const notice = page.locator('[data-testid="rolled-over"]');
  await notice.waitFor();
  assert.match(await notice.textContent(), /events rolled over: new write index events-000002/);
  const aliases = await clusterCall(stack.clusters.prod, "GET", "_alias/events");
  assert.equal(aliases["events-000002"].aliases.events.is_write_index, true);
  await page.close();
});
