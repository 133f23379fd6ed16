// @vitest-environment jsdom
// The Migration page against a stubbed fetch (the server's answers in their wire shape).
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { migrationUrl } from "../api/migration";
import type { MigrationCounts, MigrationReport } from "../api/wire";
import { jsonResponse, stubFetch } from "../test/fetch";
import { MigrationPage, parseMigrationNamespaces } from "./MigrationPage";

function counts(overrides: Partial<MigrationCounts>): MigrationCounts {
  return {
    ingresses: 0,
    ingressesWithAnnotations: 0,
    annotations: 0,
    gatewayApi: 0,
    implementationSpecific: 0,
    noEquivalent: 0,
    unknown: 0,
    invalid: 0,
    ignored: 0,
    ...overrides,
  };
}

const REPORT: MigrationReport = {
  catalogueVersion: "ingress-nginx@2026.11.1",
  classesNote: null,
  totals: counts({ ingresses: 3, ingressesWithAnnotations: 2, annotations: 3, gatewayApi: 2, noEquivalent: 1 }),
  namespaces: [
    { namespace: "team-a", counts: counts({ ingresses: 2, ingressesWithAnnotations: 1, annotations: 2, gatewayApi: 1, noEquivalent: 1 }) },
    { namespace: "team-b", counts: counts({ ingresses: 1, ingressesWithAnnotations: 1, annotations: 1, gatewayApi: 1 }) },
  ],
  annotations: [
    {
      key: "nginx.ingress.kubernetes.io/rewrite-target",
      controller: "ingress-nginx",
      support: "gateway_api",
      gatewayApi: "HTTPRoute URLRewrite filter",
      source: "https://kubernetes.github.io/ingress-nginx/user-guide/nginx-configuration/annotations/#rewrite",
      ingresses: 2,
      namespaces: ["team-a", "team-b"],
      invalid: 0,
    },
    {
      key: "nginx.ingress.kubernetes.io/server-snippet",
      controller: "ingress-nginx",
      support: "no_equivalent",
      gatewayApi: "none",
      source: null,
      ingresses: 1,
      namespaces: ["team-a"],
      invalid: 0,
    },
  ],
  ingresses: [
    {
      namespace: "team-a",
      name: "web",
      ingressClassName: "nginx",
      controller: "k8s.io/ingress-nginx",
      annotations: [
        { key: "nginx.ingress.kubernetes.io/rewrite-target", value: "/", support: "gateway_api", validity: "not_checked", warnings: [] },
        { key: "nginx.ingress.kubernetes.io/server-snippet", value: "<redacted>", support: "no_equivalent", validity: "not_checked", warnings: ["snippet"] },
      ],
    },
  ],
  errors: [{ namespace: "team-c", code: "kubernetes_forbidden", message: "The service account may not list ingresses in team-c." }],
};

let calls: string[];

beforeEach(() => {
  calls = stubFetch((url) => jsonResponse(url.startsWith("/api/namespaces") ? { namespaces: ["team-a", "team-b"] } : REPORT));
  window.history.replaceState(null, "", "/?view=migration&namespaces=team-a,team-b,Bad_Name");
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("MigrationPage", () => {
  it("shows the totals per namespace and per annotation for the namespaces in the URL", async () => {
    render(<MigrationPage />);
    const rows = await screen.findAllByTestId("migration-namespace-row");
    expect(calls).toContain("/api/migration?namespaces=team-a%2Cteam-b");
    expect(rows.map((row) => within(row).getAllByRole("cell").map((cell) => cell.textContent))).toEqual([
      ["team-a", "2", "1", "2", "1", "0", "1", "0", "0", "0"],
      ["team-b", "1", "1", "1", "1", "0", "0", "0", "0", "0"],
    ]);
    const [rewrite, snippet] = screen.getAllByTestId("migration-annotation-row") as [HTMLElement, HTMLElement];
    expect(within(rewrite).getByRole("link").textContent).toBe("nginx.ingress.kubernetes.io/rewrite-target");
    expect(snippet.textContent).toContain("No equivalent");
    expect(screen.getByTestId("migration-summary").textContent).toContain("3 controller annotations on 2 of 3 ingresses");
    expect(screen.getByRole("alert").textContent).toContain("team-c");
  });

  it("lists each ingress with its controller annotations, their classification and warnings", async () => {
    render(<MigrationPage />);
    const [web] = (await screen.findAllByTestId("migration-ingress-row")) as [HTMLElement];
    const cells = within(web).getAllByRole("cell").map((cell) => cell.textContent);
    expect(cells.slice(0, 3)).toEqual(["team-a/web", "nginx", "k8s.io/ingress-nginx"]);
    expect(cells[3]).toContain("nginx.ingress.kubernetes.io/server-snippet No equivalent (snippet)");
    expect(screen.queryByTestId("migration-ingresses-more")).toBeNull();
  });

  it("offers CSV and JSON exports of the same selection", async () => {
    render(<MigrationPage />);
    await screen.findAllByTestId("migration-namespace-row");
    expect(screen.getByTestId("export-csv").getAttribute("href")).toBe("/api/migration?namespaces=team-a%2Cteam-b&format=csv");
    expect(screen.getByTestId("export-json").getAttribute("href")).toBe("/api/migration?namespaces=team-a%2Cteam-b");
    expect(window.location.search).toBe("?view=migration&namespaces=team-a,team-b");
  });

  it("keeps only namespace names from a pasted URL", () => {
    expect(parseMigrationNamespaces("?namespaces=a,a,B,-x,ok-1")).toEqual(["a", "ok-1"]);
    expect(migrationUrl([], "csv")).toBe("/api/migration?format=csv");
    expect(migrationUrl([], "json")).toBe("/api/migration");
  });
});
