// Snapshots, the flow in both flavors: register a repository
// and verify it, take a snapshot of an index, see it SUCCESS, see the cluster refuse a restore
// over the open index, restore it with the proposed rename, find the restored index with its
// documents in the Indices view, delete the snapshot with its name typed.
import { afterAll, beforeAll, describe, test } from "vitest";
import assert from "node:assert/strict";
import { join } from "node:path";
import { clusterCall, newPage, screenshot, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";

// The stack's own three-node OpenSearch 2.19 cluster, and a (secured, single) Elasticsearch 8.19
// node of this file's own.
// `indices`: how many indices (of one shard each) a snapshot of `books` holds: on Elasticsearch 8
// a snapshot with the global state carries the `.security-7` index along as a feature state.
const FLAVORS = [
  { id: "prod", flavor: "opensearch2", indices: 1 },
  { id: "snap-es", flavor: "elasticsearch8", indices: 2 },
];

let stack;
beforeAll(async () => {
  stack = await startStack({ clusters: { "snap-es": "elasticsearch8-secured" } });
  for (const { id } of FLAVORS) {
    const cluster = stack.clusters[id];
    await clusterCall(cluster, "PUT", "books", { settings: { number_of_shards: 1, number_of_replicas: 0 } });
    const bulk = [1, 2, 3, 4].map((n) => `{"index":{"_index":"books","_id":"${n}"}}\n{"title":"book ${n}"}\n`).join("");
    await clusterCall(cluster, "POST", "_bulk?refresh=true", bulk);
  }
});
afterAll(async () => {
  await stopStack(stack);
});

describe.each(FLAVORS)("$flavor", ({ id, flavor, indices }) => {
  test("register, snapshot, restore beside the live index, see it in Indices, delete", async () => {
    const page = await newPage(stack);
    await openCluster(page, id, "snapshots");
    // The seeded repository is listed and chosen.
    await page.locator('[data-testid="repository-backups"][aria-selected="true"]').waitFor();

    // Register a repository of our own and verify it.
    await page.locator('[data-testid="register-repository"]').click();
    const form = page.locator('[data-testid="register-form"]');
    await form.locator('input[aria-label="Repository name"]').fill("Nightly backups");
    await form.locator('[data-testid="register-error"]', { hasText: "whitespace" }).waitFor();
    assert.equal(await form.locator('[data-testid="register-submit"]').isDisabled(), true);
    await form.locator('input[aria-label="Repository name"]').fill("nightly");
    // A location under the nodes' `path.repo` (the cluster refuses any other).
    await form.locator('input[aria-label="Location"]').fill(join(stack.clusters[id].repo, "nightly"));
    await form.locator('[data-testid="register-submit"]').click();
    await page.locator('[data-testid="snapshots-notice"]', { hasText: "Repository nightly registered." }).waitFor();
    const repo = page.locator('[data-testid="repository-nightly"]');
    await page.locator('[data-testid="repository-nightly"][aria-selected="true"]').waitFor();
    assert.match(new URL(page.url()).search, /repo=nightly/);
    await repo.locator('[data-testid="verify-repository"]').click();
    await repo.locator('[data-testid="verification"]', { hasText: /Verified by \d+ node/ }).waitFor();

    // Take a snapshot of the books index under the proposed name.
    await page.locator('[data-testid="take-snapshot"]').click();
    const take = page.locator('[data-testid="take-form"]');
    const name = await take.locator('input[aria-label="Snapshot name"]').inputValue();
    assert.match(name, /^snapshot-\d{4}\.\d\d\.\d\d-\d{6}$/);
    await take.locator('input[aria-label="Indices to snapshot"]').fill("books");
    await take.locator('[data-testid="take-submit"]').click();
    await page.locator('[data-testid="snapshots-notice"]', { hasText: `Snapshot ${name} started.` }).waitFor();
    const detail = page.locator('[data-testid="snapshot-detail"]');
    // Followed until it ends, in the detail and in the list.
    await detail.locator('.snap-state[data-state="SUCCESS"]').waitFor();
    await page.locator(`[data-testid="snapshot-${name}"][data-state="SUCCESS"]`).waitFor();
    assert.equal(await detail.locator('[data-testid="snapshot-progress"]').getAttribute("data-fraction"), "1.000");
    assert.match(await detail.locator('[data-testid="snapshot-progress"]').textContent(), new RegExp(`Shards ${indices} / ${indices} done`));
    // Its sizes on request (a read per shard in the repository for the cluster).
    await detail.locator('[data-testid="snapshot-sizes"]').click();
    await detail.locator('[data-testid="snapshot-progress"]', { hasText: /\d[\d.,]* [KMG]?B of \d[\d.,]* [KMG]?B copied/ }).waitFor();
    const row = page.locator(`[data-testid="snapshot-${name}"] td`);
    assert.equal(await row.nth(5).textContent(), String(indices), "the indices it holds");
    await screenshot(page, `snapshots-${flavor}-taken`);

    // Without a rename, the cluster refuses over the open index: its words, shown as is.
    const restore = detail.locator('[data-testid="restore-form"]');
    assert.equal(await restore.locator('input[aria-label="Rename pattern"]').inputValue(), "(.+)");
    assert.equal(await restore.locator('input[aria-label="Rename replacement"]').inputValue(), "restored-$1");
    await restore.locator('[data-testid="rename-preview"]', { hasText: "restored-books" }).waitFor();
    await restore.locator('input[aria-label="Rename pattern"]').fill("");
    await restore.locator('input[aria-label="Rename replacement"]').fill("");
    await restore.locator('[data-testid="restore-submit"]').click();
    await restore
      .locator('[data-testid="restore-result"][role="alert"]', { hasText: "cannot restore index [books] because an open index with same name already exists" })
      .waitFor();

    // With the proposed rename, it lands beside the live index (only `books`: Elasticsearch's
    // `.security-7` feature state is a system index, not to be restored under another name).
    const security = restore.locator('input[aria-label="Restore .security-7"]');
    if (await security.count()) await security.uncheck();
    await restore.locator('input[aria-label="Rename pattern"]').fill("(.+)");
    await restore.locator('input[aria-label="Rename replacement"]').fill("restored-$1");
    await restore.locator('[data-testid="restore-submit"]').click();
    const result = restore.locator('[data-testid="restore-result"][role="status"]');
    await result.filter({ hasText: "Restore started: 1 index as restored-books." }).waitFor();
    await screenshot(page, `snapshots-${flavor}-restored`);

    // The Indices view shows the restored index with its documents.
    await result.locator("a", { hasText: "See the indices" }).click();
    await page.locator('input[aria-label="Filter indices"]').fill("restored");
    await page.locator('[data-testid="indices-total"]', { hasText: "1 matching indices" }).waitFor();
    const restoredRow = page.locator('[data-testid="indices-table"] tbody tr', { hasText: "restored-books" });
    await restoredRow.waitFor();
    // The Documents column, wherever it sits; the restore loads the documents in the
    // background: reload until they are counted.
    const headers = await page.locator('[data-testid="indices-table"] thead th').allTextContents();
    const docs = headers.findIndex((h) => h.trim().startsWith("Documents"));
    assert.ok(docs >= 0, `a Documents column among ${headers}`);
    const deadline = Date.now() + 10_000;
    while ((await restoredRow.locator("td").nth(docs).textContent()) !== "4") {
      assert.ok(Date.now() < deadline, "the restored index shows its 4 documents");
      await page.reload();
      await restoredRow.waitFor();
    }
    await screenshot(page, `snapshots-${flavor}-indices`);

    // Delete the snapshot: the name must be typed.
    await openCluster(page, id, `snapshots?repo=nightly&snapshot=${name}`);
    await page.locator(`[data-testid="snapshot-detail"] [data-testid="delete-snapshot"]`).click();
    const dialog = page.locator('[data-testid="typed-confirm"]');
    await dialog.locator('[data-testid="confirm-typed"]').fill(name.slice(0, -1));
    assert.equal(await dialog.locator('[data-testid="confirm-button"]').isDisabled(), true);
    await dialog.locator('[data-testid="confirm-typed"]').fill(name);
    await dialog.locator('[data-testid="confirm-button"]').click();
    await page.locator('[data-testid="snapshots-notice"]', { hasText: `Snapshot ${name} deleted.` }).waitFor();
    await page.locator(`[data-testid="snapshot-${name}"]`).waitFor({ state: "detached" });
    const left = await clusterCall(stack.clusters[id], "GET", "_snapshot/nightly/_all");
    assert.deepEqual(left.snapshots, []);
    await page.close();
  });
});
