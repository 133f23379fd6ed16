import { describe, expect, it } from "vitest";
import { backend, certificate, condition, httpRoute, ingress } from "../test/fixtures";
import { describeBackend, formatAge, formatRelative, recordKey, routesSummary, rowBadges } from "./describe";
import { DAY_MS, recordHealth, summariseRoute } from "./health";

describe("describe", () => {
  const created = "2026-01-01T00:00:00Z";
  const at = (seconds: number) => Date.parse(created) + seconds * 1000;

  it("formats ages as kubectl does", () => {
    expect(formatAge(created, at(45))).toBe("45s");
    expect(formatAge(created, at(5 * 60 + 12))).toBe("5m12s");
    expect(formatAge(created, at(37 * 60))).toBe("37m");
    expect(formatAge(created, at(4 * 3600 + 12 * 60))).toBe("4h12m");
    expect(formatAge(created, at(19 * 3600))).toBe("19h");
    expect(formatAge(created, at(5 * 60))).toBe("5m");
    expect(formatAge(created, at(4 * 3600))).toBe("4h");
    expect(formatAge(created, at(3 * 86400))).toBe("3d");
    expect(formatAge(created, at(3 * 86400 + 4 * 3600))).toBe("3d4h");
    expect(formatAge(created, at(210 * 86400))).toBe("210d");
    expect(formatAge(created, at(800 * 86400))).toBe("2y70d");
    expect(formatAge("not a date", at(1))).toBe("?");
  });

  it("describes service and resource backends", () => {
    expect(describeBackend({ service: { name: "web", port: "http" } })).toBe("web:http");
    expect(describeBackend({ resource: { apiGroup: "k8s.example.com", kind: "StorageBucket", name: "static" } })).toBe(
      "k8s.example.com/StorageBucket/static",
    );
  });

  it("summarises paths and the default backend", () => {
    const record = ingress({
      name: "web",
      rules: [
        {
          host: "a.example.com",
          paths: [
            { path: "/api", pathType: "Prefix", backend: { service: { name: "api", port: 80 } } },
            { path: null, pathType: "ImplementationSpecific", backend: { service: { name: "web", port: "http" } } },
          ],
        },
      ],
      defaultBackend: { service: { name: "fallback", port: 80 } },
    });
    expect(routesSummary(record)).toBe("/api → api:80, / → web:http, * → fallback:80");
  });
});

const NOW = Date.parse("2026-03-01T12:00:00Z");
const inDays = (days: number) => new Date(NOW + days * DAY_MS).toISOString();
const tlsIngress = (notAfter: string, missingHosts: string[] = []) =>
  ingress({
    name: "app-00000",
    namespace: "team-000",
    tls: [{ hosts: ["app-00000.team-000.example.com"], secretName: "app-00000-tls" }],
    certificates: [certificate({ secretName: "app-00000-tls", notAfter, missingHosts })],
  });

describe("row badges", () => {
  it("a healthy ingress has none", () => {
    expect(rowBadges(ingress({ name: "ok", backends: [backend({ service: "ok" })] }), NOW, 14)).toEqual([]);
  });

  it("backends: the count and the worst state as text, the services in the detail", () => {
    const record = ingress({
      name: "app-00002",
      namespace: "team-000",
      backends: [
        backend({ service: "app-00002", namespace: "team-000", state: "degraded", readyEndpoints: 1, totalEndpoints: 3 }),
        backend({ service: "app-00002-api", namespace: "team-000", port: "http", state: "missing_service", readyEndpoints: 0, totalEndpoints: 0 }),
        backend({ service: "fine", namespace: "team-000" }),
      ],
    });
    const [badge] = rowBadges(record, NOW, 14);
    expect(badge).toMatchObject({ kind: "backend", tone: "danger", text: "Service missing (2)" });
    expect(badge?.detail).toBe(
      "2 backends not ready: app-00002-api:http (service missing), app-00002:80 (degraded, 1/3 endpoints ready)",
    );
    const single = ingress({
      name: "app-00001",
      backends: [backend({ service: "app-00001", state: "no_ready_endpoints", readyEndpoints: 0, totalEndpoints: 2 })],
    });
    expect(rowBadges(single, NOW, 14)[0]).toMatchObject({ text: "No ready endpoints", detail: "1 backend not ready: app-00001:80 (no ready endpoints, 0/2 endpoints ready)" });
  });

  it("unknown backends (unreadable) raise no badge", () => {
    expect(rowBadges(ingress({ name: "u", backends: [backend({ service: "u", state: "unknown" })] }), NOW, 14)).toEqual([]);
  });

  it("certificates: expiring within the warning days, expired, and hosts not covered", () => {
    const soon = rowBadges(tlsIngress(inDays(5), ["*.team-000.example.com"]), NOW, 14);
    expect(soon.map((b) => [b.kind, b.tone, b.text])).toEqual([
      ["certificate", "warn", "Cert expires in 5d"],
      ["hosts", "warn", "Host not covered"],
    ]);
    expect(soon[1]?.detail).toBe("*.team-000.example.com not covered by the certificate in app-00000-tls");
    // The warning days are the server's: 5 days left is no warning with 3.
    expect(rowBadges(tlsIngress(inDays(5)), NOW, 3)).toEqual([]);
    expect(rowBadges(tlsIngress(inDays(14)), NOW, 14)[0]?.text).toBe("Cert expires in 14d");
    expect(rowBadges(tlsIngress(inDays(14)), NOW - 1, 14)).toEqual([]);
    expect(rowBadges(tlsIngress(inDays(-1)), NOW, 14)[0]).toMatchObject({ tone: "danger", text: "Cert expired" });
    expect(rowBadges(tlsIngress(inDays(80)), NOW, 14)).toEqual([]);
  });

  it("a certificate error is a badge unless Secrets are simply not read", () => {
    const error = (source: "secret" | "not_read") =>
      ingress({
        name: "e",
        tls: [{ hosts: [], secretName: "e-tls" }],
        certificates: [certificate({ secretName: "e-tls", source, notAfter: null, error: "the Secret default/e-tls does not exist" })],
      });
    expect(rowBadges(error("secret"), NOW, 14)).toEqual([
      { kind: "certificate", tone: "danger", text: "Cert error", detail: "e-tls: the Secret default/e-tls does not exist" },
    ]);
    expect(rowBadges(error("not_read"), NOW, 14)).toEqual([]);
  });

  it("HTTPRoutes: a False Accepted or ResolvedRefs is a warning with its reason", () => {
    const checkout = httpRoute({
      name: "checkout",
      conditions: [
        condition("Accepted", "True", "Accepted"),
        condition("ResolvedRefs", "False", "BackendNotFound", "backendRef checkout-v2 names no Service"),
      ],
    });
    expect(rowBadges(checkout, NOW, 14)).toEqual([
      {
        kind: "route",
        tone: "warn",
        text: "ResolvedRefs: BackendNotFound",
        detail: "ResolvedRefs False (BackendNotFound) from gateway-system/public: backendRef checkout-v2 names no Service",
      },
    ]);
    expect(rowBadges(httpRoute({ name: "storefront" }), NOW, 14).map((b) => b.text)).toEqual(["Accepted"]);
    expect(rowBadges(httpRoute({ name: "new", conditions: [] }), NOW, 14).map((b) => b.text)).toEqual(["No status"]);
    // A route whose backend Service is missing: the backend badge (danger) comes before the condition (warning).
    const missing = { ...checkout, backends: [backend({ service: "checkout-v2", state: "missing_service", readyEndpoints: 0, totalEndpoints: 0 })] };
    expect(rowBadges(missing, NOW, 14).map((b) => b.text)).toEqual(["Service missing", "ResolvedRefs: BackendNotFound"]);
    expect(summariseRoute([condition("Accepted", "Unknown", "Pending")]).state).toBe("pending");
    expect(summariseRoute([condition("Accepted", "True", "Accepted"), condition("PartiallyInvalid", "True", "UnsupportedValue")]).state).toBe("problem");
  });

  it("is computed once per record object", () => {
    const record = tlsIngress(inDays(5));
    expect(recordHealth(record)).toBe(recordHealth(record));
    expect(recordHealth({ ...record })).not.toBe(recordHealth(record));
  });
});

describe("keys and relative times", () => {
  it("an HTTPRoute's key differs from an ingress's of the same name", () => {
    expect(recordKey(ingress({ name: "checkout", namespace: "team-000" }))).toBe("team-000/checkout");
    expect(recordKey(httpRoute({ name: "checkout", namespace: "team-000" }))).toBe("httproute/team-000/checkout");
    expect(recordKey(httpRoute({ kind: "GRPCRoute", name: "checkout", namespace: "team-000" }))).toBe("grpcroute/team-000/checkout");
    expect(recordKey(httpRoute({ kind: "TLSRoute", name: "checkout", namespace: "team-000" }))).toBe("tlsroute/team-000/checkout");
  });

  it("formats times relative to now", () => {
    expect(formatRelative(NOW + 5 * DAY_MS, NOW)).toBe("in 5d");
    expect(formatRelative(NOW + 5 * DAY_MS - 60_000, NOW)).toBe("in 4d23h");
    expect(formatRelative(NOW - 3 * DAY_MS, NOW)).toBe("3d ago");
  });
});
