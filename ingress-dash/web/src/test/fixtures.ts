import type { BackendStatus, CertificateStatus, IngressRecord, RouteCondition, Snapshot } from "../api/wire";

/** A record as the backend sends it, with the fields a test cares about overridden. */
export function ingress(overrides: Partial<IngressRecord> & { name: string }): IngressRecord {
  const namespace = overrides.namespace ?? "default";
  const host = `${overrides.name}.example.com`;
  return {
    kind: "Ingress",
    uid: `uid-${namespace}-${overrides.name}`,
    namespace,
    ingressClassName: "nginx",
    hosts: [host],
    rules: [{ host, paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: overrides.name, port: 80 } } }] }],
    defaultBackend: null,
    tls: [],
    addresses: ["10.0.0.1"],
    labels: {},
    annotations: {},
    createdAt: "2026-01-01T00:00:00Z",
    resourceVersion: "1",
    links: [{ host, url: `http://${host}/` }],
    backends: [],
    certificates: [],
    route: null,
    ...overrides,
  };
}

/** The state of one backend Service (ready with 3 endpoints unless overridden). */
export function backend(overrides: Partial<BackendStatus> & { service: string }): BackendStatus {
  return { namespace: "default", port: 80, state: "ready", readyEndpoints: 3, totalEndpoints: 3, error: null, ...overrides };
}

/** A certificate read from its Secret, valid from 2026-01-01 until `notAfter`. */
export function certificate(overrides: Partial<CertificateStatus> & { secretName: string; notAfter: string | null }): CertificateStatus {
  return {
    hosts: [],
    source: "secret",
    subjectNames: [],
    notBefore: "2026-01-01T00:00:00Z",
    issuer: "CN=Example CA",
    missingHosts: [],
    error: null,
    ...overrides,
  };
}

export function condition(type: string, status: string, reason: string, message = ""): RouteCondition {
  return { parent: "gateway-system/public", type, status, reason, message };
}

/** An HTTPRoute on gateway-system/public sending `/` to Service `name` port 8080. */
export function httpRoute(overrides: Partial<IngressRecord> & { name: string; conditions?: RouteCondition[] }): IngressRecord {
  const { conditions, ...rest } = overrides;
  const namespace = rest.namespace ?? "default";
  const host = `${rest.name}.example.com`;
  return ingress({
    kind: "HTTPRoute",
    uid: `uid-route-${namespace}-${rest.name}`,
    ingressClassName: null,
    addresses: [],
    hosts: [host],
    rules: [{ host, paths: [{ path: "/", pathType: "PathPrefix", backend: { service: { name: rest.name, port: 8080 } } }] }],
    route: {
      parentRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", namespace: "gateway-system", name: "public", sectionName: null, port: null }],
      conditions: conditions ?? [condition("Accepted", "True", "Accepted"), condition("ResolvedRefs", "True", "ResolvedRefs")],
      rules: [
        {
          matches: ["PathPrefix /"],
          backendRefs: [{ kind: "Service", name: rest.name, namespace, port: 8080, weight: 1 }],
        },
      ],
      diagnosis: [],
    },
    ...rest,
  });
}

/** A snapshot event's data. */
export function snapshot(items: IngressRecord[], extra: Partial<Snapshot> = {}): Snapshot {
  return { items, errors: [], notices: [], expiryWarningDays: 14, ...extra };
}
