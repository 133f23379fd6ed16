// The console's tabs and "Open in console" against the real binary and a real OpenSearch node:
// from an index page a prefilled request opens in a new tab while the first tab keeps its text,
// the request runs, and the tabs are there again after a reload, also with the browser's
// storage emptied (from the server: the embedded store in the stack's folder).
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newPage, screenshot, search, startStack, stopStack } from "./stack.mjs";
import { CONSOLE, REQUEST_EDITOR, openConsole, replaceEditorText, waitForStatus } from "./helpers.mjs";

const INDEX = "e2e-tabs";
const TABS = `${CONSOLE} [data-testid="console-text-tab"]`;

const store = mkdtempSync(join(tmpdir(), "console-tabs-e2e-"));

let stack;
beforeAll(async () => {
  stack = await startStack({
    main: "opensearch2:1",
    extraConfig: `saved_queries:\n  path: ${JSON.stringify(join(store, "saved.redb"))}\n`,
  });
  await search(stack, "PUT", INDEX, { settings: { number_of_replicas: 0 } });
});
afterAll(async () => {
  await stopStack(stack);
  rmSync(store, { recursive: true, force: true });
});

/** The tabs once the console has them all (the server's answer comes after the first render). */
async function tabCount(page, expected) {
  await page.locator(TABS).nth(expected - 1).waitFor();
  return page.locator(TABS).count();
}

/** Waits until the server keeps `count` tabs, the `active`-th one active (writes are debounced). */
async function serverKeeps(page, count, active) {
  let kept = null;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    kept = await page.evaluate(async () => (await fetch("/api/console/tabs?cluster=prod")).json());
    if (kept.tabs.length === count && kept.tabs[active]?.id === kept.active) return;
    await page.waitForTimeout(200);
  }
  assert.fail(`the server keeps ${JSON.stringify(kept)}`);
}

test("Open in console adds a tab beside the current one, and the tabs survive a reload", async () => {
  const page = await newPage(stack);
  await page.goto(`/clusters/prod/indices/${INDEX}`);
  await page.locator('[data-testid="index-title"]', { hasText: INDEX }).waitFor();
  await openConsole(page);
  await replaceEditorText(page, "GET /_cat/nodes?v\n# mine");
  assert.equal(await tabCount(page, 1), 1);

  await page.locator('[data-testid="index-detail"] [data-testid="open-in-console"]').click();
  assert.equal(await tabCount(page, 2), 2);
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
  await serverKeeps(page, 2, 0);
  await page.reload();
  await page.locator('[data-testid="index-title"]', { hasText: INDEX }).waitFor();
  await openConsole(page);
  assert.equal(await tabCount(page, 2), 2);
  await page.locator(REQUEST_EDITOR, { hasText: "# mine" }).waitFor();
  await page.locator(`${TABS} [role="tab"]`).nth(1).click();
  await page.locator(REQUEST_EDITOR, { hasText: `GET /${INDEX}/_stats` }).waitFor();

  // Another machine: nothing in this browser's storage, the tabs come from the server.
  await serverKeeps(page, 2, 1);
  await page.evaluate(() => window.localStorage.clear());
  await page.reload();
  await page.locator('[data-testid="index-title"]', { hasText: INDEX }).waitFor();
  await openConsole(page);
  assert.equal(await tabCount(page, 2), 2);
  await page.locator(`${TABS} [role="tab"]`).nth(1).click();
  await page.locator(REQUEST_EDITOR, { hasText: `GET /${INDEX}/_stats` }).waitFor();

  // Closing the second tab leaves the first.
  await page.locator(`${TABS} button[aria-label^="Close tab"]`).nth(1).click();
  await page.locator(REQUEST_EDITOR, { hasText: "# mine" }).waitFor();
  assert.equal(await tabCount(page, 1), 1);
  await page.close();
});
