// Shards and nodes: the real binary in front of search-test-server's three simulated
// nodes, in both flavors. Move a shard in the grid (pick the primary, move it to the node that
// holds no copy, see it relocating, then started on the target); an unassigned replica explained
// in words; a node's page from the grid and from the Nodes view.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { newPage, screenshot, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";
import { startSearchTestServers } from "./searchTestServer.mjs";

let stack;
let clusters;
beforeAll(async () => {
  // A move stays relocating for 5 s (the default is 1 s), longer than two of the grid's 2 s
  // refreshes while something moves, so the relocating chips are seen even on a loaded machine.
  clusters = await startSearchTestServers([
    { id: "shards-os", flavor: "opensearch2", nodes: 3, relocationMs: 5_000 },
    { id: "shards-es", flavor: "elasticsearch8", nodes: 3, relocationMs: 5_000 },
  ]);
  for (const cluster of clusters.clusters) {
    for (const [name, replicas] of [
      ["moves", 1],
      // Three replicas on three nodes: one copy has nowhere to go.
      ["crowded", 3],
    ]) {
      const created = await fetch(`${cluster.url}/${name}`, {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ settings: { number_of_shards: 1, number_of_replicas: replicas } }),
      });
      assert.equal(created.status, 200, `${cluster.id}: PUT ${name}`);
    }
  }
  stack = await startStack({ extraClusters: clusters.yaml });
});
afterAll(async () => {
  await stopStack(stack);
  await clusters?.stop();
});

const chip = (index, { primary, state } = {}) =>
  `[data-testid="shard-chip"][data-index="${index}"][data-shard="0"]` +
  (primary === undefined ? "" : `[data-primary="${primary}"]`) +
  (state ? `[data-state="${state}"]` : "");

/** The grid row (node name, or "unassigned") a chip sits in. */
const rowOf = (locator) => locator.evaluate((el) => el.closest("[data-row]").getAttribute("data-row"));

for (const [id, managerRole] of [
  ["shards-os", "cluster_manager"],
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

    // Record every relocating chip the page ever shows (the simulated move takes 5 s).
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
    await page.locator(`[data-row="${target}"] ${chip("moves", { primary: true, state: "started" })}`).waitFor({ timeout: 20_000 });
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
    // The simulated write pool has rejections: highlighted, and first.
    const firstPool = detail.locator('[data-testid="node-thread-pools"] tbody tr').first();
    await firstPool.waitFor();
    assert.equal(await firstPool.getAttribute("data-rejected"), "true");
    assert.match(await detail.locator('[data-testid="node-rejections"]').textContent(), /in write/);
    // Circuit breakers: the console asks for the documented `breaker` metric; the rows appear
    // when the cluster answers it (search-test-server answers only `breakers` so far).
    await detail.locator('[data-testid="node-breakers"]').waitFor();
    await detail.locator('[data-testid="node-shard"]').first().waitFor();
    await screenshot(page, `node-${id}`, { fullPage: true });

    await openCluster(page, id, "nodes");
    await page.locator('[data-testid="node-link"]', { hasText: name }).click();
    await detail.locator('[data-testid="node-title"]', { hasText: name }).waitFor();
    assert.match(page.url(), /\/nodes\/[^/]+$/);
    await page.close();
  });
}
