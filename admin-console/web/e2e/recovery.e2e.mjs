// Recovery progress on the stack's real three-node OpenSearch 2.19 cluster: drain the node that
// holds an index's only copy (some megabytes, recoveries throttled to 100 kB/s so the copy takes
// half a minute to leave) from its page; its Recoveries panel lists the copy leaving with its
// bytes, the shard grid's moving chips carry the progress, and the index's page lists it too.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { clusterCall, newPage, screenshot, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";

let stack;
beforeAll(async () => {
  stack = await startStack();
  const cluster = stack.clusters.prod;
  await clusterCall(cluster, "PUT", "recovering", { settings: { number_of_shards: 1, number_of_replicas: 0 } });
  // About 2.5 MB of text that hardly compresses (hex digits of an xorshift sequence).
  let seed = 12345;
  const hex = () => {
    let text = "";
    for (let i = 0; i < 256; i++) {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      seed >>>= 0;
      text += seed.toString(16).padStart(8, "0");
    }
    return text;
  };
  for (let batch = 0; batch < 4; batch++) {
    const bulk = Array.from({ length: 300 }, (_, n) => `{"index":{"_index":"recovering","_id":"${batch}-${n}"}}\n{"text":"${hex()}"}\n`).join("");
    await clusterCall(cluster, "POST", "_bulk?refresh=true", bulk);
  }
  await clusterCall(cluster, "POST", "recovering/_flush");
  await clusterCall(cluster, "GET", "_cluster/health/recovering?wait_for_status=green&timeout=60s");
  await clusterCall(cluster, "PUT", "_cluster/settings", { transient: { "indices.recovery.max_bytes_per_sec": "100kb" } });
});
afterAll(async () => {
  if (stack) {
    await clusterCall(stack.clusters.prod, "PUT", "_cluster/settings", {
      transient: { "indices.recovery.max_bytes_per_sec": null },
      persistent: { "cluster.routing.allocation.exclude._name": null },
    });
  }
  await stopStack(stack);
});

test("drain a node and watch its copy leave with its progress on the node page, the grid and the index page", async () => {
  const [holder] = await clusterCall(stack.clusters.prod, "GET", "_cat/shards/recovering?format=json&h=node");
  const page = await newPage(stack);
  await openCluster(page, "prod", "nodes");
  await page.locator('[data-testid="node-link"]', { hasText: holder.node }).first().click();
  const detail = page.locator('[data-testid="node-detail"]');
  await detail.locator('[data-testid="node-title"]', { hasText: holder.node }).waitFor();
  await detail.locator('[data-testid="node-drain"]').click();
  await page.locator('[data-testid="node-drain-dialog"]').getByRole("button", { name: "Drain", exact: true }).click();

  // The node's page: the copy leaving, a peer recovery with its bytes.
  const leaving = detail.locator('[data-testid="recoveries"] [data-testid="recovery-row"][data-direction="leaving"]');
  await leaving.waitFor({ timeout: 30_000 });
  const row = await leaving.textContent();
  assert.match(row, /^leavingrecovering0 primarypeer/);
  assert.match(row, /[\d.]+ (KB|MB|B) of [\d.]+ MB/);
  await screenshot(page, "recovery-node-draining");

  // The grid: the moving chips carry the progress, in their tooltip in full.
  await openCluster(page, "prod", "shards");
  await page.getByLabel("Filter indices").fill("recovering");
  const moving = page.locator('[data-testid="shard-chip"][data-index="recovering"][data-progress]').first();
  await moving.waitFor({ timeout: 30_000 });
  assert.match(await moving.getAttribute("title"), /recovering shard 0 primary.*\([\d.]+% · (init|index|verify index|translog|finalize) · .* of .* MB · \d+\/\d+ files/);
  assert.match(await moving.textContent(), /^0[→←]\d+%$/);
  await screenshot(page, "recovery-grid");

  // The index's page lists it as well, then nothing once it has landed.
  await page.goto("/clusters/prod/indices/recovering");
  const panel = page.locator('[data-testid="index-detail"] [data-testid="recoveries"]');
  await panel.locator('[data-testid="recovery-row"]').first().waitFor({ timeout: 30_000 });
  await clusterCall(stack.clusters.prod, "PUT", "_cluster/settings", { transient: { "indices.recovery.max_bytes_per_sec": null } });
  await panel.waitFor({ state: "detached", timeout: 60_000 });
  await page.close();
});
