import { describe, expect, it } from "vitest";
import { backend, certificate, condition, httpRoute, ingress } from "../test/fixtures";
import { compileFilter, distinctClasses, emptyFilters, filterAndSort, narrowsRows, NO_CLASS, type Filters, type SortOrder } from "./filters";
import { DAY_MS } from "./health";
import type { IngressRecord } from "../api/wire";

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
    // Without known expiries: TLS before plain ingresses, ascending.
    expect(names({}, { key: "tls", descending: false })[0]).toBe("web");
    expect(names({}, { key: "class", descending: true })[0]).toBe("grafana");
    expect(names({}, { key: "hosts", descending: true })[0]).toBe("web");
    expect(names({}, { key: "paths", descending: true })[0]).toBe("web");
    expect(names({}, { key: "address", descending: false })[0]).toBe("grafana");
  });

  it("lists distinct classes, no class last", () => {
    expect(distinctClasses(all)).toEqual(["nginx", "traefik", NO_CLASS]);
  });
});

const NOW = Date.parse("2026-03-01T12:00:00Z");
const at = (days: number) => new Date(NOW + days * DAY_MS).toISOString();

const broken = ingress({
  name: "broken",
  namespace: "shop",
  backends: [backend({ service: "broken", namespace: "shop", state: "no_ready_endpoints", readyEndpoints: 0, totalEndpoints: 3 })],
});
const missing = ingress({
  name: "missing",
  namespace: "shop",
  backends: [backend({ service: "ok", namespace: "shop" }), backend({ service: "gone", namespace: "shop", state: "missing_service", readyEndpoints: 0, totalEndpoints: 0 })],
});
const degraded = ingress({
  name: "degraded",
  namespace: "shop",
  backends: [backend({ service: "degraded", namespace: "shop", state: "degraded", readyEndpoints: 1, totalEndpoints: 3 })],
});
const unknownBackends = ingress({ name: "unknown", namespace: "shop", backends: [backend({ service: "u", state: "unknown", readyEndpoints: 0, totalEndpoints: 0 })] });
const healthy = ingress({ name: "healthy", namespace: "shop", backends: [backend({ service: "healthy", namespace: "shop" })] });
const expiring = (name: string, days: number) =>
  ingress({ name, tls: [{ hosts: [`${name}.example.com`], secretName: `${name}-tls` }], certificates: [certificate({ secretName: `${name}-tls`, notAfter: at(days) })] });
const storefront = httpRoute({ name: "storefront", namespace: "team-000" });
const checkout = httpRoute({
  name: "checkout",
  namespace: "team-000",
  conditions: [condition("Accepted", "True", "Accepted"), condition("ResolvedRefs", "False", "BackendNotFound", "checkout-v2 not found")],
});

function pick(records: ReturnType<typeof ingress>[], filters: Partial<Filters>, now = NOW): string[] {
  return filterAndSort(records, compileFilter({ ...emptyFilters, ...filters }, now), { key: "name", descending: false }).map((r) => r.name);
}

describe("kind filter", () => {
  const mixed = [shopWeb, opsGrafana, storefront, checkout];
  it("shows ingresses or HTTPRoutes alone", () => {
    expect(pick(mixed, { kind: "HTTPRoute" })).toEqual(["checkout", "storefront"]);
    expect(pick(mixed, { kind: "Ingress" })).toEqual(["grafana", "web"]);
    expect(pick(mixed, { kind: "any" })).toHaveLength(4);
  });

  it("sorts by kind, and offers no class for HTTPRoutes (they have parent gateways)", () => {
    expect(filterAndSort(mixed, compileFilter(emptyFilters), { key: "kind", descending: false }).map((r) => r.name)).toEqual([
      "checkout",
      "storefront",
      "grafana",
      "web",
    ]);
    expect(distinctClasses(mixed)).toEqual(["nginx", "traefik"]);
  });
});

describe("backend filter", () => {
  const records = [broken, missing, degraded, unknownBackends, healthy, shopWeb];
  it("no ready endpoints: backends with none ready, missing Services included", () => {
    expect(pick(records, { backends: "no_ready_endpoints" })).toEqual(["broken", "missing"]);
  });

  it("not fully ready adds degraded backends; unknown (unreadable) is no finding", () => {
    expect(pick(records, { backends: "not_fully_ready" })).toEqual(["broken", "degraded", "missing"]);
  });

  it("status sort puts the worst first", () => {
    const sorted = filterAndSort(records, compileFilter(emptyFilters), { key: "status", descending: false }).map((r) => r.name);
    expect(sorted.slice(0, 3)).toEqual(["missing", "broken", "degraded"]);
  });
});

describe("expiry filter", () => {
  const records = [expiring("five", 5), expiring("seven", 7), expiring("eight", 8), expiring("expired", -2), shopWeb, opsGrafana];

  it("finds certificates expiring within N days, expired ones included", () => {
    expect(pick(records, { expiresWithinDays: 7 })).toEqual(["expired", "five", "seven"]);
    expect(pick(records, { expiresWithinDays: 30 })).toEqual(["eight", "expired", "five", "seven"]);
    expect(pick(records, { expiresWithinDays: 0 })).toEqual(["expired"]);
  });

  it("the boundary is inclusive to the millisecond", () => {
    const exactly = [expiring("seven", 7)];
    expect(pick(exactly, { expiresWithinDays: 7 }, NOW)).toEqual(["seven"]);
    expect(pick(exactly, { expiresWithinDays: 7 }, NOW - 1)).toEqual([]);
    expect(pick(exactly, { expiresWithinDays: 6 }, NOW)).toEqual([]);
  });

  it("ignores TLS entries whose certificate is not known", () => {
    const notRead = ingress({
      name: "not-read",
      tls: [{ hosts: ["a.example.com"], secretName: "a-tls" }],
      certificates: [certificate({ secretName: "a-tls", source: "not_read", notAfter: null, notBefore: null, error: "Secrets are not read" })],
    });
    expect(pick([notRead], { expiresWithinDays: 3650 })).toEqual([]);
  });

  it("the TLS column sorts the soonest expiry first", () => {
    expect(filterAndSort(records, compileFilter(emptyFilters), { key: "tls", descending: false }).map((r) => r.name).slice(0, 4)).toEqual([
      "expired",
      "five",
      "seven",
      "eight",
    ]);
  });

  it("combines with the other filters, and counts as narrowing", () => {
    expect(pick([...records, broken], { expiresWithinDays: 7, search: "fi" })).toEqual(["five"]);
    expect(narrowsRows({ ...emptyFilters, expiresWithinDays: 7 })).toBe(true);
    expect(narrowsRows({ ...emptyFilters, namespaces: ["a"] })).toBe(false);
  });
});

describe("filterAndSort at scale", () => {
  // The collator-only order the table had before collate.ts's fast path.
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  const reference = (records: IngressRecord[], key: (r: IngressRecord) => string, descending: boolean) =>
    [...records].sort(
      (a, b) =>
        (descending ? -1 : 1) * collator.compare(key(a), key(b)) ||
        collator.compare(a.namespace, b.namespace) ||
        collator.compare(a.name, b.name),
    );

  it("gives the collator's order for 3,000 shuffled rows by name, namespace, class, hosts and address", () => {
    const records: IngressRecord[] = [];
    for (let i = 0; i < 3_000; i++) {
      const n = (i * 7_919) % 3_000;
      records.push(
        ingress({
          name: n % 7 === 0 ? `App-${n}` : `app-${n % 3 === 0 ? String(n).padStart(5, "0") : n}${n % 5 === 0 ? ".v2" : ""}`,
          namespace: `team-${n % 41}`,
          ingressClassName: [null, "nginx", "nginx-2", "nginx-10", "Traefik"][n % 5] ?? null,
          hosts: n % 11 === 0 ? [`*.w${n}.example.com`] : [`w${n}.example.com`],
          addresses: n % 13 === 0 ? [] : [`10.${n % 3}.${n % 256}.${n % 17}`],
        }),
      );
    }
    const keys: [SortOrder["key"], (r: IngressRecord) => string][] = [
      ["name", (r) => r.name],
      ["namespace", (r) => r.namespace],
      ["class", (r) => r.ingressClassName ?? ""],
      ["hosts", (r) => r.hosts[0] ?? ""],
      ["address", (r) => r.addresses[0] ?? ""],
    ];
    for (const [key, value] of keys)
      for (const descending of [false, true]) {
        const got = filterAndSort(records, compileFilter(emptyFilters), { key, descending }).map((r) => r.uid);
        expect(got, `${key} ${descending ? "descending" : "ascending"}`).toEqual(reference(records, value, descending).map((r) => r.uid));
      }
  });
});
