import { describe, expect, it } from "vitest";
import { ingress } from "../test/fixtures";
import { compileFilter, distinctClasses, emptyFilters, filterAndSort, NO_CLASS, type Filters, type SortOrder } from "./filters";

const shopWeb = ingress({
  name: "web",
  namespace: "shop",
  hosts: ["shop.example.com"],
  rules: [
    { host: "shop.example.com", paths: [{ path: "/checkout", pathType: "Prefix", backend: { service: { name: "checkout", port: 8080 } } }] },
  ],
  tls: [{ hosts: ["shop.example.com"], secretName: "shop-tls" }],
  labels: { app: "web", team: "payments" },
  createdAt: "2026-01-03T00:00:00Z",
  addresses: ["10.0.0.9"],
});
const opsGrafana = ingress({
  name: "grafana",
  namespace: "ops",
  ingressClassName: "traefik",
  labels: { app: "grafana" },
  createdAt: "2026-01-01T00:00:00Z",
  addresses: [],
});
const legacy = ingress({ name: "legacy-10", namespace: "old", ingressClassName: null, createdAt: "2026-01-02T00:00:00Z" });
const legacy2 = ingress({ name: "legacy-2", namespace: "old", ingressClassName: null, createdAt: "2026-01-02T00:00:00Z" });
const all = [shopWeb, opsGrafana, legacy, legacy2];

function names(filters: Partial<Filters>, sort: SortOrder = { key: "name", descending: false }): string[] {
  return filterAndSort(all, compileFilter({ ...emptyFilters, ...filters }), sort).map((r) => r.name);
}

describe("filters", () => {
  it("no filter shows everything", () => {
    expect(names({})).toHaveLength(4);
  });

  it("search looks at name, namespace, host and path, case-insensitively", () => {
    expect(names({ search: "GRAF" })).toEqual(["grafana"]);
    expect(names({ search: "ops" })).toEqual(["grafana"]);
    expect(names({ search: "shop.example" })).toEqual(["web"]);
    expect(names({ search: "/checkout" })).toEqual(["web"]);
  });

  it("search words must all match", () => {
    expect(names({ search: "shop checkout" })).toEqual(["web"]);
    expect(names({ search: "shop grafana" })).toEqual([]);
  });

  it("search does not look at labels or backends", () => {
    expect(names({ search: "payments" })).toEqual([]);
  });

  it("namespaces narrow to the chosen ones", () => {
    expect(names({ namespaces: ["ops", "old"] })).toEqual(["grafana", "legacy-2", "legacy-10"]);
  });

  it("class filter, with a choice for ingresses without a class", () => {
    expect(names({ classes: ["traefik"] })).toEqual(["grafana"]);
    expect(names({ classes: [NO_CLASS] })).toEqual(["legacy-2", "legacy-10"]);
    expect(names({ classes: ["nginx", NO_CLASS] })).toEqual(["legacy-2", "legacy-10", "web"]);
  });

  it("TLS filter", () => {
    expect(names({ tls: "tls" })).toEqual(["web"]);
    expect(names({ tls: "plain" })).toEqual(["grafana", "legacy-2", "legacy-10"]);
  });

  it("label selector filter", () => {
    expect(names({ labels: "app=web" })).toEqual(["web"]);
    expect(names({ labels: "app" })).toEqual(["grafana", "web"]);
    expect(names({ labels: "!app" })).toEqual(["legacy-2", "legacy-10"]);
  });

  it("an invalid label selector is reported and ignored", () => {
    const filter = compileFilter({ ...emptyFilters, labels: "app=(" });
    expect(filter.labelError).toMatch(/not a valid/);
    expect(filterAndSort(all, filter, { key: "name", descending: false })).toHaveLength(4);
  });

  it("filters combine", () => {
    expect(names({ namespaces: ["shop", "ops"], tls: "plain" })).toEqual(["grafana"]);
  });
});

describe("sorting", () => {
  it("names sort naturally (2 before 10)", () => {
    expect(names({})).toEqual(["grafana", "legacy-2", "legacy-10", "web"]);
  });

  it("descending reverses", () => {
    expect(names({}, { key: "name", descending: true })).toEqual(["web", "legacy-10", "legacy-2", "grafana"]);
  });

  it("by namespace, ties broken by name", () => {
    expect(names({}, { key: "namespace", descending: false })).toEqual(["legacy-2", "legacy-10", "grafana", "web"]);
  });

  it("by age: youngest first ascending, as kubectl's AGE column grows", () => {
    expect(names({}, { key: "age", descending: false })).toEqual(["web", "legacy-2", "legacy-10", "grafana"]);
  });

  it("by TLS, class, hosts, paths and address", () => {
    expect(names({}, { key: "tls", descending: true })[0]).toBe("web");
    expect(names({}, { key: "class", descending: true })[0]).toBe("grafana");
    expect(names({}, { key: "hosts", descending: true })[0]).toBe("web");
    expect(names({}, { key: "paths", descending: true })[0]).toBe("web");
    expect(names({}, { key: "address", descending: false })[0]).toBe("grafana");
  });

  it("lists distinct classes, no class last", () => {
    expect(distinctClasses(all)).toEqual(["nginx", "traefik", NO_CLASS]);
  });
});
