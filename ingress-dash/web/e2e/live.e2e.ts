// The live stream: changes made in the API server show within 2 s; a namespace failing with 403
// gets its banner while the others keep updating; the page reconnects by itself.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type Browser } from "./support/browser";
import { connection, openDashboard, row, timeUntil } from "./support/dashboard";
import { startStack, type Stack } from "./support/stack";

const LIVE_WITHIN_MS = 2_000;
const FORBIDDEN = "team-002";

let stack: Stack;
let browser: Browser;
beforeAll(async () => {
  // A namespace-scoped install: one watcher per namespace; its service account has Roles in
  // team-000 and team-001 only, so the API server's 403 hits team-002 alone.
  stack = await startStack("live", {
    sample: 30,
    namespaces: 3,
    forbidden: [FORBIDDEN],
    watchNamespaces: ["team-000", "team-001", FORBIDDEN],
  });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("live updates", () => {
  it("an ingress created, changed and deleted in the API server appears, updates and disappears within 2 s", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url, "?namespaces=team-000,team-001");
    const created = row(page, "team-001", "e2e-live");
    expect(await created.count()).toBe(0);

    await stack.kube.create({ namespace: "team-001", name: "e2e-live", hosts: ["live.example.com"], className: "nginx" });
    expect(await timeUntil(created, "visible")).toBeLessThan(LIVE_WITHIN_MS);
    expect(await created.getAttribute("data-change")).toBe("added");
    expect(await created.getByRole("link", { name: "live.example.com" }).getAttribute("href")).toMatch(/^http:\/\/live\.example\.com/);
    await browser.screenshot("live-created");

    await stack.kube.replace({
      namespace: "team-001",
      name: "e2e-live",
      hosts: ["live.example.com", "secure.example.com"],
      tlsHosts: ["secure.example.com"],
      className: "nginx",
    });
    const secureLink = created.getByRole("link", { name: "secure.example.com" });
    expect(await timeUntil(secureLink, "visible")).toBeLessThan(LIVE_WITHIN_MS);
    expect(await secureLink.getAttribute("href")).toMatch(/^https:\/\/secure\.example\.com/);
    expect(await created.getAttribute("data-change")).toBe("added");
    await browser.screenshot("live-changed");

    await stack.kube.delete("team-001", "e2e-live");
    expect(await timeUntil(created, "detached")).toBeLessThan(LIVE_WITHIN_MS);
    await browser.screenshot("live-deleted");
    expect(browser.pageErrors).toEqual([]);
  });

  it("a change to an existing ingress is highlighted as modified", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url, "?namespaces=team-000");
    const existing = row(page, "team-000", "app-00003");
    await existing.waitFor();
    await stack.kube.replace({ namespace: "team-000", name: "app-00003", hosts: ["changed.example.com"] });
    const link = existing.getByRole("link", { name: "changed.example.com" });
    expect(await timeUntil(link, "visible")).toBeLessThan(LIVE_WITHIN_MS);
    expect(await existing.getAttribute("data-change")).toBe("modified");
    await browser.screenshot("live-modified-highlight");
  });

  it("a namespace failing with 403 shows its banner while another namespace still updates", async () => {
    const { page } = browser;
    await page.goto(`${stack.url}/?namespaces=team-000,${FORBIDDEN}`);
    const banner = page.locator(`[data-testid="namespace-error"][data-namespace="${FORBIDDEN}"]`);
    await banner.waitFor({ timeout: 10_000 });
    expect(await banner.textContent()).toMatch(/forbidden/i);
    await connection(page).filter({ hasText: "Live" }).waitFor();

    await stack.kube.create({ namespace: "team-000", name: "e2e-during-403", hosts: ["during.example.com"] });
    const created = row(page, "team-000", "e2e-during-403");
    expect(await timeUntil(created, "visible")).toBeLessThan(LIVE_WITHIN_MS);
    expect(await banner.isVisible()).toBe(true);
    // The page never replaces the table with a full-page error.
    expect(await page.getByTestId("ingress-table").isVisible()).toBe(true);
    await browser.screenshot("live-namespace-forbidden");
  });

  it("shows reconnecting, then stale since HH:MM, while the server is away, and live when it is back", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url, "?namespaces=team-000");
    await stack.dash.stop();
    await connection(page).filter({ hasText: "Reconnecting" }).waitFor({ timeout: 10_000 });
    expect(await page.getByTestId("ingress-table").isVisible()).toBe(true);
    await browser.screenshot("live-reconnecting");

    // After 10 s without a stream the data is called stale, with the time it was last live.
    await connection(page).filter({ hasText: /^Stale since \d\d:\d\d$/ }).waitFor({ timeout: 20_000 });
    await page.getByTestId("stale-banner").waitFor();
    expect(await row(page, "team-000", "app-00000").isVisible()).toBe(true);
    await browser.screenshot("live-stale");

    await stack.restartDash();
    await connection(page).filter({ hasText: "Live" }).waitFor({ timeout: 15_000 });
    // The table is whole again after the fresh snapshot.
    await row(page, "team-000", "app-00000").waitFor();
  });
});
