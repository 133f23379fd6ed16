// Data tiers in the browser on a real tiered cluster: the stack's own cluster here is
// Elasticsearch 8 on three nodes with only tier roles (test-support's `search-nodes
// elasticsearch8-tiered`: node-0 hot and content, node-1 warm, node-2 cold). The shard grid
// groups its rows under a header per tier (hot, warm, cold), an index that prefers a tier sits in
// that tier's row, and the tier filter (kept in the URL as `?tier=`) keeps one tier; the Nodes
// view shows each node's tiers and filters by tier the same way. An OpenSearch 2 node (`plain`),
// which has no tier roles, gets neither headers nor a tier filter nor a Tiers column.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { clusterCall, newPage, screenshot, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";

let stack;
beforeAll(async () => {
  stack = await startStack({ main: "elasticsearch8-tiered", clusters: { plain: "opensearch2" } });
  const cluster = stack.clusters.prod;
  for (const [index, preference] of [
    ["tier-warm-logs", "data_warm"],
    ["tier-cold-logs", "data_cold"],
    ["tier-content", null],
  ]) {
    const settings = { number_of_shards: 1, number_of_replicas: 0 };
    if (preference) settings["routing.allocation.include._tier_preference"] = preference;
    await clusterCall(cluster, "PUT", index, { settings });
  }
  await clusterCall(cluster, "GET", "_cluster/health/tier-*?wait_for_status=green&timeout=60s");
});
afterAll(async () => {
  await stopStack(stack);
});

/** The grid's rows in order: `# tier` for a group header, else the node's name. */
const gridRows = (page) =>
  page.locator('[data-testid="shard-grid"] [role="row"][data-tier], [data-testid="shard-grid"] [role="row"][data-row]').evaluateAll((rows) =>
    rows.map((row) => (row.hasAttribute("data-tier") ? `# ${row.getAttribute("data-tier")}` : row.getAttribute("data-row"))),
  );

/** The grid row (node name) a chip of `index` sits in. */
const rowOfIndex = (page, index) =>
  page.locator(`[data-testid="shard-chip"][data-index="${index}"]`).evaluate((el) => el.closest("[data-row]").getAttribute("data-row"));

test("the shard grid groups nodes by tier, each index in its tier's row, and filters to one tier", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod", "shards");
  await page.getByLabel("Filter indices").fill("tier-");
  await page.locator('[data-testid="shard-chip"][data-index="tier-cold-logs"]').waitFor();
  assert.deepEqual(await gridRows(page), ["# hot", "node-0", "# warm", "node-1", "# cold", "node-2"]);
  assert.equal(await rowOfIndex(page, "tier-warm-logs"), "node-1");
  assert.equal(await rowOfIndex(page, "tier-cold-logs"), "node-2");
  assert.equal(await rowOfIndex(page, "tier-content"), "node-0");
  assert.match(await page.locator('[data-testid="tier-group"][data-tier="warm"]').textContent(), /Warm\s*1 node/);
  await screenshot(page, "tiers-grid-grouped");

  await page.getByLabel("Data tier").selectOption("warm");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("tier") === "warm");
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="shard-grid"] [data-row]').length === 1);
  assert.deepEqual(await gridRows(page), ["# warm", "node-1"]);
  await screenshot(page, "tiers-grid-warm");

  // The filter comes back from the URL.
  await page.goto("/clusters/prod/shards?tier=cold");
  await page.locator('[data-testid="shard-chip"][data-index="tier-cold-logs"]').waitFor();
  assert.deepEqual(await gridRows(page), ["# cold", "node-2"]);
  assert.equal(await page.getByLabel("Data tier").inputValue(), "cold");
  await page.close();
});

test("the nodes view shows each node's tiers and filters by tier", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod", "nodes");
  await page.locator('[data-testid="node-tiers"]').first().waitFor();
  const tiers = async () =>
    page.locator('[data-testid="nodes"] tbody tr').evaluateAll((rows) =>
      rows.map((row) => `${row.querySelector('[data-testid="node-link"]').textContent}: ${[...row.querySelectorAll(".tier")].map((t) => t.textContent).join(",")}`),
    );
  assert.deepEqual(await tiers(), ["node-0: hot,content", "node-1: warm", "node-2: cold"]);
  await screenshot(page, "tiers-nodes");

  await page.getByLabel("Data tier").selectOption("cold");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("tier") === "cold");
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="nodes"] tbody tr').length === 1);
  assert.deepEqual(await tiers(), ["node-2: cold"]);
  await page.close();
});

test("a cluster without tiers (OpenSearch) has no tier headers, filter or column", async () => {
  const page = await newPage(stack);
  await clusterCall(stack.clusters.plain, "PUT", "plain-logs", { settings: { number_of_shards: 1, number_of_replicas: 0 } });
  await openCluster(page, "plain", "shards");
  await page.locator('[data-testid="shard-chip"][data-index="plain-logs"]').waitFor();
  assert.deepEqual(await gridRows(page), [await rowOfIndex(page, "plain-logs")]);
  assert.equal(await page.getByLabel("Data tier").count(), 0);

  await openCluster(page, "plain", "nodes");
  await page.locator('[data-testid="node-link"]').first().waitFor();
  assert.equal(await page.locator('[data-testid="node-tiers"]').count(), 0);
  assert.equal(await page.getByLabel("Data tier").count(), 0);
  assert.ok(!(await page.locator('[data-testid="nodes"] thead').textContent()).includes("Tiers"));
  await page.close();
});
