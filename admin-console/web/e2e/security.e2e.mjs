// The web app under the console's security headers: every view, the REST console and the
// charts run under its Content-Security-Policy without a violation, and every API call the app
// makes carries the header that tells the console it is not a cross-site request.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { newPage, startStack, stopStack } from "./stack.mjs";
import { CONSOLE, REQUEST_EDITOR, fillRequest, openCluster, openConsole, waitForStatus } from "./helpers.mjs";

let stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stopStack(stack);
});

/** Records CSP violations in the page (the array starts anew on each full navigation). */
function recordViolations() {
  window.__cspViolations = [];
  document.addEventListener("securitypolicyviolation", (e) =>
    window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
  );
}

test("every view, the console and the charts run under the Content-Security-Policy", async () => {
  const page = await newPage(stack);
  const violations = [];
  const apiCallsWithoutHeader = [];
  let apiCalls = 0;
  page.on("console", (message) => {
    if (/Content[- ]Security[- ]Policy/i.test(message.text())) violations.push(message.text());
  });
  page.on("request", (request) => {
    if (!new URL(request.url()).pathname.startsWith("/api/")) return;
    apiCalls += 1;
    if (request.headers()["x-requested-by"] !== "admin-console") {
      apiCallsWithoutHeader.push(`${request.method()} ${request.url()}`);
    }
  });
  await page.addInitScript(recordViolations);
  const collect = async () => violations.push(...(await page.evaluate(() => window.__cspViolations ?? [])));

  const response = await page.goto("/");
  const headers = response.headers();
  for (const directive of ["default-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'self'"]) {
    assert.ok(headers["content-security-policy"].includes(directive), headers["content-security-policy"]);
  }
  assert.equal(headers["x-content-type-options"], "nosniff");
  assert.equal(headers["x-frame-options"], "DENY");
  assert.equal(headers["referrer-policy"], "no-referrer");
  await page.locator('[data-testid="cluster-list"]').waitFor();
  // The theme is applied by an external script before first paint (no inline script).
  assert.match(await page.evaluate(() => document.documentElement.dataset.theme), /^(light|dark)$/);
  await collect();

  for (const view of ["", "nodes", "indices"]) {
    await openCluster(page, "prod", view);
    await page.locator('[data-testid="cluster-header"] .health-badge').waitFor();
    await collect();
  }
  await openCluster(page, "prod", "statistics?range=7d");
  await page.locator('[data-testid="chart-health"] [data-points]').first().waitFor();
  await page.locator("canvas").first().waitFor();
  await collect();

  // The console: the editor (CodeEditor injects its styles) and a relayed write.
  await openConsole(page);
  await fillRequest(page, { method: "PUT", path: "e2e-csp/_doc/1", body: '{"ok": true}' });
  await page.locator(REQUEST_EDITOR).press("Control+Enter");
  assert.equal(await waitForStatus(page, "201"), "201 Created");
  await collect();

  assert.deepEqual(violations, [], "no Content-Security-Policy violation");
  assert.ok(apiCalls > 5, `the app called the API (${apiCalls})`);
  assert.deepEqual(apiCallsWithoutHeader, [], "every API call carries X-Requested-By");
  await page.close();
});
