// Reads of one object on demand: its recent events and its YAML (GET /api/objects/...).
// The two answer types below are written exactly as ts-rs declares the server's types (a Rust
// test, objects::tests, fails when they differ); do not reformat them.

import type { RouteDiagnosis } from "./wire";

export type ObjectEvents = { 
/**
 * Newest first, at most 50.
 */
events: Array<ObjectEvent>, };

export type ObjectEvent = { 
/**
 * `Warning` or `Normal`.
 */
type: string, reason: string, 
/**
 * At most 1,024 characters (longer ones end with "…").
 */
message: string, 
/**
 * How many times it happened (at least 1).
 */
count: number, 
/**
 * RFC 3339.
 */
firstTimestamp: string | null, 
/**
 * RFC 3339: the most recent occurrence.
 */
lastTimestamp: string | null, 
/**
 * The component that reported it (`source.component`, else `reportingComponent`).
 */
source: string | null, };

/** The path segment of a record's kind ("Ingress" → ingresses, "HTTPRoute" → httproutes). */
export type ObjectKindPath = "ingresses" | "httproutes" | "grpcroutes" | "tlsroutes";

/** Records before the wire types carried `kind` are ingresses. */
export function kindPath(kind: string | undefined | null): ObjectKindPath {
  switch (kind) {
    case "HTTPRoute":
      return "httproutes";
    case "GRPCRoute":
      return "grpcroutes";
    case "TLSRoute":
      return "tlsroutes";
    default:
      return "ingresses";
  }
}

/** A failed read, with the message of the server's common error body when it sent one. */
export class ObjectReadError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
    this.name = "ObjectReadError";
  }
}

export interface ObjectRef {
  kind: ObjectKindPath;
  namespace: string;
  name: string;
}

function objectPath({ kind, namespace, name }: ObjectRef, what: "events" | "yaml"): string {
  return `/api/objects/${kind}/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${what}`;
}

export async function failure(response: Response): Promise<ObjectReadError> {
  let message = `The dashboard answered ${response.status}.`;
  let code: string | null = null;
  try {
    const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.message === "string") message = body.error.message;
    if (typeof body.error?.code === "string") code = body.error.code;
  } catch {
    // Not the common error body (a proxy's page): the status says enough.
  }
  return new ObjectReadError(message, response.status, code);
}

/** `GET .../events`: Warning events unless `all`, newest first. */
export async function fetchObjectEvents(ref: ObjectRef, all: boolean, signal?: AbortSignal): Promise<ObjectEvent[]> {
  const query = all ? "?type=all" : "";
  const response = await fetch(objectPath(ref, "events") + query, { signal, headers: { Accept: "application/json" } });
  if (!response.ok) throw await failure(response);
  const body = (await response.json()) as Partial<ObjectEvents>;
  return Array.isArray(body.events) ? body.events : [];
}

/** `GET .../yaml`: the live object as YAML text (managedFields removed, annotations redacted). */
export async function fetchObjectYaml(ref: ObjectRef, signal?: AbortSignal): Promise<string> {
  const response = await fetch(objectPath(ref, "yaml"), { signal, headers: { Accept: "text/yaml" } });
  if (!response.ok) throw await failure(response);
  return response.text();
}

/** `GET /api/objects/{httproutes|grpcroutes|tlsroutes}/{namespace}/{name}/diagnosis`: the route's
 * findings with the ReferenceGrants of its backendRefs' namespaces read on demand. */
export async function fetchRouteDiagnosis(
  kind: Exclude<ObjectKindPath, "ingresses">,
  namespace: string,
  name: string,
  signal?: AbortSignal,
): Promise<RouteDiagnosis> {
  const path = `/api/objects/${kind}/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/diagnosis`;
  const response = await fetch(path, { signal, headers: { Accept: "application/json" } });
  if (!response.ok) throw await failure(response);
  const body = (await response.json()) as Partial<RouteDiagnosis>;
  return {
    findings: Array.isArray(body.findings) ? body.findings.map((f) => ({ ...f, parent: f.parent ?? null })) : [],
    notRead: Array.isArray(body.notRead) ? body.notRead : [],
  };
}
