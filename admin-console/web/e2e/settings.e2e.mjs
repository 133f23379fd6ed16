// Cluster settings: the real binary in front of a real OpenSearch cluster (the stack's `prod`):
// set one persistent setting from the browser, see it beside its default, reset it.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { newPage, screenshot, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";

let stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stopStack(stack);
});

test("set a persistent setting, see it take the place of its default, reset it", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod", "settings");
  await page.locator('[data-testid="setting-add"]').click();
  const editor = page.locator('[data-testid="setting-editor"]');
  await editor.locator('[data-testid="setting-key"]').fill("cluster.max_shards_per_node");
  await editor.locator('[data-testid="setting-value"]').fill("{\"a\": 1}");
  await editor.getByText("set each key").waitFor();
  assert.equal(await editor.locator('[data-testid="setting-save"]').isDisabled(), true);
  await editor.locator('[data-testid="setting-value"]').fill("1500");
  await editor.locator('[data-testid="setting-save"]').click();
  await page.locator('[data-testid="settings-notice"]', { hasText: "cluster.max_shards_per_node (persistent) set to 1500." }).waitFor();
  const persistent = page.locator('[data-testid="setting-row"][data-key="cluster.max_shards_per_node"][data-source="persistent"]');
  await persistent.waitFor();
  assert.match(await persistent.textContent(), /1500/);
  const settings = await (await fetch(`${stack.clusterUrl}/_cluster/settings?flat_settings=true`)).json();
  assert.equal(settings.persistent["cluster.max_shards_per_node"], "1500");

  // With the defaults: the cluster lists a key's default only while the key is not set.
  await page.locator('[data-testid="settings-defaults"]').check();
  await page.locator('[data-testid="setting-row"][data-source="default"]').first().waitFor();
  await page.locator('[data-testid="settings-filter"]').fill("max_shards_per_node");
  const fallback = page.locator('[data-testid="setting-row"][data-key="cluster.max_shards_per_node"][data-source="default"]');
  await page.locator('[data-testid="setting-row"]').nth(1).waitFor({ state: "detached" });
  assert.equal(await fallback.count(), 0);
  assert.equal(await persistent.count(), 1);
  await screenshot(page, "settings-set");

  // A refusal from the cluster is shown as it said it.
  await page.locator('[data-testid="setting-add"]').click();
  await editor.locator('[data-testid="setting-key"]').fill("no.such.setting");
  await editor.locator('[data-testid="setting-value"]').fill("x");
  await editor.locator('[data-testid="setting-save"]').click();
  await editor.locator('[data-testid="setting-error"]', { hasText: "not recognized" }).waitFor();

  // Reset.
  await persistent.locator('[data-testid="setting-edit"]').click();
  await editor.locator('[data-testid="setting-reset"]').click();
  await page.locator('[data-testid="settings-notice"]', { hasText: "reset to its default" }).waitFor();
  await persistent.waitFor({ state: "detached" });
  await fallback.waitFor();
  assert.equal(await fallback.getAttribute("class"), "");
  assert.match(await fallback.textContent(), /1000/);
  await page.close();
});

test("the header's allocation lock follows a change made in the settings editor at once", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod", "settings");
  const lock = page.locator('[data-testid="allocation-lock"]');
  await page.locator('[data-testid="allocation-lock"][data-enable="all"]').waitFor();
  await page.locator('[data-testid="setting-add"]').click();
  const editor = page.locator('[data-testid="setting-editor"]');
  await editor.locator('[data-testid="setting-key"]').fill("cluster.routing.allocation.enable");
  await editor.locator('[data-testid="setting-value"]').fill('"primaries"');
  await editor.locator('[data-testid="setting-save"]').click();
  await page.locator('[data-testid="settings-notice"]', { hasText: "cluster.routing.allocation.enable (persistent) set to" }).waitFor();
  // The lock polls every 30 s; the default 10 s wait passes only if the editor's change reached it.
  await page.locator('[data-testid="allocation-lock"][data-enable="primaries"]').waitFor();
  assert.equal(await lock.getAttribute("aria-label"), "Allocation locked");

  await page.locator('[data-testid="setting-row"][data-key="cluster.routing.allocation.enable"] [data-testid="setting-edit"]').first().click();
  await editor.locator('[data-testid="setting-reset"]').click();
  await page.locator('[data-testid="allocation-lock"][data-enable="all"]').waitFor();
  await page.close();
});
