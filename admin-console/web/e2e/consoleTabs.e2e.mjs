// The console's tabs and "Open in console" against the real binary and a real OpenSearch node:
// from an index page a prefilled request opens in a new tab while the first tab keeps its text,
// the request runs, and the tabs are there again after a reload.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { newPage, screenshot, search, startStack, stopStack } from "./stack.mjs";
import { CONSOLE, REQUEST_EDITOR, openConsole, replaceEditorText, waitForStatus } from "./helpers.mjs";

const INDEX = "e2e-tabs";
const TABS = `${CONSOLE} [data-testid="console-text-tab"]`;

let stack;
beforeAll(async () => {
  stack = await startStack({ main: "opensearch2:1" });
  await search(stack, "PUT", INDEX, { settings: { number_of_replicas: 0 } });
});
afterAll(async () => {
  await stopStack(stack);
});

test("Open in console adds a tab beside the current one, and the tabs survive a reload", async () => {
  const page = await newPage(stack);
  await page.goto(`/clusters/prod/indices/${INDEX}`);
  await page.locator('[data-testid="index-title"]', { hasText: INDEX }).waitFor();
  await openConsole(page);
  await replaceEditorText(page, "GET /_cat/nodes?v\n# mine");
  assert.equal(await page.locator(TABS).count(), 1);

  await page.locator('[data-testid="index-detail"] [data-testid="open-in-console"]').click();
  await page.locator(TABS).nth(1).waitFor();
  assert.equal(await page.locator(TABS).count(), 2);
  await page.locator(`${TABS}.active`, { hasText: `GET /${INDEX}/_settings` }).waitFor();
  const opened = await page.locator(REQUEST_EDITOR).textContent();
  for (const api of ["_settings", "_mapping", "_stats"]) assert.ok(opened.includes(`GET /${INDEX}/${api}`), opened);

  // The prefilled request runs as it is.
  await page.locator(REQUEST_EDITOR).click();
  await page.keyboard.press("Control+Home");
  await page.keyboard.press("Control+Enter");
  await waitForStatus(page, 200);
  await screenshot(page, "console-tabs-open-in-console");

  // The first tab kept its text.
  await page.locator(`${TABS} [role="tab"]`).first().click();
  await page.locator(REQUEST_EDITOR, { hasText: "# mine" }).waitFor();

  // After a reload (the console closed), both tabs are back, the first one active.
  await page.reload();
  await page.locator('[data-testid="index-title"]', { hasText: INDEX }).waitFor();
  await openConsole(page);
  assert.equal(await page.locator(TABS).count(), 2);
  await page.locator(REQUEST_EDITOR, { hasText: "# mine" }).waitFor();
  await page.locator(`${TABS} [role="tab"]`).nth(1).click();
  await page.locator(REQUEST_EDITOR, { hasText: `GET /${INDEX}/_stats` }).waitFor();

  // Closing the second tab leaves the first.
  await page.locator(`${TABS} button[aria-label^="Close tab"]`).nth(1).click();
  await page.locator(REQUEST_EDITOR, { hasText: "# mine" }).waitFor();
  assert.equal(await page.locator(TABS).count(), 1);
  await page.close();
});
