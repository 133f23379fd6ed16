// Migration readiness (issue 36) in the browser, against the real API server: IngressClasses
// and an Ingress with ingress-nginx annotations written through the API; the details panel
// explains each annotation for its class's controller, and the Migration page counts them and
// exports a CSV whose formula cell comes out as text.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type Browser } from "./support/browser";
import { openDashboard, row } from "./support/dashboard";
import { startStack, type Stack } from "./support/stack";

const NGINX = "nginx.ingress.kubernetes.io/";
const FORMULA = '=HYPERLINK("http://evil.example/","click")';

describe("migration readiness", () => {
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    stack = await startStack("migration", { sample: 6, namespaces: 3, onlyIngresses: true });
    for (const [name, controller] of [
      ["nginx", "k8s.io/ingress-nginx"],
      ["traefik", "traefik.io/ingress-controller"],
      ["haproxy", "haproxy.org/ingress-controller/haproxy"],
    ] as const) {
      await stack.kube.call("POST", "/apis/networking.k8s.io/v1/ingressclasses", {
        apiVersion: "networking.k8s.io/v1",
        kind: "IngressClass",
        metadata: { name },
        spec: { controller },
      });
    }
    await stack.kube.call("POST", "/apis/networking.k8s.io/v1/namespaces/team-000/ingresses", {
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: {
        name: "legacy",
        namespace: "team-000",
        annotations: {
          [`${NGINX}rewrite-target`]: "/",
          [`${NGINX}ssl-redirect`]: "yes",
          [`${NGINX}configuration-snippet`]: "more_set_headers 'X-Secret: s3cr3t-value';",
          [`${NGINX}proxy-body-sise`]: "8m",
          [`${NGINX}x-forwarded-prefix`]: FORMULA,
        },
      },
      spec: {
        ingressClassName: "nginx",
        rules: [{ host: "legacy.example.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "legacy", port: { number: 80 } } } }] } }],
      },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("the details panel explains each annotation for the ingress's controller", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url, "?namespaces=team-000");
    await row(page, "team-000", "legacy").locator(".cell-name").click();
    const explainer = page.getByTestId("details").getByTestId("annotation-explainer");
    const items = explainer.getByTestId("explained-annotation");
    await expect.poll(() => items.count()).toBe(5);
    expect(await explainer.getByTestId("explainer-controller").textContent()).toContain("ingress-nginx (class nginx)");
    const item = (key: string) => items.filter({ hasText: `${NGINX}${key}` });
    expect(await item("rewrite-target").getAttribute("data-support")).toBe("gateway_api");
    expect(await item("ssl-redirect").getAttribute("data-validity")).toBe("invalid");
    expect(await item("configuration-snippet").locator(".warning-snippet").count()).toBe(1);
    expect(await item("proxy-body-sise").textContent()).toContain(`Did you mean ${NGINX}proxy-body-size?`);
    expect(await explainer.textContent()).not.toContain("s3cr3t-value");
    await explainer.scrollIntoViewIfNeeded();
    await browser.screenshot("migration-explainer");
    expect(browser.pageErrors).toEqual([]);
  });

  it("the Migration page counts the annotations per namespace and exports them as CSV", async () => {
    const { page } = browser;
    await openDashboard(page, stack.url, "?namespaces=team-000");
    await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Migration" }).click();
    await page.waitForURL(/view=migration/);
    const rows = page.getByTestId("migration-namespace-row");
    await expect.poll(() => rows.count()).toBe(3);
    // team-000: the sample's two ingresses (proxy-body-size each) and legacy's five.
    const team0 = rows.filter({ hasText: "team-000" });
    const cells = await team0.locator("td").allTextContents();
    expect(cells.slice(0, 4)).toEqual(["team-000", "3", "3", "7"]);
    const annotationRows = page.getByTestId("migration-annotation-row");
    expect(await annotationRows.first().textContent()).toContain(`${NGINX}proxy-body-size`);
    await browser.screenshot("migration-page");

    const href = await page.getByTestId("export-csv").getAttribute("href");
    expect(href).toBe("/api/migration?format=csv");
    const csv = await page.request.get(`${stack.url}${href}`);
    expect(csv.headers()["content-disposition"]).toBe('attachment; filename="ingress-migration.csv"');
    const text = await csv.text();
    expect(text).toContain(`"'${FORMULA.replaceAll('"', '""')}"`);
    expect(text).not.toContain("s3cr3t-value");
    expect(browser.pageErrors).toEqual([]);
  });
});
