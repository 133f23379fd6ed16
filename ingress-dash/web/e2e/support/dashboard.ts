// What the tests read from the page, in one place.

import type { Locator, Page } from "playwright-core";

export function row(page: Page, namespace: string, name: string): Locator {
  return page.locator(`[role="row"][data-key="${namespace}/${name}"]`);
}

export function bodyRows(page: Page): Locator {
  return page.locator('[data-testid="ingress-table"] [role="row"][data-key]');
}

export function connection(page: Page): Locator {
  return page.getByTestId("connection");
}

/** Opens the dashboard and waits until the stream is live and its first snapshot is shown. */
export async function openDashboard(page: Page, url: string, query = "", timeout = 60_000): Promise<void> {
  await page.goto(`${url}/${query}`);
  await connection(page).filter({ hasText: "Live" }).waitFor({ timeout });
  await page.locator('.app[data-snapshot="true"]').waitFor({ timeout });
}

/** The row-count text, e.g. "10,000 ingresses" or "10 of 10,000". */
export async function rowCountText(page: Page): Promise<string> {
  return (await page.getByTestId("row-count").textContent()) ?? "";
}

/** Resolves with how long, from now, it took for `locator` to reach `state`. */
export async function timeUntil(locator: Locator, state: "visible" | "detached" | "hidden", timeout = 5_000): Promise<number> {
  const started = Date.now();
  await locator.waitFor({ state, timeout });
  return Date.now() - started;
}
