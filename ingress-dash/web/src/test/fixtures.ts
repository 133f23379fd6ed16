import type { IngressRecord } from "../api/wire";

/** A record as the backend sends it, with the fields a test cares about overridden. */
export function ingress(overrides: Partial<IngressRecord> & { name: string }): IngressRecord {
  const namespace = overrides.namespace ?? "default";
  const host = `${overrides.name}.example.com`;
  return {
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
    ...overrides,
  };
}
