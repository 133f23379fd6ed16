// Changes the real API server's cluster the way a user would: the Kubernetes API itself, over
// HTTPS with the cluster's CA and the admin's bearer token.

import { readFileSync } from "node:fs";
import { Agent, request } from "node:https";

export interface IngressSpecInput {
  namespace: string;
  name: string;
  hosts: string[];
  /** Hosts covered by a TLS entry. */
  tlsHosts?: string[];
  className?: string;
  labels?: Record<string, string>;
  serviceName?: string;
}

/** An `networking.k8s.io/v1` Ingress object. */
export function ingressObject(input: IngressSpecInput): Record<string, unknown> {
  const service = input.serviceName ?? input.name;
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { name: input.name, namespace: input.namespace, labels: input.labels ?? {} },
    spec: {
      ...(input.className ? { ingressClassName: input.className } : {}),
      rules: input.hosts.map((host) => ({
        host,
        http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: service, port: { number: 80 } } } }] },
      })),
      ...(input.tlsHosts?.length ? { tls: [{ hosts: input.tlsHosts, secretName: `${input.name}-tls` }] } : {}),
    },
  };
}

/** A Kubernetes object as the API reads and writes it. */
export type KubeObject = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
};

/** The REST path of a kind's collection: `/api/v1/namespaces/<ns>/services`, ... */
function collectionPath(apiVersion: string, kind: string, namespace?: string): string {
  const plural = PLURALS[kind];
  if (!plural) throw new Error(`no plural known for kind ${kind}`);
  const group = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return `${group}${namespace && kind !== "Namespace" ? `/namespaces/${namespace}` : ""}/${plural}`;
}

const PLURALS: Record<string, string> = {
  Namespace: "namespaces",
  Service: "services",
  Secret: "secrets",
  Event: "events",
  Ingress: "ingresses",
  IngressClass: "ingressclasses",
  EndpointSlice: "endpointslices",
  HTTPRoute: "httproutes",
  Gateway: "gateways",
  GRPCRoute: "grpcroutes",
  TLSRoute: "tlsroutes",
  Certificate: "certificates",
  ServiceAccount: "serviceaccounts",
  Role: "roles",
  RoleBinding: "rolebindings",
};

/** Kinds whose `status` is a subresource: written by a second request, as a controller would. */
const STATUS_SUBRESOURCE = new Set(["Ingress", "HTTPRoute", "GRPCRoute", "TLSRoute", "Certificate"]);

export class KubeApi {
  private readonly agent: Agent;

  constructor(
    /** `https://127.0.0.1:<port>` */
    readonly url: string,
    caFile: string,
    /** The admin's bearer token. */
    readonly token: string,
  ) {
    this.agent = new Agent({ ca: readFileSync(caFile), keepAlive: true, maxSockets: 16 });
  }

  private ingressesUrl(namespace: string, name?: string): string {
    return `/apis/networking.k8s.io/v1/namespaces/${namespace}/ingresses${name ? `/${name}` : ""}`;
  }

  private send(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<Record<string, unknown>> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.url}${path}`,
        {
          method,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.token}`,
            accept: "application/json",
            ...(payload === undefined ? {} : { "content-type": contentType, "content-length": Buffer.byteLength(payload) }),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => {
            const text = Buffer.concat(chunks).toString();
            const status = response.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              reject(new Error(`${method} ${path}: ${status} ${text}`));
              return;
            }
            try {
              resolve(text ? (JSON.parse(text) as Record<string, unknown>) : {});
            } catch (error) {
              reject(new Error(`${method} ${path}: not JSON (${String(error)}): ${text}`));
            }
          });
          response.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  }

  async create(input: IngressSpecInput): Promise<Record<string, unknown>> {
    return this.send("POST", this.ingressesUrl(input.namespace), ingressObject(input));
  }

  async get(namespace: string, name: string): Promise<Record<string, unknown>> {
    return this.send("GET", this.ingressesUrl(namespace, name));
  }

  /** Replaces the ingress, carrying its resourceVersion as kubectl replace does. */
  async replace(input: IngressSpecInput): Promise<Record<string, unknown>> {
    const current = await this.get(input.namespace, input.name);
    const object = ingressObject(input);
    const metadata = current.metadata as { resourceVersion?: string };
    (object.metadata as Record<string, unknown>).resourceVersion = metadata.resourceVersion;
    return this.send("PUT", this.ingressesUrl(input.namespace, input.name), object);
  }

  async delete(namespace: string, name: string): Promise<void> {
    await this.send("DELETE", this.ingressesUrl(namespace, name));
  }

  /** Any call of the API, by path (`/api/v1/...`, `/apis/...`), with a JSON body. */
  async call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    return this.send(method, path, body);
  }

  /**
   * Creates or updates `object` with server-side apply (one request; the server validates,
   * defaults and versions it), then its `status`, for the kinds that have it as a subresource.
   */
  async apply(object: KubeObject): Promise<void> {
    const { metadata } = object;
    const path = `${collectionPath(object.apiVersion, object.kind, metadata.namespace)}/${metadata.name}`;
    const query = "?fieldManager=ingress-dash-e2e&force=true";
    const { status, ...spec } = object;
    await this.send("PATCH", `${path}${query}`, spec, "application/apply-patch+yaml");
    if (status !== undefined && STATUS_SUBRESOURCE.has(object.kind)) {
      const patch = { apiVersion: object.apiVersion, kind: object.kind, metadata: { name: metadata.name, namespace: metadata.namespace }, status };
      await this.send("PATCH", `${path}/status${query}`, patch, "application/apply-patch+yaml");
    }
  }

  /**
   * Applies `objects` in their order of kinds (every object of one kind before the next kind,
   * so namespaces come first), up to `parallel` requests at once within a kind.
   */
  async applyAll(objects: KubeObject[], parallel = 16): Promise<void> {
    const kinds: string[] = [];
    for (const object of objects) if (!kinds.includes(object.kind)) kinds.push(object.kind);
    for (const kind of kinds) {
      const queue = objects.filter((object) => object.kind === kind);
      let next = 0;
      const worker = async () => {
        while (next < queue.length) {
          const object = queue[next++];
          if (object) await this.apply(object);
        }
      };
      await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, worker));
    }
  }

  /**
   * A service account `name` in `home` that may read everything in `namespaces` (a Role and
   * RoleBinding in each) and nothing else, as a namespace-scoped install grants; its token
   * (the TokenRequest API: signed by the API server, valid an hour).
   */
  async readerToken(home: string, name: string, namespaces: string[]): Promise<string> {
    await this.apply({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: home } });
    for (const namespace of namespaces) {
      await this.apply({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name, namespace },
        rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["get", "list", "watch"] }],
      });
      await this.apply({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name, namespace },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
        subjects: [{ kind: "ServiceAccount", name, namespace: home }],
      });
    }
    const answer = await this.send("POST", `/api/v1/namespaces/${home}/serviceaccounts/${name}/token`, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: 3600 },
    });
    const token = (answer.status as { token?: string } | undefined)?.token;
    if (!token) throw new Error(`no token in ${JSON.stringify(answer)}`);
    return token;
  }

  close(): void {
    this.agent.destroy();
  }
}
