// Shards and nodes on real three-node clusters, in both flavors (the stack's OpenSearch 2.19 and
// an Elasticsearch 7.10 cluster of this file's own: the harness runs no secured Elasticsearch 8
// on several nodes). Move a shard in the grid (pick the primary, move it to the node that holds
// no copy, see it relocating, then started on the target); an unassigned replica explained in
// the cluster's words; a node's page from the grid and from the Nodes view; draining a node from
// its page (the header lists it, its page counts the shards left) and undoing it.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { clusterCall, newPage, screenshot, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";

let stack;
beforeAll(async () => {
  stack = await startStack({ clusters: { "shards-es": "elasticsearch7:3" } });
  for (const id of ["prod", "shards-es"]) {
    const cluster = stack.clusters[id];
    // Three replicas on three nodes: one copy has nowhere to go.
    await clusterCall(cluster, "PUT", "crowded", { settings: { number_of_shards: 1, number_of_replicas: 3 } });
    await clusterCall(cluster, "PUT", "moves", { settings: { number_of_shards: 1, number_of_replicas: 1 } });
    // Some kilobytes of documents, flushed to segments, and recoveries throttled so that a move
    // copies them for some seconds: longer than two of the grid's 2 s refreshes while something
    // moves, so the relocating chips are seen even on a loaded machine.
    const bulk = Array.from({ length: 300 }, (_, n) => `{"index":{"_index":"moves","_id":"${n}"}}\n{"n":${n},"text":"document number ${n} of the index that moves"}\n`).join("");
    await clusterCall(cluster, "POST", "_bulk?refresh=true", bulk);
    await clusterCall(cluster, "POST", "moves/_flush");
    await clusterCall(cluster, "GET", "_cluster/health/moves?wait_for_status=green&timeout=60s");
    await clusterCall(cluster, "PUT", "_cluster/settings", { transient: { "indices.recovery.max_bytes_per_sec": "2kb" } });
  }
});
afterAll(async () => {
  await stopStack(stack);
});

const chip = (index, { primary, state } = {}) =>
  `[data-testid="shard-chip"][data-index="${index}"][data-shard="0"]` +
  (primary === undefined ? "" : `[data-primary="${primary}"]`) +
  (state ? `[data-state="${state}"]` : "");

/** The grid row (node name, or "unassigned") a chip sits in. */
const rowOf = (locator) => locator.evaluate((el) => el.closest("[data-row]").getAttribute("data-row"));

for (const [id, managerRole] of [
  ["prod", "cluster_manager"],
  ["shards-es", "master"],
]) {
  test(`${id}: move a primary to another node in the grid and see it relocate, then land`, async () => {
    const page = await newPage(stack);
    await openCluster(page, id, "shards");
    await page.getByLabel("Filter indices").fill("moves");
    const primary = page.locator(chip("moves", { primary: true, state: "started" }));
    await primary.waitFor();
    const source = await rowOf(primary);
    const replicaNode = await rowOf(page.locator(chip("moves", { primary: false })));
    assert.notEqual(source, replicaNode);

    await primary.click();
    const panel = page.locator('[data-testid="shard-panel"]');
    await panel.locator('[data-testid="shard-explanation"]').waitFor();
    assert.match(await panel.locator(".shard-headline").textContent(), /The primary of moves shard 0 is started on/);
    // The targets: the nodes without a copy of shard 0 (three nodes, two copies: one left).
    const options = await panel.locator('[data-testid="move-target"] option').evaluateAll((list) =>
      list.filter((o) => o.value).map((o) => o.textContent),
    );
    assert.equal(options.length, 1, `targets: ${options}`);
    assert.ok(!options.includes(source) && !options.includes(replicaNode), `targets: ${options}`);
    const target = options[0];
    await screenshot(page, `shards-${id}-panel`);

    // Record every relocating chip the page ever shows (the throttled move takes seconds).
    await page.evaluate(() => {
      window.__relocating = [];
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-testid="shard-chip"][data-index="moves"][data-state="relocating"], [data-testid="shard-chip"][data-index="moves"][data-state="incoming"]')) {
          window.__relocating.push(`${el.getAttribute("data-state")}@${el.closest("[data-row]").getAttribute("data-row")}`);
        }
      }).observe(document.body, { childList: true, subtree: true, attributes: true });
    });
    await panel.locator('[data-testid="move-target"]').selectOption({ label: target });
    await panel.locator('[data-testid="move-shard"]').click();
    await page.locator('[data-testid="shards-done"]', { hasText: `from ${source} to ${target}` }).waitFor();

    // Then it lands: started, primary, on the target.
    await page.locator(`[data-row="${target}"] ${chip("moves", { primary: true, state: "started" })}`).waitFor({ timeout: 60_000 });
    const seen = await page.evaluate(() => window.__relocating);
    assert.ok(seen.includes(`relocating@${source}`), `relocating on the source first: ${seen}`);
    assert.ok(seen.includes(`incoming@${target}`), `arriving on the target: ${seen}`);
    assert.equal(await page.locator(`[data-row="${source}"] ${chip("moves", { primary: true })}`).count(), 0);
    await screenshot(page, `shards-${id}-moved`);
    await page.close();
  });

  test(`${id}: an unassigned replica is explained node by node`, async () => {
    const page = await newPage(stack);
    await openCluster(page, id, "shards");
    await page.getByLabel("Shard state").selectOption("unassigned");
    await page.waitForURL(/[?&]state=unassigned/);
    const unassigned = page.locator(`[data-row="unassigned"] ${chip("crowded", { primary: false, state: "unassigned" })}`);
    await unassigned.waitFor();
    await unassigned.click();
    const panel = page.locator('[data-testid="shard-panel"]');
    await panel.locator('[data-testid="shard-explanation"]').waitFor();
    assert.match(await panel.locator(".shard-headline").textContent(), /The replica of crowded shard 0 is unassigned/);
    const decisions = panel.locator('[data-testid="shard-node-decisions"] li');
    assert.equal(await decisions.count(), 3, "one sentence per node");
    assert.match(await decisions.first().textContent(), /says no because a copy of this shard is already on this node/);
    assert.match(await panel.textContent(), /An unassigned copy cannot be moved/);
    await screenshot(page, `shards-${id}-unassigned`);
    await page.close();
  });

  test(`${id}: a node's page from the grid and from the Nodes view`, async () => {
    const page = await newPage(stack);
    await openCluster(page, id, "shards");
    const nodeLink = page.locator('[data-row] .node-link').first();
    await nodeLink.waitFor();
    const name = (await nodeLink.textContent()).trim();
    await nodeLink.click();
    const detail = page.locator('[data-testid="node-detail"]');
    await detail.locator('[data-testid="node-title"]', { hasText: name }).waitFor();
    await detail.locator('[data-testid="node-jvm"] tbody tr').first().waitFor();
    assert.match(await detail.locator('[data-testid="node-facts"]').textContent(), new RegExp(`${managerRole}-eligible`));
    await detail.locator('[data-testid="node-fs"] tbody tr').first().waitFor();
    // The real node's thread pools (no rejections on a quiet node) and circuit breakers.
    await detail.locator('[data-testid="node-thread-pools"] tbody tr').first().waitFor();
    await detail.locator('[data-testid="node-breakers"] tbody tr').first().waitFor();
    await detail.locator('[data-testid="node-shard"]').first().waitFor();
    await screenshot(page, `node-${id}`, { fullPage: true });

    await openCluster(page, id, "nodes");
    await page.locator('[data-testid="node-link"]', { hasText: name }).click();
    await detail.locator('[data-testid="node-title"]', { hasText: name }).waitFor();
    assert.match(page.url(), /\/nodes\/[^/]+$/);
    await page.close();
  });

  test(`${id}: drain a node from its page, see it in the header, then undo`, async () => {
    const page = await newPage(stack);
    await openCluster(page, id, "nodes");
    const link = page.locator('[data-testid="node-link"]').first();
    const name = (await link.textContent()).trim();
    await link.click();
    const detail = page.locator('[data-testid="node-detail"]');
    await detail.locator('[data-testid="node-title"]', { hasText: name }).waitFor();
    await detail.locator('[data-testid="node-drain"]').click();
    const dialog = page.locator('[data-testid="node-drain-dialog"]');
    assert.match(await dialog.textContent(), /cluster\.routing\.allocation\.exclude\._name/);
    await dialog.getByRole("button", { name: "Drain", exact: true }).click();
    await detail.locator('[data-testid="node-undo-drain"]').waitFor();
    // Its page says what is left (crowded's copy has nowhere else to go on three nodes).
    assert.match(await detail.locator('[data-testid="node-drain-state"]').textContent(), /^Draining: \d+ shards? still on this node$|^Drained/);
    // The header lists it, as a link to its page; the cluster holds the filter.
    await page.locator('[data-testid="drain-badge"]', { hasText: name }).waitFor();
    const settings = await clusterCall(stack.clusters[id], "GET", "_cluster/settings?flat_settings=true");
    assert.equal(settings.persistent["cluster.routing.allocation.exclude._name"], name);
    await screenshot(page, `node-${id}-draining`);

    await detail.locator('[data-testid="node-undo-drain"]').click();
    await page.locator('[data-testid="node-drain-dialog"]').getByRole("button", { name: "Undo drain" }).click();
    await detail.locator('[data-testid="node-drain"]').waitFor();
    await page.locator('[data-testid="drain-badge"]').waitFor({ state: "detached" });
    const after = await clusterCall(stack.clusters[id], "GET", "_cluster/settings?flat_settings=true");
    assert.equal(after.persistent["cluster.routing.allocation.exclude._name"], undefined);
    await page.close();
  });
}
