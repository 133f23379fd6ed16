// 10,000 ingresses: virtual scrolling, search and namespace filters, host links.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type Browser } from "./support/browser";
import { bodyRows, openDashboard, row, rowCountText } from "./support/dashboard";
import { startStack, type Stack } from "./support/stack";

const SAMPLE = 10_000;
const NAMESPACES = 20;
// The sample ingresses of `make run` (only them: no Services, Secrets or HTTPRoutes), written into
// a real API server: ingress i is app-<i, 5 digits> in team-<i mod 20, 3 digits>; even i have TLS
// for their host, i divisible by 5 add a wildcard host.
const namespaceOf = (i: number) => `team-${String(i % NAMESPACES).padStart(3, "0")}`;
const nameOf = (i: number) => `app-${String(i).padStart(5, "0")}`;
const ALL = SAMPLE.toLocaleString("en");

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startStack("large-list", { sample: SAMPLE, namespaces: NAMESPACES, onlyIngresses: true });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("with 10,000 ingresses", () => {
  it("keeps fewer than 200 rows in the DOM and scrolls to the last one", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url);
    await expect.poll(() => rowCountText(page), { timeout: 30_000 }).toBe("10,000 ingresses");
    expect(await bodyRows(page).count()).toBeLessThan(200);
    await expect.poll(() => bodyRows(page).count()).toBeGreaterThan(10);

    // Default order is by name: the highest index comes last.
    const last = row(page, namespaceOf(SAMPLE - 1), nameOf(SAMPLE - 1));
    expect(await last.count()).toBe(0);
    await page.getByTestId("ingress-table").evaluate((table) => table.scrollTo({ top: table.scrollHeight }));
    await last.waitFor({ state: "visible", timeout: 5_000 });
    expect(await last.isVisible()).toBe(true);
    expect(await bodyRows(page).count()).toBeLessThan(200);
    await browser.screenshot("large-list-scrolled-to-end");
    expect(browser.pageErrors).toEqual([]);
  });

  it("search narrows the rows to matching names, hosts and paths", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url);
    await page.getByTestId("search").fill("app-0999");
    await expect.poll(() => rowCountText(page)).toBe(`10 of ${ALL}`);
    expect(await bodyRows(page).count()).toBe(10);
    await row(page, namespaceOf(9990), nameOf(9990)).waitFor();

    // A host: only ingress 42's host names it.
    await page.getByTestId("search").fill(`${nameOf(42)}.${namespaceOf(42)}.example.com`);
    await expect.poll(() => rowCountText(page)).toBe(`1 of ${ALL}`);
    await browser.screenshot("large-list-search");
  });

  it("the namespace filter narrows the rows and the stream", async () => {
    const { page } = browser;
    const streams: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/ingresses/stream")) streams.push(request.url());
    });
    await openDashboard(page, stack.url);
    await page.getByTestId("namespace-select").getByRole("button", { name: /Namespaces/ }).click();
    await page.getByTestId("namespace-select").getByLabel(namespaceOf(3), { exact: true }).check();
    await page.keyboard.press("Escape");
    // The stream is reopened for that namespace only, so the total is that namespace's.
    await expect.poll(() => rowCountText(page), { timeout: 10_000 }).toBe(`${SAMPLE / NAMESPACES} ingresses`);
    // The rows come from the fetched snapshot; the stream opens from its position right after.
    await expect.poll(() => streams.at(-1) ?? "").toContain(`/api/ingresses/stream?namespaces=${namespaceOf(3)}&lastEventId=`);
    const namespaces = await page.locator('[role="row"][data-key] .cell-namespace').allTextContents();
    expect(new Set(namespaces)).toEqual(new Set([namespaceOf(3)]));
    expect(page.url()).toContain(`namespaces=${namespaceOf(3)}`);
    await browser.screenshot("large-list-namespace-filter");
  });

  it("class, TLS and label filters narrow the rows", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url);
    // Ingresses 10 to 19; the even ones have TLS; i mod 4 = 0 are class nginx (12, 16).
    await page.getByTestId("search").fill("app-0001");
    await expect.poll(() => rowCountText(page)).toBe(`10 of ${ALL}`);
    await page.getByTestId("tls-select").selectOption("tls");
    await expect.poll(() => rowCountText(page)).toBe(`5 of ${ALL}`);
    await page.getByTestId("class-select").getByRole("button", { name: /Class/ }).click();
    await page.getByTestId("class-select").getByLabel("nginx", { exact: true }).check();
    await page.keyboard.press("Escape");
    await expect.poll(() => rowCountText(page)).toBe(`2 of ${ALL}`);
    expect(await page.locator('[role="row"][data-key] .cell-name').allTextContents()).toEqual([nameOf(12), nameOf(16)]);

    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.getByTestId("label-filter").fill(`app.kubernetes.io/name in (${nameOf(7)},${nameOf(8)})`);
    await expect.poll(() => rowCountText(page)).toBe(`2 of ${ALL}`);
    await browser.screenshot("large-list-label-filter");
  });

  it("host links carry the scheme their TLS entry implies; wildcard hosts are not links", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url);
    await page.getByTestId("search").fill("app-0001");
    await expect.poll(() => rowCountText(page)).toBe(`10 of ${ALL}`);

    // 10: TLS and a wildcard host; 11: no TLS.
    const tls = row(page, namespaceOf(10), nameOf(10));
    const plain = row(page, namespaceOf(11), nameOf(11));
    const tlsHost = `${nameOf(10)}.${namespaceOf(10)}.example.com`;
    const plainHost = `${nameOf(11)}.${namespaceOf(11)}.example.com`;
    expect(await tls.getByRole("link", { name: tlsHost }).getAttribute("href")).toMatch(new RegExp(`^https://${tlsHost}/?$`));
    expect(await plain.getByRole("link", { name: plainHost }).getAttribute("href")).toMatch(new RegExp(`^http://${plainHost}/?$`));
    expect(await tls.getByRole("link").count()).toBe(1);
    await expect.poll(() => tls.locator(".cell-hosts").textContent()).toContain(`*.${namespaceOf(10)}.example.com`);

    // The details panel lists the same links.
    await tls.locator(".cell-name").click();
    const details = page.getByTestId("details");
    await details.waitFor();
    expect(await details.getByRole("link", { name: new RegExp(tlsHost) }).getAttribute("href")).toMatch(/^https:/);
    await browser.screenshot("large-list-host-links-and-details");
  });

  it("follows the dark system theme, and the toggle switches to light for good", async () => {
    const dark = await launchBrowser({ colorScheme: "dark" });
    try {
      await openDashboard(dark.page, stack.url, `?ingress=${namespaceOf(35)}/${nameOf(35)}`);
      await dark.page.getByTestId("details").waitFor();
      const background = () => dark.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const theme = () => dark.page.evaluate(() => document.documentElement.dataset.theme);
      // No choice stored: the system's preference, set before the app's script runs.
      expect(await theme()).toBe("dark");
      expect(await background()).not.toBe("rgb(255, 255, 255)");
      await dark.screenshot("large-list-dark-theme");

      // The header's toggle switches to light, and the choice outlives a reload.
      await dark.page.getByTestId("theme-toggle").click();
      await expect.poll(theme).toBe("light");
      expect(await background()).toBe("rgb(255, 255, 255)");
      expect(await dark.page.evaluate(() => localStorage.getItem("ingress-dash.theme"))).toBe("light");
      await openDashboard(dark.page, stack.url);
      expect(await theme()).toBe("light");
      expect(await background()).toBe("rgb(255, 255, 255)");
    } finally {
      await dark.close();
    }
  });
});
