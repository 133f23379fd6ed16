// Aliases: every alias of every index, and a batch of adds and removes applied as one
// atomic `_aliases` call (docs/api/admin-console.md, "Aliases").
import { cluster, request } from "./client";
import type { AliasAction, AliasBatch, AliasList, AliasesApplied } from "./wire";

export const aliasesApi = {
  list: (id: string, signal?: AbortSignal) => request<AliasList>(`${cluster(id)}/aliases`, undefined, signal),
  apply: (id: string, actions: AliasAction[]) =>
    request<AliasesApplied>(`${cluster(id)}/aliases`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ actions } satisfies AliasBatch),
    }),
};
