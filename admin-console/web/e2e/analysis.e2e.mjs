// Analyze and Cat APIs: the real binary in front of a real OpenSearch 2.19 node (the stack's
// `prod`) and the secured Elasticsearch 8.19 node (`an-es`). Analyze a text with a built-in
// analyzer, with an index's field and with a tokenizer chain explained step by step; an
// unknown analyzer answered with the cluster's reason. Browse _cat/indices (sorted, filtered,
// the column help as tooltip), _cat/snapshots of the seeded repository, on both clusters.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { clusterCall, newPage, screenshot, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";

let stack;
beforeAll(async () => {
  stack = await startStack({ main: "opensearch2:1", clusters: { "an-es": "elasticsearch8-secured" } });
  for (const cluster of Object.values(stack.clusters)) {
    await clusterCall(cluster, "PUT", "e2e-an-books", {
      settings: { number_of_replicas: 0 },
      mappings: { properties: { title: { type: "text", analyzer: "whitespace" } } },
    });
  }
});
afterAll(async () => {
  await stopStack(stack);
});

const tokens = (page, within = '[data-testid="analyze-tokens"]') => page.locator(`${within} [data-testid="analyze-token-text"]`).allTextContents();

test("analyse a text by an analyzer, a field and an explained chain", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod");
  await page.locator("nav.tabs a", { hasText: "Analyze" }).click();
  const view = page.locator('[data-testid="analyze-view"]');
  await view.getByText("Nothing analysed yet").waitFor();

  // The standard analyzer: lowercased words with offsets.
  await view.locator('[data-testid="analyze-text"]').fill("The Quick-Brown fox");
  await view.locator('[data-testid="analyze-run"]').click();
  await view.locator('[data-testid="analyze-tokens"]').waitFor();
  assert.deepEqual(await tokens(view), ["the", "quick", "brown", "fox"]);
  const second = view.locator('[data-testid="analyze-tokens"] [data-testid="analyze-token"]').nth(1);
  assert.deepEqual((await second.locator("td").allTextContents()).map((t) => t.trim()), ["1", "quick", "4", "9", "<ALPHANUM>"]);

  // An analyzer the cluster does not have: its reason, as it says it.
  await view.locator('[data-testid="analyze-analyzer"]').fill("e2e-nope");
  await view.locator('[data-testid="analyze-run"]').click();
  await view.locator('[data-testid="analyze-error"]').getByText("failed to find global analyzer [e2e-nope]", { exact: false }).waitFor();
  // A name that is not one is refused before sending.
  await view.locator('[data-testid="analyze-analyzer"]').fill("../x");
  await view.locator('[data-testid="analyze-problem"]').getByText("is not a name", { exact: false }).waitFor();
  assert.equal(await view.locator('[data-testid="analyze-run"]').isDisabled(), true);

  // A field of an index: its mapping's whitespace analyzer keeps the capitals.
  await view.locator('[data-testid="analyze-mode-field"]').check();
  await view.locator('[data-testid="analyze-index"]').fill("e2e-an-books");
  await view.locator('[data-testid="analyze-field"]').fill("title");
  await view.locator('[data-testid="analyze-run"]').click();
  await view.locator('[data-testid="analyze-tokens"] [data-testid="analyze-token-text"]', { hasText: "Quick-Brown" }).waitFor();
  assert.deepEqual(await tokens(view), ["The", "Quick-Brown", "fox"]);

  // A chain, explained: the tokenizer's tokens, then the lowercase filter's.
  await view.locator('[data-testid="analyze-mode-chain"]').check();
  await view.locator('[data-testid="analyze-index"]').fill("");
  await view.locator('[data-testid="analyze-tokenizer"]').fill("standard");
  await view.locator('[data-testid="analyze-filters"]').fill("lowercase");
  await view.locator('[data-testid="analyze-explain"]').check();
  await view.locator('[data-testid="analyze-run"]').click();
  const steps = view.locator('[data-testid="analyze-step"]');
  await steps.nth(1).waitFor();
  assert.deepEqual(await steps.evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-step-kind"))), ["tokenizer", "tokenFilter"]);
  assert.deepEqual(await tokens(steps.nth(0), '[data-testid="analyze-step-tokens"]'), ["The", "Quick", "Brown", "fox"]);
  assert.deepEqual(await tokens(steps.nth(1), '[data-testid="analyze-step-tokens"]'), ["the", "quick", "brown", "fox"]);
  await screenshot(page, "analyze-explained");
});

for (const clusterId of ["prod", "an-es"]) {
  test(`browse cat APIs on ${clusterId}: indices sorted and filtered, snapshots of a repository`, async () => {
    const page = await newPage(stack);
    await openCluster(page, clusterId);
    await page.locator("nav.tabs a", { hasText: "Cat APIs" }).click();
    const view = page.locator('[data-testid="cat-view"]');
    await view.getByText("Choose a cat API").waitFor();
    const select = view.locator('[data-testid="cat-api"]');
    // The list loads from the cluster's GET _cat.
    await select.locator('option[value="indices"]').waitFor({ state: "attached" });
    const offered = await select.locator("option").allTextContents();
    for (const name of ["indices", "health", "nodes", "shards", "snapshots", "thread_pool"]) assert.ok(offered.includes(name), `${name} in ${offered}`);

    await select.selectOption("indices");
    await page.waitForURL(`**/clusters/${clusterId}/cat/indices`);
    const table = view.locator('[data-testid="cat-table"]');
    await table.waitFor();
    const column = table.locator('[data-testid="cat-column"][data-column="index"]');
    assert.match(await column.getAttribute("title"), /index name/);
    await view.locator('[data-testid="cat-filter"]').fill("e2e-an-");
    await view.locator('[data-testid="cat-count"]', { hasText: /^1 of \d+ rows$/ }).waitFor();
    const row = table.locator('[data-testid="cat-row"]');
    assert.match(await row.first().textContent(), /e2e-an-books/);

    // Sorted by index, both ways, once the filter is gone.
    await view.locator('[data-testid="cat-filter"]').fill("");
    await column.locator("button").click();
    const names = async () => {
      const at = (await table.locator('[data-testid="cat-column"]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-column")))).indexOf("index");
      return row.evaluateAll((rows, i) => rows.map((r) => r.children[i].textContent), at);
    };
    const ascending = await names();
    assert.deepEqual(ascending, [...ascending].sort());
    await column.locator("button").click();
    assert.deepEqual(await names(), [...ascending].reverse());

    // A new index shows after Refresh.
    await clusterCall(stack.clusters[clusterId], "PUT", "e2e-an-later", { settings: { number_of_replicas: 0 } });
    await view.locator('[data-testid="cat-refresh"]').click();
    await table.locator('[data-testid="cat-row"]', { hasText: "e2e-an-later" }).waitFor();

    // Snapshots need a repository: the seeded one lists its snapshot.
    await select.selectOption("snapshots");
    await view.getByText("Name a repository").waitFor();
    await view.locator('[data-testid="cat-repository"]').fill("backups");
    await view.locator('[data-testid="cat-repository"]').press("Enter");
    await page.waitForURL(`**/clusters/${clusterId}/cat/snapshots?repository=backups`);
    await table.locator('[data-testid="cat-row"]', { hasText: "seed" }).waitFor();
    // The columns in the cluster's help order, each with its help.
    const first = table.locator('[data-testid="cat-column"]').first();
    assert.equal(await first.getAttribute("data-column"), "id");
    assert.match(await first.getAttribute("title"), /snapshot/);
    await screenshot(page, `cat-snapshots-${clusterId}`);
  });
}
