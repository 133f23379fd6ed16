// @vitest-environment jsdom
// The Hosts page against a stubbed fetch (the server's answer in its wire shape).
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { HostsReport } from "../api/wire";
import { jsonResponse, stubFetch } from "../test/fetch";
import { HostsPage } from "./HostsPage";

const REPORT: HostsReport = {
  hosts: [
    {
      host: "shop.example.com",
      objects: [
        { kind: "Ingress", namespace: "shop", name: "web", key: "shop/web", listeners: [], attachments: [] },
        {
          kind: "HTTPRoute",
          namespace: "shop",
          name: "web-v2",
          key: "httproute/shop/web-v2",
          listeners: ["gateway-system/public/https", "gateway-system/private"],
          attachments: [
            {
              gatewayNamespace: "gateway-system",
              gateway: "public",
              sectionName: "https",
              port: null,
              listeners: [{ name: "https", hostname: "*.example.com", port: 443, protocol: "HTTPS", tlsMode: "Terminate", certificateRefs: ["gateway-system/wildcard-tls"], note: "namespace selector not checked" }],
              problem: null,
            },
            { gatewayNamespace: "gateway-system", gateway: "private", sectionName: null, port: null, listeners: [], problem: "no such Gateway: gateway-system/private does not exist" },
          ],
        },
      ],
      paths: [
        { matched: "PathPrefix /api", object: "shop/web", backends: [{ kind: "Service", namespace: "shop", name: "api", port: 80, weight: null, state: "degraded", readyEndpoints: 1, totalEndpoints: 3 }] },
        { matched: "PathPrefix /api", object: "httproute/shop/web-v2", backends: [] },
      ],
      tls: [
        { namespace: "shop", secretName: "shop-tls", object: "shop/web", source: "cert_manager", notAfter: "2999-01-01T00:00:00Z", certManagerReady: true, error: null, listener: null },
        { namespace: "gateway-system", secretName: "public-tls", object: "httproute/shop/web-v2", source: "not_read", notAfter: null, certManagerReady: null, error: null, listener: "gateway-system/public/https" },
      ],
      conflict: true,
      tlsOverlap: false,
      duplicate: false,
      conflicts: [{ matched: "PathPrefix /api", objects: ["httproute/shop/web-v2", "shop/web"] }],
      duplicates: [],
    },
    {
      host: "quiet.example.com",
      objects: [{ kind: "Ingress", namespace: "shop", name: "quiet", key: "shop/quiet", listeners: [], attachments: [] }],
      paths: [],
      tls: [],
      conflict: false,
      tlsOverlap: false,
      duplicate: false,
      conflicts: [],
      duplicates: [],
    },
  ],
  counts: { hosts: 2, conflicts: 1, tlsOverlaps: 0, duplicates: 0 },
  truncated: false,
  errors: [],
};

describe("HostsPage", () => {
  let calls: string[];
  beforeEach(() => {
    window.history.replaceState(null, "", "/?view=hosts&namespaces=shop");
    calls = stubFetch((url) => (url.startsWith("/api/hosts") ? jsonResponse(REPORT) : jsonResponse({ namespaces: ["shop"] })));
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("shows one row per host with its flags and expands to the objects, paths and TLS", async () => {
    render(<HostsPage />);
    const rows = await screen.findAllByTestId("host-row");
    expect(rows.map((r) => r.getAttribute("data-host"))).toEqual(["shop.example.com", "quiet.example.com"]);
    const [shop, quiet] = rows as [HTMLElement, HTMLElement];
    expect(calls).toContain("/api/hosts?namespaces=shop");
    expect(within(shop).getByTestId("host-flags").textContent).toBe("Conflict");
    expect(within(quiet).getByTestId("host-flags").textContent).toBe("");
    expect(screen.getByTestId("hosts-summary").textContent).toContain("2 hosts: 1 with a conflict");

    fireEvent.click(shop);
    const detail = await screen.findByTestId("host-detail");
    expect(within(detail).getByTestId("host-conflicts").textContent).toContain("claimed by shop/web-v2 (HTTPRoute), shop/web");
    const route = within(detail).getByRole("link", { name: "shop/web-v2" });
    expect(route.getAttribute("href")).toBe("./?namespaces=shop&route=shop/web-v2");
    const attachments = within(detail).getAllByTestId("host-attachments")[0]!.querySelectorAll("li");
    expect([...attachments].map((li) => li.textContent)).toEqual([
      "via listener gateway-system/public/https: https HTTPS :443 *.example.com TLS Terminate (gateway-system/wildcard-tls) [namespace selector not checked]",
      "via listener gateway-system/private: no such Gateway: gateway-system/private does not exist",
    ]);
    expect(attachments[1]!.className).toBe("explained-warning");
    expect(within(detail).getByTestId("host-paths").textContent).toContain("api:80 1/3 ready");
    expect(within(detail).getByTestId("host-tls").textContent).toContain("cert-manager Ready");
    // A listener's certificate says which listener names it.
    expect(within(detail).getByTestId("host-tls").textContent).toContain(
      "Secret gateway-system/public-tls (shop/web-v2 (HTTPRoute)) via listener gateway-system/public/https",
    );
    expect(window.location.search).toContain("host=shop.example.com");
  });

  it("asks the server for flagged hosts only when the box is ticked", async () => {
    render(<HostsPage />);
    await screen.findAllByTestId("host-row");
    fireEvent.click(screen.getByTestId("hosts-flagged"));
    await vi.waitFor(() => expect(calls).toContain("/api/hosts?namespaces=shop&flagged=true"));
    expect(window.location.search).toContain("flagged=1");
  });
});
