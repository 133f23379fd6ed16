// Managing indices and aliases: create an index → add an alias → close → open →
// edit a setting on its page → delete it with the typed confirmation, asserting what the page
// shows after each step and the cluster's state (asked of the real cluster directly); then a viewer sees
// every change disabled with the reason. The real binary, a real three-node OpenSearch 2.19 cluster,
// Chromium.
import { afterAll, beforeAll, describe, test } from "vitest";
import assert from "node:assert/strict";
import { newPage, search, screenshot, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";

/** The cluster's answer, or its HTTP status when it refuses (a deleted index is a 404). */
async function clusterStatus(stack, path) {
  const response = await fetch(`${stack.clusterUrl}/${path}`);
  return response.ok ? response.json() : response.status;
}

/** Waits until `check()` (async) holds, failing after `ms` with `what`. */
async function eventually(what, check, ms = 10_000) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not happen in ${ms} ms${last ? `: ${last.message}` : ""}`);
}

describe("an admin", () => {
  let stack;
  beforeAll(async () => {
    stack = await startStack();
    await search(stack, "PUT", "e2e-other", { settings: { number_of_replicas: 0 } });
  });
  afterAll(async () => {
    await stopStack(stack);
  });

  test("creates an index, aliases it, closes and opens it, edits a setting and deletes it by its typed name", async () => {
    const page = await newPage(stack);
    const row = (name) => page.locator(`[data-testid="indices-table"] tbody tr[data-index="${name}"]`);

    // 1. Create, with a bad name first: the form says why and does not send.
    await openCluster(page, "prod", "indices");
    await row("e2e-other").waitFor();
    await page.locator('[data-testid="create-index"]').click();
    const dialog = page.locator('[data-testid="create-index-dialog"]');
    await dialog.locator('[data-testid="create-name"]').fill("E2E-Orders*");
    await dialog.locator('[data-testid="create-errors"]', { hasText: 'contains "*"' }).waitFor();
    assert.equal(await dialog.locator('[data-testid="create-submit"]').isDisabled(), true);
    await dialog.locator('[data-testid="create-name"]').fill("e2e-orders");
    await dialog.locator('[data-testid="create-shards"]').fill("2");
    await dialog.locator('[data-testid="create-replicas"]').fill("0");
    await dialog.locator('[data-testid="create-mappings"]').fill('{"properties": {"sku": {"type": "keyword"}');
    await dialog.locator('[data-testid="create-mappings-error"]', { hasText: "not valid JSON" }).waitFor();
    await dialog.locator('[data-testid="create-mappings"]').fill('{"properties": {"sku": {"type": "keyword"}}}');
    await screenshot(page, "indices-create");
    await dialog.locator('[data-testid="create-submit"]').click();
    await page.locator('[data-testid="index-action-done"]', { hasText: "Index e2e-orders created." }).waitFor();
    await row("e2e-orders").waitFor();
    const mapping = await search(stack, "GET", "e2e-orders/_mapping");
    assert.deepEqual(mapping["e2e-orders"].mappings, { properties: { sku: { type: "keyword" } } });
    const settings = await search(stack, "GET", "e2e-orders/_settings");
    assert.equal(settings["e2e-orders"].settings.index.number_of_shards, "2");

    // 2. Add an alias (a write alias), applied as one batch.
    await openCluster(page, "prod", "aliases");
    await page.locator('[data-testid="add-alias"]').click();
    await page.locator('[data-testid="alias-index"]').fill("e2e-orders");
    await page.locator('[data-testid="alias-name"]').fill("orders");
    await page.locator('[data-testid="alias-write-index"]').selectOption("true");
    await page.locator('[data-testid="alias-add-pending"]').click();
    await page.locator('[data-testid="pending-change"]', { hasText: "add orders to e2e-orders (write index)" }).waitFor();
    assert.deepEqual(await search(stack, "GET", "e2e-orders/_alias"), { "e2e-orders": { aliases: {} } }, "nothing applied yet");
    await page.locator('[data-testid="apply-changes"]').click();
    await page.locator('[data-testid="aliases-message"]', { hasText: "Applied 1 change in one call." }).waitFor();
    const aliasRow = page.locator('[data-testid="aliases-table"] tr[data-alias="orders"][data-index="e2e-orders"]');
    await aliasRow.locator(".pill", { hasText: "write index" }).waitFor();
    await screenshot(page, "aliases");
    const aliases = await search(stack, "GET", "e2e-orders/_alias");
    assert.equal(aliases["e2e-orders"].aliases.orders.is_write_index, true);

    // 3. Close (two clicks), through the typed route.
    await openCluster(page, "prod", "indices");
    const close = page.locator('[data-testid="close-index"][data-index="e2e-orders"]');
    await close.click();
    await page.locator('[data-testid="close-index"][data-index="e2e-orders"]', { hasText: "Confirm close" }).click();
    await page.locator('[data-testid="index-action-done"]', { hasText: "Index e2e-orders closed." }).waitFor();
    await row("e2e-orders").locator(".pill", { hasText: "closed" }).waitFor();
    const closed = await search(stack, "GET", "_cat/indices/e2e-orders?format=json");
    assert.equal(closed[0].status, "close");

    // 4. Open.
    await page.locator('[data-testid="open-index"][data-index="e2e-orders"]').click();
    await page.locator('[data-testid="index-action-done"]', { hasText: "Index e2e-orders opened." }).waitFor();
    await row("e2e-orders").locator("td", { hasText: /^open$/ }).waitFor();
    const opened = await search(stack, "GET", "_cat/indices/e2e-orders?format=json");
    assert.equal(opened[0].status, "open");

    // 5. Its page: stats, shards, aliases; a dynamic setting edited, a static one read-only.
    await row("e2e-orders").locator('[data-testid="index-link"]').click();
    await page.locator('[data-testid="index-title"]', { hasText: "e2e-orders" }).waitFor();
    await page.locator('[data-testid="index-stats"]').waitFor();
    assert.equal(await page.locator('[data-testid="index-shards"] tbody tr').count(), 2);
    await page.locator('[data-testid="index-aliases"] li', { hasText: "orders" }).waitFor();
    assert.match(await page.locator('[data-testid="index-mappings"]').textContent(), /"sku"/);
    await page.locator('[data-testid="index-settings"] tr[data-key="index.number_of_shards"] [data-testid="setting-static"]').waitFor();
    await page.locator('[data-testid="add-setting"]').waitFor();
    await page.locator('select[aria-label="Setting to add"]').selectOption("index.refresh_interval");
    await page.locator('[data-testid="add-setting"]').click();
    await page.locator('[data-testid="setting-input"][data-key="index.refresh_interval"]').fill("7s");
    await page.locator('[data-testid="save-settings"]').click();
    await page.locator('[data-testid="settings-message"]', { hasText: "Saved index.refresh_interval." }).waitFor();
    const edited = await search(stack, "GET", "e2e-orders/_settings");
    assert.equal(edited["e2e-orders"].settings.index.refresh_interval, "7s");
    await screenshot(page, "index-detail", { fullPage: true });

    // 6. Delete from its page: the typed name, exactly.
    await page.locator('[data-testid="detail-delete"]').click();
    const confirm = page.locator('[data-testid="index-action-dialog"]');
    await confirm.locator('[data-testid="confirm-typed"]').fill("e2e-order");
    assert.equal(await confirm.locator('[data-testid="confirm-button"]').isDisabled(), true);
    await screenshot(page, "index-delete-confirm");
    assert.equal(await clusterStatus(stack, "_cat/indices/e2e-orders?format=json").then((r) => Array.isArray(r)), true, "still there");
    await confirm.locator('[data-testid="confirm-typed"]').fill("e2e-orders");
    await confirm.locator('[data-testid="confirm-button"]').click();
    // Back on the list, without the index.
    await page.waitForURL(/\/clusters\/prod\/indices$/);
    await row("e2e-other").waitFor();
    assert.equal(await row("e2e-orders").count(), 0);
    await eventually("the index is gone from the cluster", async () => (await clusterStatus(stack, "e2e-orders/_settings")) === 404);
    await page.close();
  });

  test("runs an action on a selection and shows each index's result", async () => {
    for (const name of ["e2e-bulk-1", "e2e-bulk-2"]) await search(stack, "PUT", name, { settings: { number_of_replicas: 0 } });
    // The console keeps the index list for a few seconds: wait until it lists the new ones.
    await eventually("the index list shows the new indices", async () => {
      const response = await fetch(`${stack.baseUrl}/api/clusters/prod/indices?filter=e2e-bulk`);
      return (await response.json()).total === 2;
    });
    const page = await newPage(stack);
    await page.goto("/clusters/prod/indices?filter=e2e-bulk");
    for (const name of ["e2e-bulk-1", "e2e-bulk-2"]) {
      await page.locator(`[data-testid="select-index"][data-index="${name}"]`).check();
    }
    await page.locator('[data-testid="selection-count"]', { hasText: "2 selected" }).waitFor();
    await page.locator('[data-testid="bulk-close"]').click();
    await page.locator('[data-testid="index-action-dialog"] [data-testid="confirm-button"]').click();
    await page.locator('[data-testid="action-summary"]', { hasText: "Close: done on 2 indices." }).waitFor();
    assert.equal(await page.locator('[data-testid="action-result"][data-ok="true"]').count(), 2);
    const statuses = await search(stack, "GET", "_cat/indices/e2e-bulk-*?format=json&h=index,status");
    assert.deepEqual(statuses.map((r) => r.status), ["close", "close"]);
    // Delete both: "delete 2 indices" typed.
    await page.locator('[data-testid="bulk-delete"]').click();
    const dialog = page.locator('[data-testid="index-action-dialog"]');
    await dialog.locator('[data-testid="confirm-typed"]').fill("delete 2 indices");
    await dialog.locator('[data-testid="confirm-button"]').click();
    await page.locator('[data-testid="action-summary"]', { hasText: "Delete: done on 2 indices." }).waitFor();
    await screenshot(page, "indices-bulk-results");
    await eventually("both indices are gone", async () => (await clusterStatus(stack, "e2e-bulk-1/_settings")) === 404 && (await clusterStatus(stack, "e2e-bulk-2/_settings")) === 404);
    await page.close();
  });
});

describe("a viewer", () => {
  let stack;
  beforeAll(async () => {
    stack = await startStack({
      extraServer: '  trusted_proxies: [127.0.0.1, "::1"]\n',
      extraConfig: "access:\n  mode: trusted_headers\n  default_role: viewer\n",
      headers: { "X-Auth-Request-User": "vera", "X-Auth-Request-Email": "vera@example.com", "X-Auth-Request-Groups": "staff" },
    });
    await search(stack, "PUT", "e2e-viewed", { settings: { number_of_replicas: 0 }, aliases: { viewed: {} } });
  });
  afterAll(async () => {
    await stopStack(stack);
  });

  test("sees every change disabled with the reason", async () => {
    const page = await newPage(stack);
    await openCluster(page, "prod", "indices");
    const create = page.locator('[data-testid="create-index"]');
    await page.locator('[data-testid="identity-role"]', { hasText: "viewer" }).waitFor();
    await page.locator('[data-testid="select-index"][data-index="e2e-viewed"]').check();
    for (const [id, role] of [
      ["create-index", "admin"],
      ["bulk-refresh", "operator"],
      ["bulk-close", "operator"],
      ["bulk-block_write", "admin"],
      ["bulk-delete", "admin"],
    ]) {
      const button = page.locator(`[data-testid="${id}"]`);
      assert.equal(await button.isDisabled(), true, id);
      assert.equal(await button.getAttribute("title"), `Needs the ${role} role; you have viewer.`, id);
    }
    assert.equal(await create.locator("xpath=..").getAttribute("title"), "Needs the admin role; you have viewer.");
    await screenshot(page, "indices-viewer");
    // The index page still reads; its actions are disabled.
    await page.goto("/clusters/prod/indices/e2e-viewed");
    await page.locator('[data-testid="index-stats"]').waitFor();
    assert.equal(await page.locator('[data-testid="detail-delete"]').isDisabled(), true);
    assert.equal(await page.locator('[data-testid="save-settings"]').isDisabled(), true);
    // Aliases: listed, not changeable.
    await openCluster(page, "prod", "aliases");
    await page.locator('[data-testid="aliases-table"] tr[data-alias="viewed"]').waitFor();
    assert.equal(await page.locator('[data-testid="add-alias"]').isDisabled(), true);
    assert.equal(await page.locator('[data-testid="remove-alias"]').first().isDisabled(), true);
    // The server decides: the call made anyway is refused and the index stays.
    const refused = await page.evaluate(async () => {
      const response = await fetch("/api/clusters/prod/indices/e2e-viewed?confirm=e2e-viewed", {
        method: "DELETE",
        headers: { "X-Requested-By": "admin-console" },
      });
      return { status: response.status, body: await response.json() };
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.message, "This needs the admin role on cluster prod; you have viewer.");
    assert.equal((await search(stack, "GET", "_cat/indices/e2e-viewed?format=json"))[0].index, "e2e-viewed");
    await page.close();
  });
});
