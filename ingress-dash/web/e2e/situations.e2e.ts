// What an SRE opens the dashboard for, on the sample situations of `make run` written into a real
// API server: a backend without ready endpoints, a certificate expiring in 5 days that does not
// cover a rule's host, an HTTPRoute whose backend ref does not resolve; live backend changes;
// and a cluster without the Gateway API.

import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type Browser } from "./support/browser";
import { openDashboard, row } from "./support/dashboard";
import { startStack, type Stack } from "./support/stack";

// Sample ingress i is app-<i> in team-<i mod 3>: app-00000 in team-000, app-00001 in team-001,
// app-00002 in team-002; the HTTPRoutes storefront and checkout are in team-000.
const SAMPLE = { sample: 30, namespaces: 3 };
const READ_SECRETS = "certificates:\n  read_secrets: true\n";

/** The keys of the rows shown, in order (a window of them; the tests keep the lists short). */
function shownKeys(page: Page): Promise<string[]> {
  return page.locator('[data-testid="ingress-table"] [role="row"][data-key]').evaluateAll((rows) =>
    rows
      .map((r) => ({ key: (r as HTMLElement).dataset.key ?? "", index: Number(r.getAttribute("aria-rowindex")) }))
      .sort((a, b) => a.index - b.index)
      .map((r) => r.key),
  );
}

describe("the sample situations", () => {
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    stack = await startStack("situations", { ...SAMPLE, extraConfig: READ_SECRETS });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("the broken backend app-00001 has its badge, naming the service, and the backend filter finds it", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url);
    const badge = row(page, "team-001", "app-00001").locator('[data-badge="backend"]');
    await expect.poll(() => badge.textContent()).toMatch(/^No ready endpoints/);
    expect(await badge.getAttribute("title")).toContain("app-00001:80 (no ready endpoints, 0/");
    // Healthy backends have no badge.
    expect(await row(page, "team-000", "app-00003").locator('[data-badge="backend"]').count()).toBe(0);

    await page.getByTestId("backend-select").selectOption("no_ready_endpoints");
    await expect.poll(() => shownKeys(page)).toContain("team-001/app-00001");
    const keys = await shownKeys(page);
    // The missing Service app-00002-api counts as no ready endpoints; healthy ingresses are gone.
    expect(keys).toContain("team-002/app-00002");
    expect(keys).not.toContain("team-000/app-00000");
    expect(keys).not.toContain("team-000/app-00003");
    expect(page.url()).toContain("backends=no_ready_endpoints");
    await browser.screenshot("situations-backend-filter");

    // The details panel lists the Service with its endpoint counts.
    await row(page, "team-001", "app-00001").locator(".cell-name").click();
    const backends = page.getByTestId("details-backends");
    await expect.poll(() => backends.locator('tr[data-service="app-00001"]').getAttribute("data-state")).toBe("no_ready_endpoints");
    expect(await backends.locator('tr[data-service="app-00001"] td').nth(2).textContent()).toMatch(/^0\/\d+$/);
    expect(browser.pageErrors).toEqual([]);
  });

  it("the 5-day certificate app-00000-tls is found by 'expires within 7 days' and shows the host it does not cover", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url);
    // On, the filter starts at the server's expiry_warning_days (14 by default).
    await page.getByTestId("expiry-toggle").check();
    expect(await page.getByTestId("expiry-days").inputValue()).toBe("14");
    await page.getByTestId("expiry-days").fill("7");
    await expect.poll(() => shownKeys(page)).toEqual(["team-000/app-00000"]);
    expect(page.url()).toContain("expires=7");

    const tls = row(page, "team-000", "app-00000");
    expect(await tls.locator('[data-badge="certificate"]').textContent()).toMatch(/^Cert expires in (5d|4d\d+h)/);
    expect(await tls.locator('[data-badge="hosts"]').textContent()).toMatch(/^Host not covered: \*\.team-000\.example\.com not covered by the certificate in app-00000-tls/);
    await browser.screenshot("situations-expiring-certificate");

    await tls.locator(".cell-name").click();
    const entry = page.getByTestId("details-certificates").locator('[data-secret="app-00000-tls"]');
    await expect.poll(() => entry.getByTestId("missing-hosts").textContent()).toContain("*.team-000.example.com is not covered");
    const text = (await entry.textContent()) ?? "";
    expect(text).toContain("app-00000.team-000.example.com");
    expect(text).toMatch(/\(in (5d|4d\d+h)\)/);
    expect(text).toContain("Expires within 14 days");

    // 80 days left is not within 7, nor 14: app-00002-tls stays out, and without a badge.
    await page.getByTestId("expiry-days").fill("90");
    await expect.poll(() => shownKeys(page)).toContain("team-002/app-00002");
    expect(await row(page, "team-002", "app-00002").locator('[data-badge="certificate"]').count()).toBe(0);
    await browser.screenshot("situations-certificate-details");
    expect(browser.pageErrors).toEqual([]);
  });

  it("the HTTPRoute checkout is listed with kind HTTPRoute and its ResolvedRefs False reason", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url);
    await page.getByTestId("kind-select").selectOption("HTTPRoute");
    await expect.poll(() => shownKeys(page)).toEqual(["httproute/team-000/checkout", "httproute/team-000/storefront"]);
    expect(page.url()).toContain("kind=HTTPRoute");

    const checkout = page.locator('[role="row"][data-key="httproute/team-000/checkout"]');
    expect(await checkout.locator(".cell-kind").textContent()).toBe("HTTPRoute");
    expect(await checkout.locator(".cell-class").textContent()).toContain("gateway-system/public");
    expect(await checkout.locator('[data-badge="route"]').textContent()).toMatch(/^ResolvedRefs: BackendNotFound/);
    const storefront = page.locator('[role="row"][data-key="httproute/team-000/storefront"]');
    expect(await storefront.locator('[data-badge="route"]').textContent()).toMatch(/^Accepted/);
    await browser.screenshot("situations-httproutes");

    await checkout.locator(".cell-name").click();
    const details = page.getByTestId("details");
    await expect.poll(() => details.getAttribute("data-kind")).toBe("HTTPRoute");
    expect(page.url()).toContain("route=team-000/checkout");
    const resolved = details.getByTestId("details-conditions").locator('[data-condition="ResolvedRefs"]');
    expect(await resolved.textContent()).toContain("BackendNotFound");
    expect(await resolved.getAttribute("class")).toBe("condition-problem");
    expect(await details.getByTestId("details-route-rules").textContent()).toContain("checkout-v2");
    expect(await details.getByTestId("details-parents").textContent()).toContain("gateway-system/public");
    await browser.screenshot("situations-httproute-details");
    expect(browser.pageErrors).toEqual([]);
  });

  it("a backend whose endpoints become ready loses its badge live", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url, "?namespaces=team-001");
    const badge = row(page, "team-001", "app-00001").locator('[data-badge="backend"]');
    await badge.waitFor();

    // The EndpointSlice of Service app-00001 (kubernetes.io/service-name), its endpoints made ready.
    const list = await stack.kube.call(
      "GET",
      "/apis/discovery.k8s.io/v1/namespaces/team-001/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dapp-00001",
    );
    const slice = (list.items as Record<string, unknown>[])[0];
    if (!slice) throw new Error("no EndpointSlice for app-00001");
    const endpoints = (slice.endpoints as { conditions?: Record<string, unknown> }[]).map((e) => ({
      ...e,
      conditions: { ...e.conditions, ready: true, serving: true },
    }));
    const name = (slice.metadata as { name: string }).name;
    await stack.kube.call("PUT", `/apis/discovery.k8s.io/v1/namespaces/team-001/endpointslices/${name}`, {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      ...slice,
      endpoints,
    });
    await badge.waitFor({ state: "detached", timeout: 10_000 });
    expect(browser.pageErrors).toEqual([]);
  });
});

describe("a cluster without the Gateway API", () => {
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    stack = await startStack("no-gateway-api", { ...SAMPLE, noGatewayApi: true });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("says so once, in a banner that can be dismissed for good, and lists the ingresses", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url);
    const notice = page.locator('[data-testid="notice"][data-code="gateway_api_not_installed"]');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/Gateway API is not installed/);
    expect(await page.getByTestId("notice").count()).toBe(1);
    expect(await page.getByTestId("namespace-error").count()).toBe(0);
    await expect.poll(() => page.getByTestId("row-count").textContent()).toBe("30 ingresses");
    await browser.screenshot("situations-no-gateway-api");

    await notice.getByRole("button", { name: /Dismiss/ }).click();
    await notice.waitFor({ state: "detached" });
    await openDashboard(page, stack.url);
    await expect.poll(() => page.getByTestId("row-count").textContent()).toBe("30 ingresses");
    expect(await notice.count()).toBe(0);
  });
});
