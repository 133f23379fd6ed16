// The console's Saved tab against the real binary (embedded store in the stack's own folder,
// trusted_headers as an operator in `staff`) and a real OpenSearch node: save with name, tags
// and a group, search, load without losing unsaved text, a concurrent edit's conflict,
// export and import, delete.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newPage, screenshot, startStack, stopStack } from "./stack.mjs";
import { CONSOLE, REQUEST_EDITOR, openCluster, openConsole, replaceEditorText } from "./helpers.mjs";

const OPERATOR = {
  "X-Auth-Request-User": "otto",
  "X-Auth-Request-Email": "otto@example.com",
  "X-Auth-Request-Groups": "staff,sre-oncall",
};
const store = mkdtempSync(join(tmpdir(), "saved-queries-e2e-"));

let stack;
beforeAll(async () => {
  stack = await startStack({
    main: "opensearch2:1",
    extraServer: '  trusted_proxies: [127.0.0.1, "::1"]\n',
    extraConfig: `access:\n  mode: trusted_headers\n  roles:\n    - {group: 'sre-*', role: operator}\nsaved_queries:\n  path: ${JSON.stringify(join(store, "saved.redb"))}\n`,
    headers: OPERATOR,
  });
});
afterAll(async () => {
  await stopStack(stack);
  rmSync(store, { recursive: true, force: true });
});

const SAVED = `${CONSOLE} [data-testid="saved"]`;
const entries = (page) => page.locator(`${SAVED} [data-testid="saved-entry"]`);

test("save, search, load, a conflicting edit, export, import and delete", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod");
  await openConsole(page);
  const runbook = "GET /_cluster/health\n\nGET /_cat/shards?v&h=index,state,unassigned.reason";
  await replaceEditorText(page, runbook);

  // Save it, shared with staff, for this cluster only.
  await page.locator(`${CONSOLE} [data-testid="saved-tab"]`).click();
  await page.locator('[data-testid="saved-name"]').fill("Unassigned shards");
  await page.locator('[data-testid="saved-tags"]').fill("runbook, shards");
  await page.locator('[data-testid="saved-visibility"]').selectOption("group:staff");
  await page.locator('[data-testid="saved-save"]').click();
  await page.locator('[data-testid="saved-message"]', { hasText: 'Saved "Unassigned shards"' }).waitFor();
  await entries(page).filter({ hasText: "Unassigned shards" }).waitFor();
  assert.match(await entries(page).first().textContent(), /staff · prod · otto/);
  await screenshot(page, "saved-queries-list");

  // Search by tag, and a search that finds nothing.
  await page.locator('[data-testid="saved-search"]').fill("nothing-like-this");
  await page.locator(`${SAVED} li`, { hasText: "No saved queries match" }).waitFor();
  await page.locator('[data-testid="saved-search"]').fill("RUNBOOK");
  await entries(page).filter({ hasText: "Unassigned shards" }).waitFor();

  // Unsaved text in the editor: loading asks first; dismissing keeps the text.
  await page.locator(`${CONSOLE} [role="tab"]`, { hasText: "Requests" }).click();
  await replaceEditorText(page, "GET /_cat/nodes?v");
  await page.locator(`${CONSOLE} [data-testid="saved-tab"]`).click();
  let asked = null;
  page.once("dialog", (dialog) => {
    asked = dialog.message();
    void dialog.dismiss();
  });
  await entries(page).first().locator(".history-entry").click();
  assert.match(asked ?? "", /not saved/);
  await page.locator(`${CONSOLE} [data-testid="saved-tab"][aria-selected="true"]`).waitFor();
  page.once("dialog", (dialog) => void dialog.accept());
  await entries(page).first().locator(".history-entry").click();
  await page.locator(REQUEST_EDITOR, { hasText: "unassigned.reason" }).waitFor();
  const loaded = await page.locator(REQUEST_EDITOR).textContent();
  assert.ok(loaded.includes("GET /_cluster/health") && !loaded.includes("_cat/nodes"), loaded);

  // Someone else saves version 2 while we edit version 1: we are told, then choose to save over it.
  await page.locator(`${CONSOLE} [data-testid="saved-tab"]`).click();
  await entries(page).first().locator('[data-testid="saved-edit"]').click();
  const other = await page.evaluate(async () => {
    const list = await (await fetch("/api/saved-queries?q=runbook")).json();
    const query = list.queries[0];
    const response = await fetch(`/api/saved-queries/${query.id}`, {
      method: "PUT",
      headers: { "Content-Type": "application/json", "X-Requested-By": "admin-console" },
      body: JSON.stringify({
        name: query.name,
        tags: query.tags,
        cluster: query.cluster,
        visibility: query.visibility,
        version: query.version,
        text: "GET /_cluster/allocation/explain",
      }),
    });
    return response.status;
  });
  assert.equal(other, 200);
  await page.locator('[data-testid="saved-save"]').click();
  await page.locator('[data-testid="saved-conflict"]', { hasText: "version 2" }).waitFor();
  await screenshot(page, "saved-queries-conflict");
  await page.locator('[data-testid="saved-overwrite"]').click();
  await page.locator('[data-testid="saved-message"]', { hasText: "Saved" }).waitFor();
  const stored = await page.evaluate(async () => (await (await fetch("/api/saved-queries?q=runbook")).json()).queries[0]);
  assert.equal(stored.version, 3);
  assert.match(stored.text, /unassigned\.reason/);

  // Export downloads the document; importing it again skips what is already there.
  const download = page.waitForEvent("download");
  await page.locator('[data-testid="saved-export"]').click();
  const file = join(stack.dir, "export.json");
  await (await download).saveAs(file);
  const exported = JSON.parse(readFileSync(file, "utf8"));
  assert.equal(exported.kind, "admin-console/saved-queries");
  assert.equal(exported.queries.length, 1);
  await page.locator('[data-testid="saved-import-file"]').setInputFiles(file);
  await page.locator('[data-testid="saved-message"]', { hasText: "0 created, 1 skipped" }).waitFor();

  // Delete after confirming.
  page.once("dialog", (dialog) => void dialog.accept());
  await entries(page).first().locator('[data-testid="saved-delete"]').click();
  await page.locator('[data-testid="saved-message"]', { hasText: 'Deleted "Unassigned shards"' }).waitFor();
  assert.equal(await entries(page).count(), 0);
});
