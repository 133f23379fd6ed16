// Data streams: the real binary in front of a real OpenSearch 2.19 node (the stack's `prod`):
// make an index template with the data stream option in the template editor, create a data
// stream from the browser (a bad name and a name no such template matches refused with the
// reason), roll it over, and delete it with its name typed.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { newPage, screenshot, search, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";

let stack;
beforeAll(async () => {
  // One node is enough for data streams (and starts sooner on 2 cores).
  stack = await startStack({ main: "opensearch2:1" });
});
afterAll(async () => {
  await stopStack(stack);
});

test("make a data stream template, create, roll over and delete a data stream", async () => {
  const page = await newPage(stack);

  // The index template, its data stream option ticked in the editor.
  await openCluster(page, "prod", "templates");
  await page.locator('[data-testid="template-new"]').click();
  const editor = page.locator('[data-testid="template-editor"]');
  await editor.locator('[data-testid="template-name"]').fill("e2e-ds");
  const definition = editor.locator('[data-testid="template-definition"]');
  await definition.fill(JSON.stringify({ index_patterns: ["e2e-ds-*"], priority: 60, template: { settings: { number_of_replicas: 0 } } }));
  const option = editor.locator('[data-testid="template-data-stream"]');
  assert.equal(await option.isChecked(), false);
  await option.check();
  assert.deepEqual(JSON.parse(await definition.inputValue()).data_stream, {});
  await editor.locator('[data-testid="template-save"]').click();
  await page.locator('[data-testid="templates-notice"]', { hasText: "Index template e2e-ds created." }).waitFor();
  const templateRow = page.locator('[data-testid="template-row"][data-template="index/e2e-ds"]');
  await templateRow.locator(".pill", { hasText: "data stream" }).waitFor();

  // The Data streams tab, empty; a bad name and a name no data stream template matches.
  await page.locator("nav.tabs a", { hasText: "Data streams" }).click();
  await page.locator('[data-testid="data-streams-view"]').getByText("No data streams").waitFor();
  await page.locator('[data-testid="data-stream-new"]').click();
  const create = page.locator('[data-testid="data-stream-create-dialog"]');
  await create.locator('[data-testid="data-stream-name"]').fill("E2E-DS-WEB");
  await create.getByText("The data stream name must be lowercase.").waitFor();
  await create.locator('[data-testid="data-stream-name"]').fill("e2e-other");
  await create.locator('[data-testid="confirm-button"]').click();
  await create.getByText('No index template with a data_stream matches "e2e-other"', { exact: false }).waitFor();
  await screenshot(page, "data-streams-no-template");

  // Created from the template.
  await create.locator('[data-testid="data-stream-name"]').fill("e2e-ds-web");
  await create.locator('[data-testid="confirm-button"]').click();
  await create.waitFor({ state: "detached" });
  await page.locator('[data-testid="data-streams-notice"]', { hasText: "Data stream e2e-ds-web created." }).waitFor();
  const row = page.locator('[data-testid="data-stream-row"][data-data-stream="e2e-ds-web"]');
  await row.waitFor();
  assert.equal(await row.locator('[data-testid="data-stream-generation"]').textContent(), "1");
  assert.equal(await row.locator('[data-testid="data-stream-backing"]').textContent(), ".ds-e2e-ds-web-000001 (write)");
  assert.match(await row.textContent(), /e2e-ds/);
  await row.locator(".health-badge", { hasText: "green" }).waitFor();

  // Rolled over: generation 2, a new write index.
  await row.locator('[data-testid="data-stream-rollover"]').click();
  const rollover = page.locator('[data-testid="data-stream-rollover-dialog"]');
  await rollover.locator('[data-testid="confirm-button"]').click();
  await rollover.waitFor({ state: "detached" });
  await page
    .locator('[data-testid="data-streams-notice"]', { hasText: "e2e-ds-web rolled over: .ds-e2e-ds-web-000002 is the write index now (was .ds-e2e-ds-web-000001)." })
    .waitFor();
  await row.locator('[data-testid="data-stream-generation"]', { hasText: "2" }).waitFor();
  assert.equal(await row.locator('[data-testid="data-stream-backing"]').textContent(), ".ds-e2e-ds-web-000001, .ds-e2e-ds-web-000002 (write)");
  const listed = await search(stack, "GET", "_data_stream/e2e-ds-web");
  assert.equal(listed.data_streams[0].generation, 2);
  await screenshot(page, "data-streams-rolled-over");

  // Deleted, its name typed.
  await row.locator('[data-testid="data-stream-delete"]').click();
  const dialog = page.locator('[data-testid="data-stream-delete-dialog"]');
  const confirm = dialog.locator('[data-testid="confirm-button"]');
  assert.equal(await confirm.isDisabled(), true);
  await dialog.locator('[data-testid="confirm-typed"]').fill("e2e-ds");
  assert.equal(await confirm.isDisabled(), true);
  await dialog.locator('[data-testid="confirm-typed"]').fill("e2e-ds-web");
  await confirm.click();
  await dialog.waitFor({ state: "detached" });
  await row.waitFor({ state: "detached" });
  const remaining = await search(stack, "GET", "_data_stream");
  assert.deepEqual(remaining.data_streams, []);
  await page.close();
});
