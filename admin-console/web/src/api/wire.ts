// Generated from the Rust wire types by admin-console; do not edit.
// Regenerate with `make wire-types`.

export type ErrorBody = { error: ErrorDetail, };

export type ErrorDetail = { 
/**
 * Stable machine-readable code in snake_case, e.g. `unknown_cluster`.
 */
code: string, 
/**
 * One human sentence; never a stack trace or a secret.
 */
message: string, };

export type Health = "green" | "yellow" | "red";

export type ClusterSummary = { id: string, name: string, metricsSource: "internal" | "external_metrics", reachable: boolean, health: Health | null, version: string | null, distribution: "elasticsearch" | "opensearch" | null, error: string | null, };

export type ClusterList = { clusters: Array<ClusterSummary>, };

export type Overview = { clusterId: string, name: string, clusterName: string, health: Health, version: string | null, distribution: "elasticsearch" | "opensearch" | null, nodeCount: number, dataNodeCount: number, indexCount: number, shardCount: number, primaryShardCount: number, replicaShardCount: number, unassignedShards: number, relocatingShards: number, initializingShards: number, documentCount: number, storeSizeBytes: number, };

export type ClusterNode = { id: string, name: string, ip: string | null, version: string | null, roles: Array<string>, isMaster: boolean, heapPercent: number | null, diskUsedPercent: number | null, cpuPercent: number | null, };

export type NodeList = { nodes: Array<ClusterNode>, };

export type IndexRow = { name: string, health: Health | null, status: string, primaries: number, replicas: number, docsCount: number, storeSizeBytes: number, };

export type SortKey = "name" | "health" | "status" | "docsCount" | "storeSizeBytes" | "primaries" | "replicas";

export type Order = "asc" | "desc";

export type IndexPage = { total: number, page: number, size: number, sort: SortKey, order: Order, indices: Array<IndexRow>, };

export type AllocationEnable = "all" | "primaries" | "new_primaries" | "none";

export type Allocation = { enable: AllocationEnable, 
/**
 * Whether shard allocation is restricted (`enable` is not `all`).
 */
locked: boolean, };

export type AllocationBody = { enable: AllocationEnable, };

export type Measurement = { timestamp: number, health: Health | null, nodeCount: number | null, indexCount: number | null, documentCount: number | null, shardCount: number | null, unassignedShards: number | null, memoryUsagePercent: number | null, diskUsagePercent: number | null, cpuUsagePercent: number | null, };

export type Snapshot = { clusterId: string, timestamp: number, health: Health | null, nodeCount: number | null, indexCount: number | null, documentCount: number | null, shardCount: number | null, unassignedShards: number | null, memoryUsagePercent: number | null, diskUsagePercent: number | null, cpuUsagePercent: number | null, };

export type MetricsHistory = { clusterId: string, source: "internal" | "external_metrics", start: number, end: number, step: number, points: Array<Measurement>, 
/**
 * Why `points` is empty.
 */
reason?: string, };

export type ValidationRequest = { url: string, job_name: string | null, labels: { [key in string]: string }, };

export type ValidationStatus = "success" | "no_data" | "error";

export type ValidationResponse = { status: ValidationStatus, message: string, reachable: boolean, };

export type WhoAmI = { mode: "open" | "trusted_headers", user: string | null, email: string | null, groups: Array<string>, roles: Record<string, "viewer" | "operator" | "admin" | "none">, };

export type Dialect = { distribution: Distribution, major: number, };

export type Distribution = "elasticsearch" | "opensearch";
