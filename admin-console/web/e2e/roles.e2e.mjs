// The web app mirrors the caller's role: the real binary in access.mode trusted_headers, the
// browser (a loopback peer the console trusts, as a sign-in proxy would be) sending the
// identity headers of a viewer itself.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { newPage, search, screenshot, startStack, stopStack } from "./stack.mjs";
import { CONSOLE, fillRequest, openCluster, openConsole } from "./helpers.mjs";

const VIEWER = {
  "X-Auth-Request-User": "vera",
  "X-Auth-Request-Email": "vera@example.com",
  "X-Auth-Request-Groups": "staff",
};

let stack;
beforeAll(async () => {
  stack = await startStack({
    extraServer: "  trusted_proxies: [127.0.0.1, \"::1\"]\n",
    // Nobody is more than viewer on prod; search-operators would be operator.
    extraConfig: "access:\n  mode: trusted_headers\n  default_role: viewer\n  roles:\n    - {group: search-operators, role: operator}\n",
    headers: VIEWER,
  });
  await search(stack, "PUT", "logs-roles", { settings: { number_of_replicas: 0 } });
});
afterAll(async () => {
  await stopStack(stack);
});

test("a viewer sees who they are, and the close button is disabled with the reason", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod", "indices");
  // The header: the signed-in user and the role on this cluster.
  await page.locator('[data-testid="identity-user"]', { hasText: "vera" }).waitFor();
  assert.equal(await page.locator('[data-testid="identity-role"]').textContent(), "viewer");

  const close = page.locator('[data-testid="close-index"][data-index="logs-roles"]');
  await close.waitFor();
  assert.equal(await close.isDisabled(), true);
  assert.equal(await close.getAttribute("title"), "Needs the operator role; you have viewer.");
  // Hovering shows the reason (the wrapper carries it, disabled buttons get no pointer events).
  assert.equal(await close.locator("xpath=..").getAttribute("title"), "Needs the operator role; you have viewer.");
  // The allocation lock too.
  const lock = page.locator('[data-testid="allocation-lock"]');
  await lock.and(page.locator("[data-enable]")).waitFor();
  assert.equal(await lock.isDisabled(), true);
  assert.match(await lock.getAttribute("title"), /Needs the operator role; you have viewer\.$/);
  await screenshot(page, "roles-viewer-indices");

  // The server decides: the same call made anyway is refused, naming the roles.
  const refused = await page.evaluate(async () => {
    const response = await fetch("/api/clusters/prod/proxy/logs-roles/_close", {
      method: "POST",
      headers: { "X-Requested-By": "admin-console" },
    });
    return { status: response.status, body: await response.json() };
  });
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error.code, "forbidden");
  assert.match(refused.body.error.message, /operator/);
  const index = await search(stack, "GET", "_cat/indices/logs-roles?format=json");
  assert.equal(index[0].status, "open", "the index was not closed");

  // The console warns about a write, and not about a search; the editor stays usable.
  await openConsole(page);
  await fillRequest(page, { method: "PUT", path: "logs-roles/_settings" });
  const notice = page.locator(`${CONSOLE} [data-testid="role-notice"]`);
  assert.equal(
    await notice.textContent(),
    "Needs the admin role; you have viewer. The admin console will refuse this request.",
  );
  await fillRequest(page, { method: "POST", path: "logs-roles/_search" });
  await notice.waitFor({ state: "detached" });
  await page.close();
});
