// Client of `/api/saved-queries` (docs/admin-console.md, "Saved queries").
import { ApiError, request } from "./client";

export type Visibility = "private" | `group:${string}`;

export interface SavedQuery {
  id: string;
  name: string;
  tags: string[];
  text: string;
  /** A cluster id or `all`. */
  cluster: string;
  visibility: Visibility;
  owner: string;
  version: number;
  updated_at: string;
}

/** What the Save form sends. */
export interface SavedQueryDraft {
  name: string;
  tags: string[];
  text: string;
  cluster: string;
  visibility: Visibility;
}

export interface ImportReport {
  created: SavedQuery[];
  skipped: { index: number; name: string | null; reason: string }[];
}

const BASE = "/api/saved-queries";

function json(method: string, body: unknown): RequestInit {
  return { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
}

export async function listSavedQueries(cluster: string, q: string, signal?: AbortSignal): Promise<SavedQuery[]> {
  const params = new URLSearchParams({ cluster });
  if (q.trim() !== "") params.set("q", q.trim());
  const list = await request<{ queries: SavedQuery[] }>(`${BASE}?${params}`, undefined, signal);
  return list.queries;
}

export function createSavedQuery(draft: SavedQueryDraft): Promise<SavedQuery> {
  return request<SavedQuery>(BASE, json("POST", draft));
}

/** A 409: someone saved the query since it was loaded; `current` is the stored one. */
export class VersionConflict extends Error {
  constructor(readonly current: SavedQuery | null) {
    super("Someone else changed this query since you loaded it.");
  }
}

/** Saves `draft` over `version`; a stale version throws [`VersionConflict`] with the current query. */
export async function updateSavedQuery(id: string, version: number, draft: SavedQueryDraft): Promise<SavedQuery> {
  try {
    return await request<SavedQuery>(`${BASE}/${encodeURIComponent(id)}`, json("PUT", { ...draft, version }));
  } catch (e) {
    if (e instanceof ApiError && e.code === "version_conflict") throw new VersionConflict(await fetchCurrent(id));
    throw e;
  }
}

export async function deleteSavedQuery(id: string, version: number): Promise<void> {
  try {
    await request<unknown>(`${BASE}/${encodeURIComponent(id)}?version=${version}`, { method: "DELETE" });
  } catch (e) {
    // 204 has no JSON body: that is the success.
    if (e instanceof ApiError && e.code === "bad_response" && e.status === 204) return;
    if (e instanceof ApiError && e.code === "version_conflict") throw new VersionConflict(await fetchCurrent(id));
    throw e;
  }
}

async function fetchCurrent(id: string): Promise<SavedQuery | null> {
  return request<SavedQuery>(`${BASE}/${encodeURIComponent(id)}`).catch(() => null);
}

/** The export document of the queries the caller may read for `cluster` (and for all). */
export function exportSavedQueries(cluster: string): Promise<unknown> {
  return request<unknown>(`${BASE}?${new URLSearchParams({ cluster, format: "export" })}`);
}

/** Imports a parsed export document (or a list of queries). */
export function importSavedQueries(document: unknown): Promise<ImportReport> {
  return request<ImportReport>(BASE, json("POST", document));
}
