// Changes the test API server's cluster the way a user would: the Kubernetes API itself.

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

export class KubeApi {
  constructor(readonly url: string) {}

  private ingressesUrl(namespace: string, name?: string): string {
    return `${this.url}/apis/networking.k8s.io/v1/namespaces/${namespace}/ingresses${name ? `/${name}` : ""}`;
  }

  private async send(method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(url, {
      method,
      headers: { "content-type": "application/json", accept: "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
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
    return this.send(method, `${this.url}${path}`, body);
  }
}
