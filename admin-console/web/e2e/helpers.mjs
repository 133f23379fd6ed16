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

/**
 * The console drawer's width once it is `expected`: a resize re-renders asynchronously (a drag's
 * pointer events, a window resize), so this waits, up to the page's timeout, for the width the
 * caller expects, then answers the width it has (the caller's assertion reports a wrong one).
 */
export async function drawerWidth(page, expected) {
  await page
    .waitForFunction(
      ([selector, want]) => {
        const drawer = document.querySelector(selector);
        return drawer !== null && Math.round(drawer.getBoundingClientRect().width) === want;
      },
      [CONSOLE, expected],
    )
    .catch(() => {});
  return Math.round((await page.locator(CONSOLE).boundingBox()).width);
}

/** The console's request editor (CodeMirror's content element). */
export const REQUEST_EDITOR = `${CONSOLE} [data-testid="request-editor"] .cm-content`;

/** Replaces the console editor's text with one request (`METHOD path`, the body below); the
 * cursor ends in it, so Ctrl+Enter runs it. */
export async function fillRequest(page, { method = "GET", path, body }) {
  await replaceEditorText(page, body ? `${method} ${path}\n${body}` : `${method} ${path}`);
}

/** Replaces the console editor's whole text, pasted (so no completion pop-up opens); the
 * cursor ends after it. */
export async function replaceEditorText(page, text) {
  const editor = page.locator(REQUEST_EDITOR);
  await editor.click();
  await page.keyboard.press("Control+a");
  await page.keyboard.press("Delete");
  if (!text) return;
  await editor.evaluate((element, value) => {
    const data = new DataTransfer();
    data.setData("text/plain", value);
    element.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}

export async function waitForStatus(page, expected) {
  const status = page.locator(`${CONSOLE} [data-testid="response-status"]`);
  await status.filter({ hasText: expected }).waitFor();
  return status.textContent();
}

/** Drags the drawer's left border to the page x coordinate `x`. */
export async function dragDrawerTo(page, x) {
  const handle = page.locator('[data-testid="console-resize"]');
  // The drawer slides in: grab the handle once its slide-in animation has finished.
  await page.locator(CONSOLE).evaluate((drawer) => Promise.all(drawer.getAnimations().map((a) => a.finished)));
  const box = await handle.boundingBox();
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
