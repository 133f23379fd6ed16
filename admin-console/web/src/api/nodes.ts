// A node's page: statistics and shards (docs/api/admin-console.md, "Nodes").
import { cluster, request } from "./client";
import type { Allocation, NodeDetail } from "./wire";

export const nodesApi = {
  detail: (id: string, nodeId: string, signal?: AbortSignal) =>
    request<NodeDetail>(`${cluster(id)}/nodes/${encodeURIComponent(nodeId)}`, undefined, signal),
  /** Keeps shards off the node (its name in `cluster.routing.allocation.exclude._name`). */
  drain: (id: string, nodeId: string) =>
    request<Allocation>(`${cluster(id)}/nodes/${encodeURIComponent(nodeId)}/drain`, { method: "PUT" }),
  /** Lets shards back onto the node. */
  undoDrain: (id: string, nodeId: string) =>
    request<Allocation>(`${cluster(id)}/nodes/${encodeURIComponent(nodeId)}/drain`, { method: "DELETE" }),
};
