// Templates: the real binary in front of a real OpenSearch cluster (the stack's `prod`): create
// an index template from the browser, see a legacy template badged, simulate an index name,
// and delete the template with its name typed; then compare `prod` with a secured Elasticsearch 8
// (`tpl-es`) side by side.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { clusterCall, newPage, screenshot, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";

let stack;
beforeAll(async () => {
  stack = await startStack({ clusters: { "tpl-es": "elasticsearch8-secured" } });
  // A legacy template made the old way, to be listed with its badge.
  const response = await fetch(`${stack.clusterUrl}/_template/e2e-legacy`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ index_patterns: ["e2e-*"], order: 0, settings: { number_of_replicas: 0 } }),
  });
  assert.equal(response.ok, true);
});
afterAll(async () => {
  await stopStack(stack);
});

test("create an index template, simulate an index name, delete the template", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod", "templates");
  const legacy = page.locator('[data-testid="template-row"][data-template="legacy/e2e-legacy"]');
  await legacy.locator(".pill", { hasText: "legacy" }).waitFor();

  // Create.
  await page.locator('[data-testid="template-new"]').click();
  const editor = page.locator('[data-testid="template-editor"]');
  await editor.locator('[data-testid="template-name"]').fill("E2E");
  await editor.getByText("The name must be lower case.").waitFor();
  await editor.locator('[data-testid="template-name"]').fill("e2e-logs");
  const definition = editor.locator('[data-testid="template-definition"]');
  await definition.fill('{"index_patterns": ["e2e-*"],');
  await editor.locator('[data-testid="template-definition-error"]', { hasText: "not valid JSON" }).waitFor();
  assert.equal(await editor.locator('[data-testid="template-save"]').isDisabled(), true);
  await definition.fill(
    JSON.stringify({
      index_patterns: ["e2e-*"],
      priority: 50,
      template: { settings: { number_of_shards: 2 }, mappings: { properties: { message: { type: "text" } } }, aliases: { "e2e-all": {} } },
    }),
  );
  await editor.locator('[data-testid="template-save"]').click();
  await page.locator('[data-testid="templates-notice"]', { hasText: "Index template e2e-logs created." }).waitFor();
  const row = page.locator('[data-testid="template-row"][data-template="index/e2e-logs"]');
  await row.waitFor();
  assert.match(await row.textContent(), /e2e-\*/);
  await screenshot(page, "templates-created");

  // Simulate.
  await page.locator('[data-testid="simulate-index"]').fill("e2e-2026.11.24");
  await page.locator('[data-testid="simulate-run"]').click();
  await page.locator('[data-testid="simulate-template"]', { hasText: "e2e-logs" }).waitFor();
  assert.match(await page.locator('[data-testid="simulate-settings"]').textContent(), /"number_of_shards": "2"/);
  assert.match(await page.locator('[data-testid="simulate-aliases"]').textContent(), /e2e-all/);
  assert.match(await page.locator('[data-testid="simulate-overlapping"]').textContent(), /e2e-legacy/);
  await screenshot(page, "templates-simulated", { fullPage: true });

  // Delete, the name typed.
  await row.locator('[data-testid="template-delete"]').click();
  const dialog = page.locator('[data-testid="template-delete-dialog"]');
  const confirm = dialog.locator('[data-testid="confirm-button"]');
  assert.equal(await confirm.isDisabled(), true);
  await dialog.locator('[data-testid="confirm-typed"]').fill("e2e-log");
  assert.equal(await confirm.isDisabled(), true);
  await dialog.locator('[data-testid="confirm-typed"]').fill("e2e-logs");
  await confirm.click();
  await dialog.waitFor({ state: "detached" });
  await row.waitFor({ state: "detached" });
  const gone = await fetch(`${stack.clusterUrl}/_index_template/e2e-logs`);
  assert.equal(gone.status, 404);
  await page.close();
});

test("compare two clusters: a template only here, one that differs, differences first", async () => {
  const template = (priority) => ({ index_patterns: [`cmp-${priority}-*`], priority });
  await clusterCall(stack.clusters.prod, "PUT", "_index_template/cmp-e2e-here", template(401));
  await clusterCall(stack.clusters.prod, "PUT", "_index_template/cmp-e2e-both", template(402));
  await clusterCall(stack.clusters["tpl-es"], "PUT", "_index_template/cmp-e2e-both", template(403));
  const page = await newPage(stack);
  await openCluster(page, "prod", "compare");
  await page.getByText("Choose a cluster to compare with").waitFor();
  await page.locator('[data-testid="compare-other"]').selectOption("tpl-es");
  await page.waitForURL(/\/clusters\/prod\/compare\/tpl-es$/);
  const templates = page.locator('[data-testid="compare-section"][data-kind="indexTemplates"]');
  const here = templates.locator('[data-testid="compare-entry"][data-name="cmp-e2e-here"]');
  await here.waitFor();
  assert.equal(await here.getAttribute("data-state"), "onlyLeft");
  assert.match(await here.textContent(), /only here.*"priority": 401/s);
  const both = templates.locator('[data-testid="compare-entry"][data-name="cmp-e2e-both"]');
  assert.equal(await both.getAttribute("data-state"), "different");
  assert.match(await both.textContent(), /402.*403/s);
  // Differences only (the default): nothing that is the same is listed; the filter narrows.
  assert.equal(await page.locator('[data-testid="compare-entry"][data-state="same"]').count(), 0);
  await page.locator('[data-testid="compare-filter"]').fill("cmp-e2e");
  await templates.locator('[data-testid="compare-entry"]').nth(2).waitFor({ state: "detached" });
  assert.equal(await templates.locator('[data-testid="compare-entry"]').count(), 2);
  assert.match(await page.locator('[data-testid="compare-summary"]').textContent(), /\d+ differences?/);
  await screenshot(page, "compare-clusters");
  // The same cluster twice under two names: no differences at all.
  await page.locator('[data-testid="compare-other"]').selectOption("staging");
  await page.locator('[data-testid="compare-summary"]', { hasText: "No differences" }).waitFor();
  await page.close();
});
