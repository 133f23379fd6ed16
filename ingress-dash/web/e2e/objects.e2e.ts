// The details panel's on-demand reads on the sample situations of `make run`, written into a
// real API server: app-00001's Warning events, every type on request, and its YAML with Copy.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type Browser } from "./support/browser";
import { openDashboard, row } from "./support/dashboard";
import { startStack, type Stack } from "./support/stack";

describe("events and YAML of the selected ingress", () => {
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    // Sample ingress i is app-<i> in team-<i mod 3>: app-00001 is in team-001.
    stack = await startStack("objects", { sample: 30, namespaces: 3 });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("app-00001's details show its warning events, then its YAML, which Copy puts on the clipboard", async () => {
    const { page, context } = browser;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.url });
    await openDashboard(page, stack.url, "?namespaces=team-001");
    await row(page, "team-001", "app-00001").locator(".cell-name").click();
    const details = page.getByTestId("details");
    await details.waitFor();

    // Loaded with the panel: Warning only, newest first.
    const events = details.getByTestId("object-events");
    const eventRows = events.getByTestId("object-event");
    await expect.poll(() => eventRows.count()).toBe(2);
    const first = eventRows.first();
    expect(await first.getAttribute("data-event-type")).toBe("Warning");
    expect(await first.textContent()).toContain("NoReadyEndpoints");
    expect(await first.textContent()).toContain('Service "team-001/app-00001" has no ready endpoints');
    expect(await eventRows.nth(1).textContent()).toContain("UpstreamUnhealthy");
    await browser.screenshot("objects-warning-events");

    // Every type: the Normal Sync event too.
    await events.getByLabel("All types").check();
    await expect.poll(() => eventRows.count()).toBe(3);
    expect(await eventRows.nth(2).getAttribute("data-event-type")).toBe("Normal");

    // The YAML only when asked.
    const yamlSection = details.getByTestId("object-yaml");
    expect(await yamlSection.locator("pre").count()).toBe(0);
    await yamlSection.getByRole("button", { name: "Show YAML" }).click();
    const yaml = yamlSection.locator("pre");
    await expect.poll(() => yaml.textContent()).toContain("name: app-00001");
    const text = (await yaml.textContent()) ?? "";
    expect(text).toContain("kind: Ingress");
    expect(text).not.toContain("managedFields");
    expect(await yaml.evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/mono/i);
    expect(await yaml.evaluate((el) => getComputedStyle(el).overflow)).toBe("auto");
    await browser.screenshot("objects-yaml");

    await yamlSection.getByRole("button", { name: "Copy" }).click();
    await yamlSection.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(text);
    // The feedback goes away by itself.
    await yamlSection.getByRole("button", { name: "Copy" }).waitFor();
    expect(browser.pageErrors).toEqual([]);
  });

  it("an HTTPRoute's details read the route's events and YAML", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url, "?namespaces=team-000");
    const checkout = page.locator('[role="row"][data-key="httproute/team-000/checkout"]');
    await checkout.locator(".cell-name").click();
    const details = page.getByTestId("details");
    await expect.poll(() => details.getAttribute("data-kind")).toBe("HTTPRoute");
    // The sample has no events about the route.
    await details.getByTestId("object-events").getByText("No warning events").waitFor();
    const yamlSection = details.getByTestId("object-yaml");
    await yamlSection.getByRole("button", { name: "Show YAML" }).click();
    const yaml = yamlSection.locator("pre");
    await expect.poll(() => yaml.textContent()).toContain("kind: HTTPRoute");
    const text = (await yaml.textContent()) ?? "";
    expect(text).toContain("apiVersion: gateway.networking.k8s.io/v1");
    expect(text).toContain("reason: BackendNotFound");
    await browser.screenshot("objects-httproute-yaml");
    expect(browser.pageErrors).toEqual([]);
  });
});
