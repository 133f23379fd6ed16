// Page helpers shared by the browser tests.
import assert from "node:assert/strict";

export const CONSOLE = '[data-testid="console"]';

export async function openCluster(page, clusterId, view = "") {
  await page.goto(`/clusters/${clusterId}${view ? `/${view}` : ""}`);
  await page.locator('[data-testid="cluster-header"] h1').waitFor();
}

export async function openConsole(page) {
  await page.locator('[data-testid="console-toggle"]').click();
  await page.locator(CONSOLE).waitFor();
  await page.locator(`${CONSOLE} .console-panel`).waitFor();
}

export async function consoleMode(page) {
  return page.locator(CONSOLE).getAttribute("data-mode");
}

/** The console's width once it has settled (resizes re-render asynchronously). */
export async function drawerWidth(page) {
  let width = Math.round((await page.locator(CONSOLE).boundingBox()).width);
  for (let i = 0; i < 20; i++) {
    await page.waitForTimeout(50);
    const next = Math.round((await page.locator(CONSOLE).boundingBox()).width);
    if (next === width) break;
    width = next;
  }
  return width;
}

/** Types a request into the console; `body` replaces the editor's content. */
export async function fillRequest(page, { method = "GET", path, body }) {
  await page.locator(`${CONSOLE} select[aria-label="HTTP method"]`).selectOption(method);
  await page.locator(`${CONSOLE} input[aria-label="Path"]`).fill(path);
  if (body !== undefined) {
    const editor = page.locator(`${CONSOLE} [data-testid="body-editor"] .cm-content`);
    await editor.click();
    await page.keyboard.press("Control+a");
    await page.keyboard.press("Delete");
    if (body) await page.keyboard.insertText(body);
  }
}

export async function waitForStatus(page, expected) {
  const status = page.locator(`${CONSOLE} [data-testid="response-status"]`);
  await status.filter({ hasText: expected }).waitFor();
  return status.textContent();
}

/** Drags the drawer's left border to the page x coordinate `x`. */
export async function dragDrawerTo(page, x) {
  const handle = page.locator('[data-testid="console-resize"]');
  // The drawer slides in: grab the handle only once it has stopped moving.
  let box = await handle.boundingBox();
  for (let i = 0; i < 50; i++) {
    await page.waitForTimeout(50);
    const next = await handle.boundingBox();
    if (next && box && next.x === box.x && next.width === box.width) break;
    box = next;
  }
  await page.mouse.move(box.x + box.width / 2, box.y + 200);
  await page.mouse.down();
  await page.mouse.move((box.x + x) / 2, box.y + 200, { steps: 4 });
  await page.mouse.move(x, box.y + 200, { steps: 4 });
  await page.mouse.up();
}

export async function historyPaths(page) {
  await page.locator(`${CONSOLE} [role="tab"]`, { hasText: "History" }).click();
  await page.locator(`${CONSOLE} [data-testid="history"]`).waitFor();
  return page.locator(`${CONSOLE} .history-path`).allTextContents();
}

export async function dataPoints(page, selector) {
  const el = page.locator(`${selector} [data-points]`).first();
  await el.waitFor();
  const n = Number(await el.getAttribute("data-points"));
  assert.ok(Number.isFinite(n), `${selector} has a point count`);
  return n;
}
