// Typed client of the admin-console HTTP API (docs/api/admin-console.md).
export type Health = "green" | "yellow" | "red";

export interface ClusterSummary {
  id: string;
  name: string;
  metricsSource: "internal" | "external_metrics";
  reachable: boolean;
  health: Health | null;
  version: string | null;
  distribution: "elasticsearch" | "opensearch" | null;
  error: string | null;
}

export interface Overview {
  clusterId: string;
  name: string;
  clusterName: string;
  health: Health;
  version: string | null;
  distribution: string | null;
  nodeCount: number;
  dataNodeCount: number;
  indexCount: number;
  shardCount: number;
  primaryShardCount: number;
  replicaShardCount: number;
  unassignedShards: number;
  relocatingShards: number;
  initializingShards: number;
  documentCount: number;
  storeSizeBytes: number;
}

export interface ClusterNode {
  id: string;
  name: string;
  ip: string | null;
  version: string | null;
  roles: string[];
  isMaster: boolean;
  heapPercent: number | null;
  diskUsedPercent: number | null;
  cpuPercent: number | null;
}

export interface IndexRow {
  name: string;
  health: Health | null;
  status: "open" | "close";
  primaries: number;
  replicas: number;
  docsCount: number;
  storeSizeBytes: number;
}

export interface IndexPage {
  total: number;
  page: number;
  size: number;
  sort: string;
  order: "asc" | "desc";
  indices: IndexRow[];
}

export type AllocationEnable = "all" | "primaries" | "new_primaries" | "none";
export interface Allocation {
  enable: AllocationEnable;
  locked: boolean;
}

export interface HistoryPoint {
  timestamp: number;
  health: Health | null;
  nodeCount: number | null;
  indexCount: number | null;
  documentCount: number | null;
  shardCount: number | null;
  unassignedShards: number | null;
  memoryUsagePercent: number | null;
  diskUsagePercent: number | null;
  cpuUsagePercent: number | null;
}

export interface MetricsHistory {
  clusterId: string;
  source: string;
  start: number;
  end: number;
  step: number;
  points: HistoryPoint[];
  reason?: string;
}

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

async function request<T>(path: string, init?: RequestInit, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      ...init,
      signal,
      headers: { Accept: "application/json", ...init?.headers, ...CONSOLE_HEADERS },
    });
  } catch (e) {
    if ((e as Error).name === "AbortError") throw e;
    throw new ApiError(0, "network_error", "The admin console did not answer; check that it is running.");
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // handled below
  }
  if (!response.ok) {
    const err = (body as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(
      response.status,
      err?.code ?? "http_error",
      err?.message ?? `The admin console answered ${response.status}.`,
    );
  }
  if (body === null) throw new ApiError(response.status, "bad_response", "The admin console sent no JSON.");
  return body as T;
}

const cluster = (id: string) => `/api/clusters/${encodeURIComponent(id)}`;

export const api = {
  clusters: (signal?: AbortSignal) =>
    request<{ clusters: ClusterSummary[] }>("/api/clusters", undefined, signal).then((r) => r.clusters),
  cluster: (id: string, signal?: AbortSignal) => request<ClusterSummary>(cluster(id), undefined, signal),
  overview: (id: string, signal?: AbortSignal) => request<Overview>(`${cluster(id)}/overview`, undefined, signal),
  nodes: (id: string, signal?: AbortSignal) =>
    request<{ nodes: ClusterNode[] }>(`${cluster(id)}/nodes`, undefined, signal).then((r) => r.nodes),
  indices: (id: string, query: string, signal?: AbortSignal) =>
    request<IndexPage>(`${cluster(id)}/indices?${query}`, undefined, signal),
  allocation: (id: string, signal?: AbortSignal) =>
    request<Allocation>(`${cluster(id)}/allocation`, undefined, signal),
  setAllocation: (id: string, enable: AllocationEnable) =>
    request<Allocation>(`${cluster(id)}/allocation`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ enable }),
    }),
  history: (id: string, start: number, end: number, signal?: AbortSignal) =>
    request<MetricsHistory>(`${cluster(id)}/metrics/history?start=${start}&end=${end}`, undefined, signal),
};
