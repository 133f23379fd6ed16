// The production guard in the browser: a cluster configured with `environment: production`
// shows a "production" badge; the confirmation dialog of a destructive action asks for a
// reason before it enables its button; a change without a dialog (closing an index) and a
// console write ask through the reason prompt; each reason reaches the audit file. The same
// cluster without `environment` asks nothing. The real binary, a real OpenSearch cluster,
// Chromium.
import { afterAll, beforeAll, describe, test } from "vitest";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newPage, search, screenshot, startStack, stopStack } from "./stack.mjs";
import { CONSOLE, REQUEST_EDITOR, fillRequest, openCluster, openConsole, waitForStatus } from "./helpers.mjs";

async function eventually(what, check, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not happen in ${ms} ms`);
}

describe("a production cluster", () => {
  let stack;
  const auditDir = mkdtempSync(join(tmpdir(), "admin-console-e2e-audit-"));
  const auditFile = join(auditDir, "audit.log");
  const audit = () => (existsSync(auditFile) ? readFileSync(auditFile, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line)) : []);

  beforeAll(async () => {
    stack = await startStack({
      extraConfig: `audit:\n  file: ${JSON.stringify(auditFile)}\n`,
      extraClusters: "  - id: guarded\n    name: Payments\n    url: $CLUSTER_URL\n    environment: production\n",
    });
  });
  afterAll(async () => {
    await stopStack(stack);
    rmSync(auditDir, { recursive: true, force: true });
  });

  test("asks why before each change and records the reason", async () => {
    for (const name of ["e2e-prod-a", "e2e-prod-b"]) await search(stack, "PUT", name, { settings: { number_of_replicas: 0 } });
    const page = await newPage(stack);

    // 1. The badge: on the production cluster's card and header only.
    await page.goto("/");
    await page.locator('[data-testid="cluster-guarded"] [data-testid="production-badge"]').waitFor();
    assert.equal(await page.locator('[data-testid="cluster-staging"] [data-testid="production-badge"]').count(), 0);
    await screenshot(page, "production-cluster-list");

    // 2. A destructive action's dialog: the button stays disabled until a reason is typed.
    await openCluster(page, "guarded", "indices/e2e-prod-a");
    await page.locator('[data-testid="cluster-header"] [data-testid="production-badge"]').waitFor();
    await page.locator('[data-testid="detail-delete"]').click();
    const confirm = page.locator('[data-testid="index-action-dialog"]');
    await confirm.locator('[data-testid="confirm-typed"]').fill("e2e-prod-a");
    assert.equal(await confirm.locator('[data-testid="confirm-button"]').isDisabled(), true, "no reason yet");
    await confirm.locator('[data-testid="change-reason"]').fill("INC-77: drop the test index — Jörg");
    await screenshot(page, "production-delete-reason");
    await confirm.locator('[data-testid="confirm-button"]').click();
    await page.waitForURL(/\/clusters\/guarded\/indices$/);
    await eventually("the index is deleted", async () => (await fetch(`${stack.clusterUrl}/e2e-prod-a/_settings`)).status === 404);

    // 3. A change without a dialog (close, two clicks): the server asks, the prompt asks the user.
    await page.locator('[data-testid="indices-table"] tbody tr[data-index="e2e-prod-b"]').waitFor();
    const close = page.locator('[data-testid="close-index"][data-index="e2e-prod-b"]');
    await close.click();
    await page.locator('[data-testid="close-index"][data-index="e2e-prod-b"]', { hasText: "Confirm close" }).click();
    const prompt = page.locator('[data-testid="reason-prompt"]');
    await prompt.waitFor();
    assert.match(await prompt.textContent(), /production cluster/);
    await prompt.locator('[data-testid="change-reason"]').fill("maintenance window 12");
    await prompt.locator('[data-testid="reason-send"]').click();
    await page.locator('[data-testid="index-action-done"]', { hasText: "Index e2e-prod-b closed." }).waitFor();

    // 4. The console: a read runs at once; a write asks first, cancelling sends nothing.
    await openConsole(page);
    await page.locator(`${CONSOLE} [data-testid="production-badge"]`).waitFor();
    await fillRequest(page, { method: "GET", path: "_cluster/health" });
    await page.locator(REQUEST_EDITOR).press("Control+Enter");
    await waitForStatus(page, "200");
    await fillRequest(page, { method: "PUT", path: "e2e-prod-console" });
    await page.locator(`${CONSOLE} [data-testid="production-notice"]`).waitFor();
    await page.locator(REQUEST_EDITOR).press("Control+Enter");
    await prompt.waitFor();
    await prompt.locator("button", { hasText: "Cancel" }).click();
    await page.locator(`${CONSOLE} [data-testid="console-failure"]`, { hasText: "was not sent" }).waitFor();
    assert.equal((await fetch(`${stack.clusterUrl}/e2e-prod-console`)).status, 404, "nothing was sent");
    await page.locator(REQUEST_EDITOR).press("Control+Enter");
    await prompt.locator('[data-testid="change-reason"]').fill("capacity test");
    await prompt.locator('[data-testid="reason-send"]').click();
    await waitForStatus(page, "200");
    await screenshot(page, "production-console");

    // 5. Each change's audit line carries its reason.
    await eventually("three audited reasons", async () => audit().filter((line) => line.reason).length >= 3);
    const reasons = audit()
      .filter((line) => line.cluster === "guarded" && line.status < 400)
      .map((line) => [line.method, line.reason]);
    assert.deepEqual(reasons, [
      ["DELETE", "INC-77: drop the test index — Jörg"],
      ["POST", "maintenance window 12"],
      ["PUT", "capacity test"],
    ]);
    await page.close();
  });

  test("another cluster on the same node asks nothing", async () => {
    await search(stack, "PUT", "e2e-prod-c", { settings: { number_of_replicas: 0 } });
    const page = await newPage(stack);
    await openCluster(page, "staging", "indices/e2e-prod-c");
    assert.equal(await page.locator('[data-testid="production-badge"]').count(), 0);
    await page.locator('[data-testid="detail-delete"]').click();
    const confirm = page.locator('[data-testid="index-action-dialog"]');
    assert.equal(await confirm.locator('[data-testid="change-reason"]').count(), 0);
    await confirm.locator('[data-testid="confirm-typed"]').fill("e2e-prod-c");
    await confirm.locator('[data-testid="confirm-button"]').click();
    await page.waitForURL(/\/clusters\/staging\/indices$/);
    await page.close();
  });
});
