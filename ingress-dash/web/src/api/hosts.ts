// The Hosts view (GET /api/hosts): the records regrouped by hostname, computed by the server.
// The answer types are generated from the server's (wire.ts).

import { failure } from "./objects";
import type { HostsReport } from "./wire";

export interface HostsQuery {
  namespaces: readonly string[];
  search: string;
  flaggedOnly: boolean;
}

/** `/api/hosts` for `query` (no namespaces: every visible one). */
export function hostsUrl(query: HostsQuery): string {
  const params = new URLSearchParams();
  if (query.namespaces.length > 0) params.set("namespaces", query.namespaces.join(","));
  const search = query.search.trim();
  if (search) params.set("search", search);
  if (query.flaggedOnly) params.set("flagged", "true");
  const text = params.toString().replace(/%2C/g, ",");
  return `/api/hosts${text ? `?${text}` : ""}`;
}

export async function fetchHosts(query: HostsQuery, signal?: AbortSignal): Promise<HostsReport> {
  const response = await fetch(hostsUrl(query), { signal, headers: { Accept: "application/json" } });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as HostsReport;
}
