// @vitest-environment jsdom
// The details panel of an ingress (backends, certificates) and of an HTTPRoute (parents,
// conditions, rules), rendered in jsdom from records shaped as the server sends them.
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { IngressRecord } from "../api/wire";
import { DAY_MS } from "../state/health";
import { backend, certificate, condition, httpRoute, ingress } from "../test/fixtures";
import { jsonResponse, stubFetch } from "../test/fetch";
import { DetailsPanel } from "./DetailsPanel";

const NOW = Date.parse("2026-03-01T12:00:00Z");

beforeEach(() => {
  // Parts of the panel that load on demand (events, YAML, annotations) get a 404.
  stubFetch();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function show(record: IngressRecord, warningDays = 14) {
  render(<DetailsPanel record={record} deletedAt={null} now={NOW} warningDays={warningDays} onClose={() => {}} />);
  return screen.getByTestId("details");
}

describe("DetailsPanel", () => {
  it("lists each backend Service with its state and ready/total endpoints", () => {
    const panel = show(
      ingress({
        name: "app-00002",
        namespace: "team-000",
        backends: [
          backend({ service: "app-00002", namespace: "team-000", readyEndpoints: 2, totalEndpoints: 2 }),
          backend({ service: "app-00002-api", namespace: "team-000", port: "http", state: "missing_service", readyEndpoints: 0, totalEndpoints: 0 }),
          backend({ service: "shared", namespace: "platform", state: "degraded", readyEndpoints: 1, totalEndpoints: 3 }),
        ],
      }),
    );
    const section = within(within(panel).getByTestId("details-backends"));
    const rows = section.getAllByRole("row").slice(1).map((row) => [...row.querySelectorAll("td")].map((td) => td.textContent));
    expect(rows).toEqual([
      ["app-00002:80", "ready", "2/2"],
      ["app-00002-api:http", "service missing", "—"],
      ["platform/shared:80", "degraded", "1/3"],
    ]);
  });

  it("shows per TLS entry the secret, source, names, validity with relative times, issuer and missing hosts", () => {
    const panel = show(
      ingress({
        name: "app-00000",
        namespace: "team-000",
        hosts: ["app-00000.team-000.example.com", "*.team-000.example.com"],
        tls: [
          { hosts: ["app-00000.team-000.example.com", "*.team-000.example.com"], secretName: "app-00000-tls" },
          { hosts: ["b.example.com"], secretName: "b-tls" },
        ],
        certificates: [
          certificate({
            secretName: "app-00000-tls",
            source: "cert_manager",
            subjectNames: ["app-00000.team-000.example.com"],
            notBefore: new Date(NOW - 85 * DAY_MS).toISOString(),
            notAfter: new Date(NOW + 5 * DAY_MS).toISOString(),
            issuer: null,
            missingHosts: ["*.team-000.example.com"],
          }),
          certificate({ secretName: "b-tls", source: "not_read", notAfter: null, notBefore: null, issuer: null, error: "Secrets are not read (certificates.read_secrets is off)" }),
        ],
      }),
    );
    const section = within(panel).getByTestId("details-certificates");
    const first = section.querySelector<HTMLElement>('[data-secret="app-00000-tls"]');
    if (!first) throw new Error("no entry for app-00000-tls");
    const text = first.textContent ?? "";
    expect(text).toContain("cert-manager Certificate");
    expect(text).toContain("app-00000.team-000.example.com");
    expect(text).toContain("(85d ago)");
    expect(text).toContain("(in 5d)");
    expect(within(first).getByText("Expires within 14 days")).toBeTruthy();
    expect(within(first).getByTestId("missing-hosts").textContent).toContain("*.team-000.example.com is not covered by this certificate");

    const second = section.querySelector<HTMLElement>('[data-secret="b-tls"]');
    expect(second?.textContent).toContain("not read");
    expect(second?.textContent).toContain("certificates.read_secrets is off");
    expect(second?.textContent).not.toContain("Not after");
  });

  it("an expired certificate says so in words", () => {
    const panel = show(
      ingress({
        name: "old",
        tls: [{ hosts: ["old.example.com"], secretName: "old-tls" }],
        certificates: [certificate({ secretName: "old-tls", notAfter: new Date(NOW - 2 * DAY_MS).toISOString(), subjectNames: ["old.example.com"] })],
      }),
    );
    expect(within(panel).getByText("Expired")).toBeTruthy();
    expect(panel.textContent).toContain("(2d ago)");
  });

  it("an HTTPRoute shows its parents, conditions with reason and message, and rules with matches and backend refs", () => {
    const panel = show(
      httpRoute({
        name: "checkout",
        namespace: "team-000",
        conditions: [
          condition("Accepted", "True", "Accepted", "Route is accepted"),
          condition("ResolvedRefs", "False", "BackendNotFound", "backendRef checkout-v2 names no Service"),
        ],
        route: {
          parentRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", namespace: "gateway-system", name: "public", sectionName: "https", port: null }],
          conditions: [
            condition("Accepted", "True", "Accepted", "Route is accepted"),
            condition("ResolvedRefs", "False", "BackendNotFound", "backendRef checkout-v2 names no Service"),
          ],
          rules: [
            {
              matches: ["PathPrefix /api", "GET", "header x-env=canary"],
              backendRefs: [
                { kind: "Service", name: "checkout", namespace: "team-000", port: 8080, weight: 90 },
                { kind: "Service", name: "checkout-v2", namespace: "team-000", port: 8080, weight: 10 },
              ],
            },
          ],
          diagnosis: [],
        },
        backends: [backend({ service: "checkout-v2", namespace: "team-000", port: 8080, state: "missing_service", readyEndpoints: 0, totalEndpoints: 0 })],
      }),
    );
    expect(panel.getAttribute("aria-label")).toBe("HTTPRoute team-000/checkout");
    expect(within(panel).getByText("kubectl -n team-000 get httproute checkout -o yaml")).toBeTruthy();
    expect(within(panel).getByTestId("details-parents").textContent).toContain("gateway-system/public/https");

    const problem = within(panel).getByTestId("details-conditions").querySelector<HTMLElement>('[data-condition="ResolvedRefs"]');
    expect(problem?.className).toBe("condition-problem");
    expect(problem?.textContent).toContain("False");
    expect(problem?.textContent).toContain("BackendNotFound");
    expect(problem?.textContent).toContain("backendRef checkout-v2 names no Service");

    const rules = within(panel).getByTestId("details-route-rules").textContent ?? "";
    expect(rules).toContain("PathPrefix /api · GET · header x-env=canary");
    expect(rules).toContain("→ checkout:8080 (weight 90)");
    expect(rules).toContain("→ checkout-v2:8080 (weight 10)");
    expect(within(panel).getByTestId("details-backends").textContent).toContain("service missing");
    // Ingress-only parts are not shown.
    expect(within(panel).queryByTestId("details-certificates")).toBeNull();
    expect(panel.textContent).not.toContain("Address");
  });

  it("says why an HTTPRoute does not work, as text, and nothing when all is well", () => {
    const healthy = show(httpRoute({ name: "storefront" }));
    expect(within(healthy).queryByTestId("details-diagnosis")).toBeNull();
    cleanup();

    const base = httpRoute({ name: "checkout", namespace: "team-000" });
    const panel = show({
      ...base,
      route: {
        ...base.route!,
        diagnosis: [
          {
            parent: "gateway-system/public/https",
            severity: "error",
            code: "never_attached",
            message: "Never attached: no controller has reported on this parent.",
          },
          {
            parent: "gateway-system/public",
            severity: "error",
            code: "refs_not_resolved",
            message: "ResolvedRefs: a backend does not exist (reason BackendNotFound). The controller says: <img src=x onerror=alert(1)>",
          },
          { parent: null, severity: "warning", code: "not_accepted", message: "Accepted: the controller has not decided yet" },
        ],
      },
    });
    const section = within(panel).getByTestId("details-diagnosis");
    expect(within(section).getByRole("heading").textContent).toBe("Why it does not work");
    const items = [...section.querySelectorAll("li")].map((item) => item as HTMLElement);
    expect(items).toHaveLength(3);
    const [first, second, third] = items as [HTMLElement, HTMLElement, HTMLElement];
    expect(first.getAttribute("data-finding")).toBe("never_attached");
    expect(first.textContent).toContain("Never attached");
    expect(first.textContent).toContain("gateway-system/public/https");
    expect(first.querySelector(".badge-danger")).not.toBeNull();
    expect(third.querySelector(".badge-warn")).not.toBeNull();
    // A controller's message is text: no element is made from it.
    expect(section.querySelector("img")).toBeNull();
    expect(second.textContent).toContain("<img src=x onerror=alert(1)>");
  });

  it("adds a cross-namespace backendRef without a ReferenceGrant, read when the panel opens", async () => {
    const fetched = stubFetch((url) =>
      url.endsWith("/diagnosis")
        ? jsonResponse({
            findings: [
              { severity: "error", code: "cross_namespace_without_grant", message: "Service shared/api is in another namespace and no ReferenceGrant in shared allows HTTPRoutes from team-000 to refer to it" },
              { parent: "gateway-system/public", severity: "error", code: "never_attached", message: "already in the record" },
            ],
            notRead: [{ namespace: "hidden", reason: "not a namespace this dashboard shows you" }],
          })
        : undefined,
    );
    const base = httpRoute({ name: "cross", namespace: "team-000" });
    const panel = show({
      ...base,
      route: {
        ...base.route!,
        rules: [{ matches: [], backendRefs: [{ kind: "Service", name: "api", namespace: "shared", port: 80, weight: 1 }] }],
      },
    });
    const item = await within(panel).findByText(/no ReferenceGrant in shared/);
    expect(item.closest("li")?.getAttribute("data-finding")).toBe("cross_namespace_without_grant");
    expect(fetched).toContain("/api/objects/httproutes/team-000/cross/diagnosis");
    const section = within(panel).getByTestId("details-diagnosis");
    // Only the grant findings are taken from the answer: the rest is the record's.
    expect(section.querySelectorAll("li")).toHaveLength(1);
    expect(within(section).getByTestId("diagnosis-note").textContent).toBe(
      "ReferenceGrants of hidden not checked: not a namespace this dashboard shows you",
    );
  });

  it("reads a GRPCRoute's ReferenceGrants at its own kind's path", async () => {
    const fetched = stubFetch((url) =>
      url.endsWith("/diagnosis")
        ? jsonResponse({
            findings: [{ severity: "error", code: "cross_namespace_without_grant", message: "no ReferenceGrant in shared allows GRPCRoutes from team-000 to refer to it" }],
            notRead: [],
          })
        : undefined,
    );
    const base = httpRoute({ name: "cart", namespace: "team-000" });
    const panel = show({
      ...base,
      kind: "GRPCRoute",
      route: {
        ...base.route!,
        rules: [{ matches: [], backendRefs: [{ kind: "Service", name: "api", namespace: "shared", port: 80, weight: 1 }] }],
      },
    });
    await within(panel).findByText(/allows GRPCRoutes from team-000/);
    expect(fetched).toContain("/api/objects/grpcroutes/team-000/cart/diagnosis");
  });

  it("does not ask for ReferenceGrants when every backendRef stays in the route's namespace", () => {
    const urls = stubFetch();
    show(httpRoute({ name: "local", namespace: "team-000" }));
    expect(urls.some((url) => url.endsWith("/diagnosis"))).toBe(false);
  });

  it("explains an ingress's annotations, and not an HTTPRoute's", async () => {
    const panel = show(ingress({ name: "web", namespace: "team-a", annotations: { "nginx.ingress.kubernetes.io/rewrite-target": "/" } }));
    // The stub answers 404: the section says so.
    await within(within(panel).getByTestId("annotation-explainer")).findByRole("alert");
    expect(vi.mocked(fetch).mock.calls.map(([url]) => String(url))).toContain("/api/objects/ingresses/team-a/web/annotations");
    cleanup();
    const route = show(httpRoute({ name: "checkout", namespace: "team-a", annotations: { "example.com/owner": "shop" } }));
    expect(within(route).queryByTestId("annotation-explainer")).toBeNull();
    cleanup();
    const plain = show(ingress({ name: "plain", namespace: "team-a", annotations: {} }));
    expect(within(plain).queryByTestId("annotation-explainer")).toBeNull();
  });
});
