// Generated from the Rust wire types by ingress-dash; do not edit.
// Regenerate with `make wire-types`.

export type ErrorBody = { error: ErrorDetail, };

export type ErrorDetail = { 
/**
 * Stable machine-readable code in snake_case, e.g. `unknown_cluster`.
 */
code: string, 
/**
 * One human sentence; never a stack trace or a secret.
 */
message: string, };

export type IngressRecord = { uid: string, name: string, namespace: string, ingressClassName: string | null, hosts: Array<string>, rules: Array<Rule>, defaultBackend: Backend | null, tls: Array<Tls>, addresses: Array<string>, labels: { [key in string]: string }, annotations: { [key in string]: string }, createdAt: string, resourceVersion: string, links: Array<Link>, };

export type Rule = { host: string | null, paths: Array<PathRule>, };

export type PathRule = { path: string | null, pathType: string, backend: Backend, };

export type Backend = { "service": { name: string, port: ServicePort, } } | { "resource": ResourceBackend };

export type ServicePort = number | string;

export type ResourceBackend = { apiGroup: string | null, kind: string, name: string, };

export type Tls = { hosts: Array<string>, secretName: string | null, };

export type Link = { host: string, url: string, };

export type NamespaceError = { namespace: string, code: string, message: string, 
/**
 * The HTTP status the Kubernetes API answered, when it answered one (403, 503, ...).
 */
status?: number, };

export type Snapshot = { items: Array<IngressRecord>, errors: Array<NamespaceError>, };

export type RecoveredNotice = { namespace: string, };

export type ResyncNotice = { reason: string, };

export type NamespaceList = { namespaces: Array<string>, };

export type HealthBody = { status: string, timestamp: string, checks: Checks, };

export type Checks = { kubernetes: KubernetesCheck, };

export type KubernetesCheck = { 
/**
 * Milliseconds.
 */
latency: number, 
/**
 * The breaker's state, beside the specified fields (DECISIONS: visible in health).
 */
circuitBreaker: string, } & ({ "status": "up" } | { "status": "down", error: string, });

export type Reached = { "status": "up" } | { "status": "down", error: string, };
