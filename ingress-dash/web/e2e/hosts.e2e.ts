// The Hosts page in the browser, against the real API server holding `make run`'s sample (40
// ingresses over 10 namespaces, the size that carries the Hosts situations): HTTPRoute
// app-00020-gateway in conflict with Ingress app-00020 on its host and with a duplicate rule,
// GRPCRoute app-00020-grpc beside them, two TLSRoutes on one SNI hostname, two Secrets for
// team-000's wildcard host; a row expands and its links open the table's
// details panel; search and "Flagged only" narrow the rows.

import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type Browser } from "./support/browser";
import { startStack, type Stack } from "./support/stack";

const SHARED = "app-00020.team-000.example.com";
const WILDCARD = "*.team-000.example.com";
const SNI = "db.team-000.example.com";

function hostRow(page: Page, host: string) {
  return page.locator(`[data-testid="host-row"][data-host="${host}"]`);
}

async function flags(page: Page, host: string): Promise<string[]> {
  return hostRow(page, host).locator("[data-flag]").evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-flag") ?? ""));
}

describe("the Hosts page", () => {
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    stack = await startStack("hosts", { sample: 40, namespaces: 10 });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("flags the conflict, the duplicate rule and the TLS overlap of the sample", async () => {
    const { page } = browser;
    await page.goto(`${stack.url}/?view=hosts&namespaces=team-000`);
    await hostRow(page, SHARED).waitFor({ timeout: 60_000 });
    // The Ingress's Secret and listener https's certificate: a TLS overlap too.
    expect(await flags(page, SHARED)).toEqual(["conflict", "tls_overlap", "duplicate"]);
    expect(await flags(page, WILDCARD)).toEqual(["conflict", "tls_overlap"]);
    expect(await flags(page, SNI)).toEqual(["conflict"]);
    expect(await hostRow(page, SNI).textContent()).toContain("2 objects");
    expect(await hostRow(page, SHARED).textContent()).toContain("(Ingress, HTTPRoute and GRPCRoute)");
    expect(await flags(page, "storefront.team-000.example.com")).toEqual([]);
    await browser.screenshot("hosts-page");

    await hostRow(page, WILDCARD).click();
    const detail = page.getByTestId("host-detail");
    const tls = await detail.getByTestId("host-tls").textContent();
    expect(tls).toContain("team-000/wildcard-tls");
    expect(tls).toContain("team-000/wildcard-old-tls");
    expect(page.url()).toContain(`host=${WILDCARD}`);
    expect(browser.pageErrors).toEqual([]);
  });

  it("a row expands to its conflict and paths, and its links open the details panel", async () => {
    const { page } = browser;
    await page.goto(`${stack.url}/?view=hosts&namespaces=team-000&host=${SHARED}`);
    const detail = page.getByTestId("host-detail");
    await detail.waitFor({ timeout: 60_000 });
    expect(await detail.getByTestId("host-conflicts").textContent()).toContain(
      "Conflict on PathPrefix /api: claimed by team-000/app-00020-gateway (HTTPRoute), team-000/app-00020",
    );
    const objects = await detail.getByTestId("host-objects").textContent();
    expect(objects).toContain("via listener gateway-system/public/https: https HTTPS :443 TLS Terminate (gateway-system/public-tls)");
    expect(objects).toContain("via listener gateway-system/public/grpc: listener grpc does not allow GRPCRoute");
    expect(await detail.getByTestId("host-paths").textContent()).toMatch(/app-00020:80 \d+\/\d+ ready/);
    await browser.screenshot("hosts-expanded");

    await detail.getByRole("link", { name: "team-000/app-00020-gateway" }).click();
    const details = page.getByTestId("details");
    await expect.poll(() => details.getAttribute("data-kind"), { timeout: 60_000 }).toBe("HTTPRoute");
    expect(page.url()).toContain("route=team-000/app-00020-gateway");
    expect(browser.pageErrors).toEqual([]);
  });

  it("search and 'Flagged only' narrow the hosts", async () => {
    const { page } = browser;
    await page.goto(`${stack.url}/?view=hosts&namespaces=team-000`);
    await hostRow(page, SHARED).waitFor({ timeout: 60_000 });
    await page.getByTestId("hosts-search").fill("gateway");
    await expect.poll(() => page.getByTestId("host-row").count()).toBe(1);
    expect(await page.getByTestId("host-row").getAttribute("data-host")).toBe(SHARED);
    expect(page.url()).toContain("q=gateway");

    await page.getByTestId("hosts-search").fill("");
    await page.getByTestId("hosts-flagged").check();
    await expect.poll(() => page.getByTestId("host-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-host")))).toEqual([
      WILDCARD,
      SHARED,
      SNI,
    ]);
    await browser.screenshot("hosts-flagged");
    expect(browser.pageErrors).toEqual([]);
  });
});
