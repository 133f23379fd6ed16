// A node's page: statistics and shards (docs/api/admin-console.md, "Nodes").
import { cluster, request } from "./client";
import type { NodeDetail } from "./wire";

export const nodesApi = {
  detail: (id: string, nodeId: string, signal?: AbortSignal) =>
    request<NodeDetail>(`${cluster(id)}/nodes/${encodeURIComponent(nodeId)}`, undefined, signal),
};
