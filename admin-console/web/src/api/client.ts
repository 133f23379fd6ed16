// Typed client of the admin-console HTTP API (docs/api/admin-console.md). The bodies' types are
// generated from the Rust types (wire.ts, `make wire-types`).
import type {
  Allocation,
  AllocationBody,
  AllocationEnable,
  ClusterList,
  ClusterNode,
  ClusterSummary,
  ErrorBody,
  IndexPage,
  MetricsHistory,
  NodeList,
  Overview,
  WhoAmI,
} from "./wire";
import { askReason, pendingReasonHeaders, reasonHeaders } from "../lib/changeReason";

/** An API error with the common body's code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Sent with every call to the console's API. The console refuses state-changing requests and
 * relayed requests that carry neither a same-origin `Sec-Fetch-Site`/`Origin` nor this header:
 * a page on another site cannot set it without a CORS preflight the console never grants.
 */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = { "X-Requested-By": "admin-console" };

/** The common error body `{"error": {"code", "message"}}` (a cluster's own errors have other shapes). */
export function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== "object" || body === null) return false;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === "string" && typeof message === "string";
}

/** A call to the console's API: JSON in and out, the common error body as an [`ApiError`]. The
 * management features' clients (`api/<feature>.ts`) build on it. */
export async function request<T>(path: string, init?: RequestInit, signal?: AbortSignal): Promise<T> {
  const reason = pendingReasonHeaders(init?.method);
  let response = await send(path, init, signal, reason);
  // A change to a production cluster that no dialog asked a reason for: ask, then send it again.
  if (response.status === 428 && Object.keys(reason).length === 0) {
    const body = await response
      .clone()
      .json()
      .catch(() => null);
    if (isErrorBody(body) && body.error.code === "change_reason_required") {
      const given = await askReason(body.error.message);
      if (given !== null) response = await send(path, init, signal, reasonHeaders(given));
    }
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // handled below
  }
  if (!response.ok) {
    const err = isErrorBody(body) ? body.error : null;
    const cluster = err ? null : clusterErrorReason(body);
    throw new ApiError(
      response.status,
      err?.code ?? (cluster ? "cluster_error" : "http_error"),
      err?.message ?? cluster ?? `The admin console answered ${response.status}.`,
    );
  }
  if (body === null) throw new ApiError(response.status, "bad_response", "The admin console sent no JSON.");
  return body as T;
}

async function send(path: string, init: RequestInit | undefined, signal: AbortSignal | undefined, extra: Record<string, string>): Promise<Response> {
  try {
    return await fetch(path, {
      ...init,
      signal,
      headers: { Accept: "application/json", ...init?.headers, ...extra, ...CONSOLE_HEADERS },
    });
  } catch (e) {
    if ((e as Error).name === "AbortError") throw e;
    throw new ApiError(0, "network_error", "The admin console did not answer; check that it is running.");
  }
}

/** A relayed cluster's own error (`{"error": {"type", "reason"}}`, Elasticsearch and OpenSearch). */
function clusterErrorReason(body: unknown): string | null {
  if (typeof body !== "object" || body === null) return null;
  const error = (body as { error?: unknown }).error;
  if (typeof error === "string") return error;
  if (typeof error !== "object" || error === null) return null;
  const { reason, type } = error as { reason?: unknown; type?: unknown };
  if (typeof reason !== "string") return null;
  return typeof type === "string" ? `${type}: ${reason}` : reason;
}

/** The API path of a cluster. */
export const cluster = (id: string) => `/api/clusters/${encodeURIComponent(id)}`;

export const api = {
  whoami: (signal?: AbortSignal) => request<WhoAmI>("/api/whoami", undefined, signal),
  clusters: (signal?: AbortSignal) =>
    request<ClusterList>("/api/clusters", undefined, signal).then((r) => r.clusters),
  cluster: (id: string, signal?: AbortSignal) => request<ClusterSummary>(cluster(id), undefined, signal),
  overview: (id: string, signal?: AbortSignal) => request<Overview>(`${cluster(id)}/overview`, undefined, signal),
  nodes: (id: string, signal?: AbortSignal) =>
    request<NodeList>(`${cluster(id)}/nodes`, undefined, signal).then((r): ClusterNode[] => r.nodes),
  indices: (id: string, query: string, signal?: AbortSignal) =>
    request<IndexPage>(`${cluster(id)}/indices?${query}`, undefined, signal),
  allocation: (id: string, signal?: AbortSignal) =>
    request<Allocation>(`${cluster(id)}/allocation`, undefined, signal),
  setAllocation: (id: string, enable: AllocationEnable) =>
    request<Allocation>(`${cluster(id)}/allocation`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ enable } satisfies AllocationBody),
    }),
  history: (id: string, start: number, end: number, signal?: AbortSignal) =>
    request<MetricsHistory>(`${cluster(id)}/metrics/history?start=${start}&end=${end}`, undefined, signal),
};
