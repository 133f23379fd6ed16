// Shards: the grid, a copy's allocation explained, moving a copy and retrying failed
// allocations (docs/api/admin-console.md, "Shards").
import { cluster, request } from "./client";
import type { MoveShard, Rerouted, ShardExplanation, ShardGrid } from "./wire";

const post = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
});

export interface ExplainTarget {
  index: string;
  shard: number;
  primary: boolean;
  /** The node id holding the copy (picks one replica among several); absent when unassigned. */
  node?: string | null;
}

/** The explain route's query string. */
export function explainQuery(target: ExplainTarget): string {
  const query = new URLSearchParams({ index: target.index, shard: String(target.shard), primary: String(target.primary) });
  if (target.node) query.set("node", target.node);
  return query.toString();
}

export const shardsApi = {
  grid: (id: string, signal?: AbortSignal) => request<ShardGrid>(`${cluster(id)}/shards`, undefined, signal),
  explain: (id: string, target: ExplainTarget, signal?: AbortSignal) =>
    request<ShardExplanation>(`${cluster(id)}/shards/explain?${explainQuery(target)}`, undefined, signal),
  move: (id: string, body: MoveShard) => request<Rerouted>(`${cluster(id)}/shards/move`, post(body)),
  retryFailed: (id: string) => request<Rerouted>(`${cluster(id)}/shards/retry`, post({})),
};
