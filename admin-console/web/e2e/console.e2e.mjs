// The REST console against the real binary and a real OpenSearch cluster: execution, history, drawer geometry,
// display modes and persistence.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { newPage, search, screenshot, startStack, stopStack } from "./stack.mjs";
import {
  CONSOLE,
  consoleMode,
  dragDrawerTo,
  drawerWidth,
  REQUEST_EDITOR,
  fillRequest,
  historyPaths,
  replaceEditorText,
  openCluster,
  openConsole,
  waitForStatus,
} from "./helpers.mjs";

let stack;
beforeAll(async () => {
  stack = await startStack();
  // Before any page asks for the index list (the server caches it for a few seconds).
  await search(stack, "PUT", "e2e-getbody", { settings: { number_of_shards: 1, number_of_replicas: 0 } });
  for (const n of [1, 2, 3]) await search(stack, "PUT", `e2e-getbody/_doc/${n}?refresh=true`, { n, kind: n === 2 ? "wanted" : "other" });
});
afterAll(async () => {
  await stopStack(stack);
});

test("Ctrl+Enter executes; status with its message, duration and a highlighted body are shown", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod");
  await openConsole(page);

  await fillRequest(page, { method: "GET", path: "_cluster/health" });
  await page.locator(REQUEST_EDITOR).press("Control+Enter");
  assert.equal(await waitForStatus(page, "200"), "200 OK");
  assert.match(await page.locator('[data-testid="response-duration"]').textContent(), /^\d+ ms$|^\d+\.\d\d s$/);
  const body = page.locator('[data-testid="response-body"]');
  assert.match(await body.textContent(), /"cluster_name"/);
  assert.ok((await body.locator(".tok-propertyName").count()) > 3, "keys are highlighted");
  assert.ok((await body.locator(".tok-string, .tok-number").count()) > 1, "values are highlighted");
  // Pretty-printed: one key per line.
  assert.ok((await body.locator(".cm-line").count()) > 5);

  // From inside a JSON body: a PUT that creates a document.
  await fillRequest(page, { method: "PUT", path: "e2e-console/_doc/1", body: '{\n  "service": "checkout",\n  "latency_ms": 42\n}' });
  await page.locator(REQUEST_EDITOR).press("Control+Enter");
  assert.equal(await waitForStatus(page, "201"), "201 Created");
  const stored = await search(stack, "GET", "e2e-console/_doc/1");
  assert.equal(stored._source.service, "checkout");

  // An error status keeps its message; no confirmation step for a destructive call.
  await fillRequest(page, { method: "DELETE", path: "no-such-index-e2e" });
  await page.locator(REQUEST_EDITOR).press("Control+Enter");
  assert.equal(await waitForStatus(page, "404"), "404 Not Found");
  await screenshot(page, "console-execute");
  await page.close();
});

test("history survives a reload, is per cluster, reloads an entry into the editor, and clears", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod");
  await openConsole(page);
  await page.locator(`${CONSOLE} [role="tab"]`, { hasText: "History" }).click();
  await page.locator('[aria-label="Clear history"]').click().catch(() => {});
  await page.locator(`${CONSOLE} [role="tab"]`, { hasText: "Requests" }).click();

  await fillRequest(page, { method: "GET", path: "_cat/indices?format=json" });
  await page.locator(`${CONSOLE} [data-testid="run-request"]`).click();
  await waitForStatus(page, "200");
  await fillRequest(page, { method: "POST", path: "e2e-history/_search", body: '{"query":{"match_all":{}}}' });
  await page.locator(`${CONSOLE} [data-testid="run-request"]`).click();
  await page.locator(`${CONSOLE} [data-testid="response-request"]`, { hasText: "e2e-history" }).waitFor();

  await page.reload();
  await openConsole(page);
  assert.deepEqual(await historyPaths(page), ["e2e-history/_search", "_cat/indices?format=json"]);

  // Another cluster has its own history.
  await openCluster(page, "staging");
  assert.equal(await page.locator(CONSOLE).count(), 0, "the console closes when the cluster changes");
  await openConsole(page);
  assert.deepEqual(await historyPaths(page), []);
  await page.locator(`${CONSOLE} [role="tab"]`, { hasText: "Requests" }).click();
  await fillRequest(page, { method: "GET", path: "_nodes" });
  await page.locator(REQUEST_EDITOR).press("Control+Enter");
  await waitForStatus(page, "200");
  assert.deepEqual(await historyPaths(page), ["_nodes"]);

  await openCluster(page, "prod");
  await openConsole(page);
  assert.deepEqual(await historyPaths(page), ["e2e-history/_search", "_cat/indices?format=json"]);

  // Choosing an entry adds it, method, path and body, to the editor.
  await page.locator(`${CONSOLE} .history-entry`, { hasText: "e2e-history/_search" }).click();
  const lines = await page.locator(`${REQUEST_EDITOR} .cm-line`).allTextContents();
  const at = lines.indexOf("POST /e2e-history/_search");
  assert.ok(at >= 0, lines.join("\n"));
  assert.match(lines[at + 1], /match_all/);
  await screenshot(page, "console-history-loaded");

  await page.locator(`${CONSOLE} [role="tab"]`, { hasText: "History" }).click();
  await screenshot(page, "console-history");
  await page.locator('[aria-label="Clear history"]').click();
  assert.deepEqual(await page.locator(`${CONSOLE} .history-path`).allTextContents(), []);
  await page.reload();
  await openConsole(page);
  assert.deepEqual(await historyPaths(page), [], "cleared history stays cleared");
  // The other cluster's history is untouched.
  await openCluster(page, "staging");
  await openConsole(page);
  assert.deepEqual(await historyPaths(page), ["_nodes"]);
  await page.close();
});

test("the drawer resizes between 400 px and half the viewport, and keeps its width per cluster", async () => {
  const page = await newPage(stack);
  const viewport = page.viewportSize().width;
  await openCluster(page, "prod");
  await openConsole(page);
  assert.equal(await consoleMode(page), "drawer");

  await dragDrawerTo(page, 20);
  assert.equal(await drawerWidth(page, viewport / 2), viewport / 2, "max is 50% of the viewport");
  await dragDrawerTo(page, viewport - 50);
  assert.equal(await drawerWidth(page, 400), 400, "min is 400 px");
  await dragDrawerTo(page, viewport - 610);
  assert.equal(await drawerWidth(page, 610), 610);
  await screenshot(page, "console-drawer-resized");

  await page.reload();
  await openConsole(page);
  assert.equal(await drawerWidth(page, 610), 610, "width survives a reload");

  await openCluster(page, "staging");
  await openConsole(page);
  assert.equal(await drawerWidth(page, 560), 560, "another cluster keeps its own (default) width");
  await dragDrawerTo(page, viewport - 450);
  assert.equal(await drawerWidth(page, 450), 450);
  await openCluster(page, "prod");
  await openConsole(page);
  assert.equal(await drawerWidth(page, 610), 610);

  // A narrower window clamps the stored width to its 50%.
  await page.setViewportSize({ width: 1000, height: 800 });
  // The clamp follows the window's resize event and a re-render (drawerWidth waits for it).
  assert.equal(await drawerWidth(page, 500), 500);
  await page.close();
});

test("Detach makes a modal, Attach a drawer; the mode is stored and reused; Escape closes either", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod");
  await openConsole(page);
  assert.equal(await consoleMode(page), "drawer");
  await page.keyboard.press("Escape");
  await page.locator(CONSOLE).waitFor({ state: "detached" });

  await openConsole(page);
  await page.locator(`${CONSOLE} button`, { hasText: "Detach" }).click();
  assert.equal(await consoleMode(page), "modal");
  assert.equal(await page.locator('[role="dialog"][aria-label="REST console"]').count(), 1);
  await fillRequest(page, { method: "GET", path: "_cluster/health" });
  await page.locator(REQUEST_EDITOR).press("Control+Enter");
  await waitForStatus(page, "200");
  await screenshot(page, "console-modal");

  // Escape closes the modal, even with focus inside the editor.
  await page.locator(REQUEST_EDITOR).click();
  await page.keyboard.press("Escape");
  await page.locator(CONSOLE).waitFor({ state: "detached" });

  // The stored mode is reused, also after a reload.
  await page.reload();
  await openConsole(page);
  assert.equal(await consoleMode(page), "modal");
  await page.locator(`${CONSOLE} button`, { hasText: "Attach" }).click();
  assert.equal(await consoleMode(page), "drawer");
  await page.keyboard.press("Escape");
  await page.locator(CONSOLE).waitFor({ state: "detached" });
  await page.reload();
  await openConsole(page);
  assert.equal(await consoleMode(page), "drawer");
  await screenshot(page, "console-attached");
  await page.close();
});

test("the console stays open, with its request and response, while moving between views", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod");
  await openConsole(page);
  await fillRequest(page, { method: "GET", path: "_cat/health?format=json" });
  await page.locator(REQUEST_EDITOR).press("Control+Enter");
  await waitForStatus(page, "200");
  for (const view of ["Nodes", "Indices", "Statistics", "Overview"]) {
    await page.locator("nav.tabs a", { hasText: view }).click();
    await page.locator("nav.tabs a.active", { hasText: view }).waitFor();
    assert.equal(await page.locator(CONSOLE).count(), 1, `open on ${view}`);
    assert.equal(await page.locator(REQUEST_EDITOR).textContent(), "GET _cat/health?format=json");
    assert.equal(await page.locator('[data-testid="response-status"]').textContent(), "200 OK");
  }
  await page.locator("nav.tabs a", { hasText: "Statistics" }).click();
  await page.locator('[data-testid="chart-nodes-indices"] canvas').waitFor();
  await screenshot(page, "console-across-views");
  await page.close();
});

test("two requests in the editor: Ctrl+Enter on the second runs only it, ▶ runs the other", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod");
  await openConsole(page);
  await replaceEditorText(page, '# two requests\nPUT /e2e-not-run\n{ "settings": { "number_of_replicas": 0 } }\n\nGET /_cluster/health\n');
  // Both requests parsed (their run buttons drawn), so the lines no longer move; then the cursor
  // on the second request's line, and only then Ctrl+Enter.
  await page.locator(`${CONSOLE} .run-request`).nth(1).waitFor();
  await page.locator(`${REQUEST_EDITOR} .cm-line`, { hasText: "GET /_cluster/health" }).click();
  await page.locator(`${REQUEST_EDITOR} .cm-activeLine`, { hasText: "GET /_cluster/health" }).waitFor();
  await page.keyboard.press("Control+Enter");
  assert.equal(await waitForStatus(page, "200"), "200 OK");
  assert.equal(await page.locator('[data-testid="response-request"]').textContent(), "GET /_cluster/health");
  const missing = await fetch(`${stack.clusterUrl}/e2e-not-run`, { method: "HEAD" });
  assert.equal(missing.status, 404, "the first request did not run");

  // Each request has its run button in the gutter; the first one's runs the first request.
  const buttons = page.locator(`${CONSOLE} .run-request`);
  assert.equal(await buttons.count(), 2);
  await screenshot(page, "console-two-requests");
  await buttons.first().click();
  await page.locator('[data-testid="response-request"]', { hasText: "PUT /e2e-not-run" }).waitFor();
  assert.equal(await waitForStatus(page, "200"), "200 OK");
  const created = await fetch(`${stack.clusterUrl}/e2e-not-run`, { method: "HEAD" });
  assert.equal(created.status, 200, "the run button ran the first request");
  await page.close();
});

test("a GET with a body searches with it; completion offers paths and index names", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod");
  await openConsole(page);
  await replaceEditorText(page, "");
  // Typed key by key: completion opens on the index name being typed.
  await page.keyboard.type("GET /e2e-getb");
  const popup = page.locator(".cm-tooltip-autocomplete");
  // The option on top once the pop-up has caught up with the typing, taken with the mouse
  // (CodeMirror ignores Enter for a moment after the list changes, so a fast Enter types a newline).
  const selected = (label) => popup.locator('li[aria-selected="true"]', { hasText: new RegExp(`^${label}`) });
  await selected("e2e-getbody").waitFor();
  await screenshot(page, "console-complete-index");
  await selected("e2e-getbody").click();
  await page.keyboard.type("/_sea");
  await selected("_search(?!_)").click();
  await page.locator(`${REQUEST_EDITOR} .cm-line`, { hasText: "GET /e2e-getbody/_search" }).waitFor();
  assert.equal(await page.locator(`${REQUEST_EDITOR} .cm-line`).first().textContent(), "GET /e2e-getbody/_search");
  await page.keyboard.press("End");
  await page.keyboard.insertText('\n{ "query": { "term": { "kind": "wanted" } } }');
  await page.locator(REQUEST_EDITOR).press("Control+Enter");
  assert.equal(await waitForStatus(page, "200"), "200 OK");
  const body = JSON.parse(await page.locator('[data-testid="response-body"] .cm-content').evaluate((el) => {
    return [...el.querySelectorAll(".cm-line")].map((line) => line.textContent).join("\n");
  }));
  assert.equal(body.hits.total.value, 1, "the body's query was applied");
  assert.equal(body.hits.hits[0]._source.n, 2);
  await screenshot(page, "console-get-with-body");
  await page.close();
});

test("history exports to a JSON file and imports back, refusing a file that is not one", async () => {
  const page = await newPage(stack);
  await openCluster(page, "staging");
  await openConsole(page);
  await fillRequest(page, { method: "GET", path: "/_cat/nodes?format=json" });
  await page.locator(REQUEST_EDITOR).press("Control+Enter");
  await waitForStatus(page, "200");
  await fillRequest(page, { method: "GET", path: "/e2e-getbody/_count", body: '{"query":{"match_all":{}}}' });
  await page.locator(REQUEST_EDITOR).press("Control+Enter");
  await page.locator('[data-testid="response-request"]', { hasText: "_count" }).waitFor();
  const before = await historyPaths(page);
  assert.deepEqual(before.slice(0, 2), ["/e2e-getbody/_count", "/_cat/nodes?format=json"]);

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.locator('[data-testid="history-export"]').click(),
  ]);
  assert.match(download.suggestedFilename(), /^console-history-staging-\d{4}-\d\d-\d\d\.json$/);
  const file = join(stack.dir, download.suggestedFilename());
  await download.saveAs(file);
  const exported = JSON.parse(readFileSync(file, "utf8"));
  assert.equal(exported.format, "admin-console-history");
  assert.deepEqual(exported.entries.map((e) => e.path), before);

  await page.locator('[aria-label="Clear history"]').click();
  assert.deepEqual(await historyPaths(page), []);

  // A file that is not an export: a clear message, nothing imported.
  const bad = join(stack.dir, "not-history.json");
  writeFileSync(bad, '{"hello": "world"}');
  await page.locator('[data-testid="history-import-file"]').setInputFiles(bad);
  assert.match(await page.locator('[data-testid="history-import-problem"]').textContent(), /not a console history export/);
  assert.deepEqual(await historyPaths(page), []);

  await page.locator('[data-testid="history-import-file"]').setInputFiles(file);
  await page.locator(`${CONSOLE} .history-path`).first().waitFor();
  assert.deepEqual(await historyPaths(page), before);
  // Importing again adds no duplicates; the history survives a reload.
  await page.locator('[data-testid="history-import-file"]').setInputFiles(file);
  await page.locator(`${CONSOLE} .notice`, { hasText: "0 new" }).waitFor();
  await page.reload();
  await openConsole(page);
  assert.deepEqual(await historyPaths(page), before);
  await screenshot(page, "console-history-imported");
  await page.close();
});
