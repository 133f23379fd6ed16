import { describe, expect, it } from "vitest";
import { decodeEvent, decodeRecord } from "./decode";
import type { IngressRecord } from "./wire";

/** A record with every empty part as the server now leaves it out. */
function shortRecord(name: string): Record<string, unknown> {
  return {
    kind: "Ingress",
    uid: `uid-${name}`,
    name,
    namespace: "shop",
    hosts: [],
    rules: [{ paths: [{ pathType: "Prefix", backend: { resource: { kind: "Bucket", name: "b" } } }] }, {}],
    tls: [{}],
    createdAt: "2026-01-01T00:00:00Z",
    resourceVersion: "1",
    links: [],
    backends: [{ service: "web", namespace: "shop", state: "missing_service", readyEndpoints: 0, totalEndpoints: 0 }],
    certificates: [{ secretName: "web-tls", source: "not_read" }],
  };
}

/** The same record in its full shape: what the components read. */
function fullRecord(name: string): IngressRecord {
  return {
    kind: "Ingress",
    uid: `uid-${name}`,
    name,
    namespace: "shop",
    ingressClassName: null,
    hosts: [],
    rules: [
      { host: null, paths: [{ path: null, pathType: "Prefix", backend: { resource: { apiGroup: null, kind: "Bucket", name: "b" } } }] },
      { host: null, paths: [] },
    ],
    defaultBackend: null,
    tls: [{ hosts: [], secretName: null }],
    addresses: [],
    labels: {},
    annotations: {},
    createdAt: "2026-01-01T00:00:00Z",
    resourceVersion: "1",
    links: [],
    backends: [
      { service: "web", namespace: "shop", port: null, state: "missing_service", readyEndpoints: 0, totalEndpoints: 0, error: null },
    ],
    certificates: [
      {
        secretName: "web-tls",
        hosts: [],
        source: "not_read",
        subjectNames: [],
        notBefore: null,
        notAfter: null,
        issuer: null,
        missingHosts: [],
        error: null,
      },
    ],
    route: null,
  };
}

const shortRoute = () => ({
  ...shortRecord("checkout"),
  kind: "HTTPRoute",
  route: {
    parentRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", namespace: "gw", name: "public" }],
    rules: [{ backendRefs: [{ kind: "Service", name: "web", namespace: "shop", weight: 1 }] }, {}],
  },
  certificates: undefined,
});

describe("decoding records", () => {
  it("fills a snapshot's records to the full shape", () => {
    const event = decodeEvent("snapshot", { items: [shortRecord("a"), shortRecord("b")], errors: [], notices: [], expiryWarningDays: 14 });
    expect(event).toEqual({
      type: "snapshot",
      data: { items: [fullRecord("a"), fullRecord("b")], errors: [], notices: [], expiryWarningDays: 14 },
    });
  });

  it.each(["added", "modified", "deleted"] as const)("fills an %s event's record", (type) => {
    expect(decodeEvent(type, shortRecord("a"))).toEqual({ type, data: fullRecord("a") });
  });

  it("fills an HTTPRoute's detail", () => {
    const record = decodeRecord(shortRoute());
    expect(record.certificates).toEqual([]);
    expect(record.route).toEqual({
      parentRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", namespace: "gw", name: "public", sectionName: null, port: null }],
      conditions: [],
      rules: [
        { matches: [], backendRefs: [{ kind: "Service", name: "web", namespace: "shop", weight: 1, port: null }] },
        { matches: [], backendRefs: [] },
      ],
      diagnosis: [],
    });
  });

  it("fills a route finding's absent parent", () => {
    const raw = shortRoute() as { route: Record<string, unknown> };
    raw.route.diagnosis = [{ severity: "error", code: "service_missing", message: "Service shop/web does not exist" }];
    const record = decodeRecord(raw);
    expect(record.route?.diagnosis).toEqual([
      { parent: null, severity: "error", code: "service_missing", message: "Service shop/web does not exist" },
    ]);
  });

  it("keeps what the server sent, the earlier full shape included", () => {
    const full = fullRecord("a");
    full.labels = { app: "web" };
    full.addresses = ["10.0.0.1"];
    full.defaultBackend = { service: { name: "fallback", port: "http" } };
    full.backends = full.backends.map((b) => ({ ...b, port: 80, error: "not read yet" }));
    expect(decodeRecord(structuredClone(full))).toEqual(full);
  });

  it("passes other events through", () => {
    const error = { namespace: "shop", code: "kubernetes_forbidden", message: "no" };
    expect(decodeEvent("error", error)).toEqual({ type: "error", data: error });
  });
});
