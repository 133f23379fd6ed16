// The wire types of docs/api/ingress-dash.md, exactly as the backend sends them.

export type Backend =
  | { service: { name: string; port: number | string } }
  | { resource: { apiGroup: string | null; kind: string; name: string } };

export interface IngressPath {
  path: string | null;
  pathType: string;
  backend: Backend;
}

export interface IngressRule {
  host: string | null;
  paths: IngressPath[];
}

export interface IngressTls {
  hosts: string[];
  secretName: string | null;
}

export interface IngressLink {
  host: string;
  url: string;
}

export interface IngressRecord {
  uid: string;
  name: string;
  namespace: string;
  ingressClassName: string | null;
  hosts: string[];
  rules: IngressRule[];
  defaultBackend: Backend | null;
  tls: IngressTls[];
  addresses: string[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
  createdAt: string;
  resourceVersion: string;
  links: IngressLink[];
}

export interface NamespaceError {
  namespace: string;
  code: string;
  message: string;
}

export interface Snapshot {
  items: IngressRecord[];
  errors: NamespaceError[];
}

export interface ResyncNotice {
  reason: string;
}

/** One named event of `GET /api/ingresses/stream`, decoded. */
export type StreamEvent =
  | { type: "snapshot"; data: Snapshot }
  | { type: "added" | "modified" | "deleted"; data: IngressRecord }
  | { type: "error"; data: NamespaceError }
  | { type: "recovered"; data: { namespace: string } }
  | { type: "resync"; data: ResyncNotice };

export type StreamEventType = StreamEvent["type"];

export const STREAM_EVENT_TYPES: readonly StreamEventType[] = [
  "snapshot",
  "added",
  "modified",
  "deleted",
  "error",
  "recovered",
  "resync",
];

/** The common error body of every service. */
export interface ApiErrorBody {
  error: { code: string; message: string };
}
