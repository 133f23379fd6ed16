// Cluster list, header, Overview, Nodes, Indices (server-side paging, sort and filter),
// the allocation lock and the dark theme.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { newPage, search, screenshot, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";

let stack;
beforeAll(async () => {
  stack = await startStack();
  // 60 indices, some with documents, for paging, sorting and filtering.
  for (let i = 0; i < 60; i++) {
    const name = `${i % 2 ? "metrics" : "logs"}-2026.11.${String(i).padStart(2, "0")}`;
    await search(stack, "PUT", name, { settings: { number_of_replicas: 0 } });
  }
  for (let d = 0; d < 7; d++) await search(stack, "PUT", `logs-2026.11.00/_doc/${d}?refresh=true`, { n: d });
});
afterAll(async () => {
  await stopStack(stack);
});

test("the cluster list shows every cluster with its health colour", async () => {
  const page = await newPage(stack);
  await page.goto("/");
  await page.locator('[data-testid="cluster-list"]').waitFor();
  for (const id of ["prod", "staging", "nodata"]) {
    const badge = page.locator(`[data-testid="cluster-${id}"] .health-badge`);
    await badge.waitFor();
    assert.match(await badge.getAttribute("data-health"), /^(green|yellow|red)$/);
  }
  assert.match(await page.locator('[data-testid="cluster-prod"]').textContent(), /Production/);
  await screenshot(page, "cluster-list");
  await page.locator('[data-testid="cluster-prod"]').click();
  await page.locator('[data-testid="cluster-header"] h1', { hasText: "Production" }).waitFor();
  await page.close();
});

test("every cluster view has the header with health, version, lock and console icon", async () => {
  const page = await newPage(stack);
  for (const view of ["", "nodes", "indices", "statistics"]) {
    await openCluster(page, "prod", view);
    const header = page.locator('[data-testid="cluster-header"]');
    await header.locator(".health-badge").waitFor();
    await header.locator('[data-testid="cluster-version"]', { hasText: /\d+\.\d+/ }).waitFor();
    await header.locator('[data-testid="allocation-lock"]:not([disabled])').waitFor();
    await header.locator('[data-testid="console-toggle"]').waitFor();
  }
  await openCluster(page, "prod");
  await page.locator('[data-testid="overview"] .tile').first().waitFor();
  assert.match(await page.locator('[data-testid="overview"]').textContent(), /Indices\s*6\d/);
  await screenshot(page, "overview");
  await openCluster(page, "prod", "nodes");
  await page.locator('[data-testid="nodes"] tbody tr').first().waitFor();
  assert.match(await page.locator('[data-testid="nodes"] tbody').textContent(), /node-1/);
  await screenshot(page, "nodes");
  await page.close();
});

test("the lock button sets and clears the allocation lock", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod");
  const lock = page.locator('[data-testid="allocation-lock"]');
  await page.locator('[data-testid="allocation-lock"][data-enable="all"]').waitFor();
  await lock.click();
  await page.locator('[role="menuitemradio"]', { hasText: /^Primaries only/ }).click();
  await page.locator('[data-testid="allocation-lock"][data-enable="primaries"]').waitFor();
  assert.equal(await lock.getAttribute("aria-label"), "Allocation locked");
  const settings = await search(stack, "GET", "_cluster/settings");
  assert.equal(JSON.stringify(settings.persistent).includes("primaries"), true);
  await screenshot(page, "allocation-locked");
  await lock.click();
  await page.locator('[role="menuitemradio"]', { hasText: "All shards" }).click();
  await page.locator('[data-testid="allocation-lock"][data-enable="all"]').waitFor();
  assert.equal(await lock.getAttribute("aria-label"), "Allocation unlocked");
  await page.close();
});

test("indices are paged, sorted and filtered by the server, with the state in the URL", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod", "indices?size=25");
  const rows = page.locator('[data-testid="indices-table"] tbody tr');
  await rows.first().waitFor();
  assert.equal(await rows.count(), 25);
  await page.locator('[data-testid="page-indicator"]', { hasText: "Page 1 of 3" }).waitFor();
  // Sorted by name, ascending, by default.
  const firstPage = await page.locator(".index-name").allTextContents();
  assert.deepEqual(firstPage, [...firstPage].sort());
  assert.equal(firstPage[0], "logs-2026.11.00");

  await page.locator('[aria-label="Next page"]').click();
  await page.locator('[data-testid="page-indicator"]', { hasText: "Page 2 of 3" }).waitFor();
  assert.equal(new URL(page.url()).searchParams.get("page"), "2");

  // Sort by documents, descending: the index with 7 documents comes first.
  await page.locator("th button", { hasText: "Documents" }).click();
  await page.locator(".index-name", { hasText: "logs-2026.11.00" }).first().waitFor();
  assert.equal(await page.locator(".index-name").first().textContent(), "logs-2026.11.00");
  assert.equal(new URL(page.url()).searchParams.get("sort"), "docsCount");
  assert.equal(new URL(page.url()).searchParams.get("page"), null, "sorting goes back to page 1");

  await page.locator('input[aria-label="Filter indices"]').fill("metrics-2026.11.1");
  await page.locator('[data-testid="indices-total"]', { hasText: "5 matching indices" }).waitFor();
  const names = await page.locator(".index-name").allTextContents();
  assert.deepEqual([...names].sort(), ["metrics-2026.11.11", "metrics-2026.11.13", "metrics-2026.11.15", "metrics-2026.11.17", "metrics-2026.11.19"]);
  assert.ok(names.every((n) => n.startsWith("metrics-2026.11.1")));
  await screenshot(page, "indices-filtered");

  // The URL reproduces the view.
  await page.reload();
  await page.locator('[data-testid="indices-total"]', { hasText: "5 matching indices" }).waitFor();
  assert.equal(await page.locator('input[aria-label="Filter indices"]').inputValue(), "metrics-2026.11.1");
  await page.close();
});

test("the dark theme applies everywhere and is remembered", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod", "statistics?range=7d");
  await page.locator('[data-testid="chart-nodes-indices"] canvas').waitFor();
  const before = await page.evaluate(() => document.documentElement.dataset.theme);
  if (before !== "dark") await page.locator('[data-testid="theme-toggle"]').click();
  await page.locator('[data-testid="console-toggle"]').click();
  await page.locator('[data-testid="console"] .console-panel').waitFor();
  await page.locator('[data-testid="console"] [data-testid="request-editor"] .cm-content').press("Control+Enter");
  await page.locator('[data-testid="response-status"]').waitFor();
  await page.locator('[data-testid="chart-nodes-indices"] canvas').waitFor();
  await screenshot(page, "dark-statistics-console");
  await page.reload();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, "rgb(15, 19, 24)");
  await page.locator('[data-testid="theme-toggle"]').click();
  await page.close();
});
