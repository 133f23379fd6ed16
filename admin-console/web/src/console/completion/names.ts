// Index and alias names and the dialect for completion, fetched once per console session
// (the panel keeps the loader) and shared by every completion request.
import { cluster, request } from "../../api/client";
import type { Dialect, IndexPage } from "../../api/wire";
import type { Names } from "./paths";

/** At most this many index names (the index list's largest page, sorted by name). */
export const MAX_INDEX_NAMES = 500;

/** `_cat/aliases?format=json` rows: `alias`, `index`, … (Elasticsearch and OpenSearch). */
export function aliasNames(rows: unknown): string[] {
  if (!Array.isArray(rows)) return [];
  const names = new Set<string>();
  for (const row of rows) {
    const alias = (row as { alias?: unknown } | null)?.alias;
    if (typeof alias === "string" && alias !== "") names.add(alias);
  }
  return [...names].sort();
}

export interface SessionLoader {
  names: () => Promise<Names>;
  dialect: () => Promise<Dialect | null>;
}

/** Loaders that fetch on first use and then answer from memory; a failure is not cached. */
export function sessionLoader(clusterId: string): SessionLoader {
  let names: Promise<Names> | null = null;
  let dialect: Promise<Dialect | null> | null = null;
  const base = cluster(clusterId);
  return {
    names: () => {
      names ??= Promise.all([
        request<IndexPage>(`${base}/indices?size=${MAX_INDEX_NAMES}&sort=name&order=asc`)
          .then((page) => page.indices.map((row) => row.name))
          .catch(() => [] as string[]),
        request<unknown>(`${base}/proxy/_cat/aliases?format=json&h=alias,index`)
          .then(aliasNames)
          .catch(() => [] as string[]),
      ]).then(([indices, aliases]) => ({ indices, aliases }));
      const pending = names;
      pending.then((found) => {
        if (found.indices.length === 0 && found.aliases.length === 0 && names === pending) names = null;
      });
      return pending;
    },
    dialect: () => {
      dialect ??= request<Dialect>(`${base}/dialect`).catch(() => {
        dialect = null;
        return null;
      });
      return dialect;
    },
  };
}
