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

export type ClusterSummary = { id: string, name: string, metricsSource: "internal" | "external_metrics", 
/**
 * The configured `environment`; `production` asks for a reason before every change.
 */
environment: "production" | "staging" | "test" | "development" | null, reachable: boolean, health: Health | null, version: string | null, distribution: "elasticsearch" | "opensearch" | null, error: string | null, };

export type ClusterList = { clusters: Array<ClusterSummary>, };

export type Overview = { clusterId: string, name: string, clusterName: string, health: Health, version: string | null, distribution: "elasticsearch" | "opensearch" | null, nodeCount: number, dataNodeCount: number, indexCount: number, shardCount: number, primaryShardCount: number, replicaShardCount: number, unassignedShards: number, relocatingShards: number, initializingShards: number, documentCount: number, storeSizeBytes: number, };

export type ClusterNode = { id: string, name: string, ip: string | null, version: string | null, roles: Array<string>, 
/**
 * Its data tier roles, in the order hot, warm, cold, frozen, content.
 */
tiers: Array<DataTier>, 
/**
 * Holds shards: the role `data` or any `data_*` (tier) role.
 */
dataNode: boolean, isMaster: boolean, heapPercent: number | null, diskUsedPercent: number | null, cpuPercent: number | null, };

export type NodeList = { nodes: Array<ClusterNode>, };

export type IndexRow = { name: string, health: Health | null, status: string, primaries: number, replicas: number, docsCount: number, storeSizeBytes: number, };

export type SortKey = "name" | "health" | "status" | "docsCount" | "storeSizeBytes" | "primaries" | "replicas";

export type Order = "asc" | "desc";

export type IndexPage = { total: number, page: number, size: number, sort: SortKey, order: Order, indices: Array<IndexRow>, };

export type AllocationEnable = "all" | "primaries" | "new_primaries" | "none";

export type Exclusions = { 
/**
 * `cluster.routing.allocation.exclude._name`: node names (the console's drains).
 */
names: Array<string>, 
/**
 * `cluster.routing.allocation.exclude._ip`.
 */
ips: Array<string>, 
/**
 * `cluster.routing.allocation.exclude._host`.
 */
hosts: Array<string>, };

export type Allocation = { enable: AllocationEnable, 
/**
 * Whether shard allocation is restricted (`enable` is not `all`).
 */
locked: boolean, 
/**
 * The nodes being drained or kept empty by an allocation filter.
 */
excluded: Exclusions, };

export type AllocationBody = { enable: AllocationEnable, };

export type Measurement = { timestamp: number, health: Health | null, nodeCount: number | null, indexCount: number | null, documentCount: number | null, shardCount: number | null, unassignedShards: number | null, memoryUsagePercent: number | null, diskUsagePercent: number | null, cpuUsagePercent: number | null, };

export type Snapshot = { clusterId: string, timestamp: number, health: Health | null, nodeCount: number | null, indexCount: number | null, documentCount: number | null, shardCount: number | null, unassignedShards: number | null, memoryUsagePercent: number | null, diskUsagePercent: number | null, cpuUsagePercent: number | null, };

export type MetricsHistory = { clusterId: string, source: "internal" | "external_metrics", start: number, end: number, step: number, points: Array<Measurement>, 
/**
 * Why `points` is empty.
 */
reason?: string, 
/**
 * `internal` only: since when the console has history of the cluster (Unix seconds; when
 * it started sampling, or the oldest sample kept once older ones were dropped).
 */
collectingSince?: number, };

export type ValidationRequest = { url: string, job_name: string | null, labels: { [key in string]: string }, };

export type ValidationStatus = "success" | "no_data" | "error";

export type ValidationResponse = { status: ValidationStatus, message: string, reachable: boolean, };

export type WhoAmI = { mode: "open" | "trusted_headers", user: string | null, email: string | null, groups: Array<string>, roles: Record<string, "viewer" | "operator" | "admin" | "none">, };

export type Dialect = { distribution: Distribution, major: number, };

export type Distribution = "elasticsearch" | "opensearch";

export type CreateIndex = { name: string, shards?: number, replicas?: number, 
/**
 * Index settings, nested (`{"index": {"refresh_interval": "5s"}}`) or flat.
 */
settings?: Record<string, unknown>, 
/**
 * The mappings (`{"properties": {...}}`).
 */
mappings?: Record<string, unknown>, 
/**
 * Aliases to create with the index: alias name → alias properties.
 */
aliases?: Record<string, unknown>, };

export type Created = { index: string, acknowledged: boolean, shardsAcknowledged: boolean, };

export type Deleted = { index: string, acknowledged: boolean, };

export type IndexAction = "open" | "close" | "refresh" | "flush" | "forcemerge" | "clear_cache" | "block_write" | "unblock_write" | "delete";

export type ActionRequest = { indices: Array<string>, 
/**
 * Force merge only: merge down to at most this many segments per shard.
 */
maxNumSegments?: number, 
/**
 * Delete only: exactly `delete N indices` (N the number of indices named).
 */
confirm?: string, };

export type ActionResult = { index: string, ok: boolean, message: string | null, };

export type ActionAnswer = { action: IndexAction, results: Array<ActionResult>, };

export type SettingRow = { key: string, 
/**
 * As the cluster shows it (settings are strings; lists stay lists).
 */
value: unknown, dynamic: boolean, };

export type IndexStats = { docsCount: number, docsDeleted: number, storeBytes: number, primaryStoreBytes: number, indexingTotal: number, indexingTimeMs: number, indexingFailed: number, searchQueryTotal: number, searchQueryTimeMs: number, searchFetchTotal: number, segmentsCount: number, };

export type IndexShard = { shard: number, primary: boolean, state: string, docs: number | null, storeBytes: number | null, node: string | null, unassignedReason: string | null, };

export type IndexAlias = { alias: string, filter: Record<string, unknown> | null, indexRouting: string | null, searchRouting: string | null, isWriteIndex: boolean | null, isHidden: boolean | null, };

export type IndexDetail = { name: string, uuid: string | null, health: Health | null, 
/**
 * `open` or `close`, as `_cat/indices` says.
 */
status: string, settings: Array<SettingRow>, 
/**
 * Dynamic settings the index does not set yet, offered for adding.
 */
addableSettings: Array<string>, mappings: Record<string, unknown>, 
/**
 * None for a closed index (a closed index has no stats).
 */
stats: IndexStats | null, shards: Array<IndexShard>, aliases: Array<IndexAlias>, };

export type PutSettings = { 
/**
 * Flat keys (`index.refresh_interval` or `refresh_interval`) → value; null resets the
 * setting to its default.
 */
settings: Record<string, string | number | boolean | null>, };

export type SettingsChanged = { index: string, acknowledged: boolean, };

export type Operation = "shrink" | "split" | "clone" | "forcemerge" | "reindex";

export type ResizeRequest = { 
/**
 * The new index.
 */
target: string, 
/**
 * Primary shards of the target: a factor of the source's (shrink), a multiple (split);
 * not given for a clone (it keeps the source's).
 */
shards?: number, 
/**
 * Replicas of the target (the source's when not given).
 */
replicas?: number, };

export type ForcemergeRequest = { maxNumSegments?: number, onlyExpungeDeletes?: boolean, };

export type ReindexRequest = { source: string, dest: string, 
/**
 * Documents a second (the cluster's `requests_per_second`); unthrottled when left out.
 */
requestsPerSecond?: number, 
/**
 * Refused whatever it holds: reindex from a remote cluster is off in the console.
 */
remote?: unknown, };

export type Started = { operation: Operation, source: string, target: string | null, taskId: string | null, };

export type AliasRow = { index: string, alias: string, filter: Record<string, unknown> | null, indexRouting: string | null, searchRouting: string | null, isWriteIndex: boolean | null, isHidden: boolean | null, };

export type AliasList = { aliases: Array<AliasRow>, };

export type AddAlias = { index: string, alias: string, 
/**
 * A query (Query DSL object) the alias filters its documents by.
 */
filter?: Record<string, unknown>, indexRouting?: string, searchRouting?: string, isWriteIndex?: boolean, };

export type RemoveAlias = { index: string, alias: string, };

export type AliasAction = { "add": AddAlias } | { "remove": RemoveAlias };

export type AliasBatch = { actions: Array<AliasAction>, };

export type AliasesApplied = { acknowledged: boolean, 
/**
 * How many actions the one `_aliases` call carried.
 */
applied: number, };

export type BackingIndex = { name: string, uuid: string | null, 
/**
 * The index lifecycle policy of this index (Elasticsearch), when it has one.
 */
ilmPolicy: string | null, };

export type DataStreamRow = { name: string, 
/**
 * How many times it was created or rolled over (the newest backing index's number).
 */
generation: number | null, backingIndices: Array<BackingIndex>, 
/**
 * The index template it was created from.
 */
template: string | null, 
/**
 * `green`, `yellow` or `red`: the worst health of its backing indices.
 */
health: string | null, timestampField: string | null, 
/**
 * The lifecycle policy the cluster reports for the stream (Elasticsearch's `ilm_policy`;
 * OpenSearch attaches ISM policies to indices and reports none here).
 */
ilmPolicy: string | null, hidden: boolean, 
/**
 * From `_data_stream/_stats`; `null` when the cluster did not give them.
 */
storeSizeBytes: number | null, 
/**
 * The newest `@timestamp` indexed, in milliseconds since the epoch (`null`: none yet).
 */
maximumTimestamp: number | null, };

export type DataStreamList = { dataStreams: Array<DataStreamRow>, };

export type DataStreamCreated = { name: string, acknowledged: boolean, };

export type RolledOver = { name: string, oldIndex: string | null, newIndex: string | null, rolledOver: boolean, };

export type DataStreamDeleted = { name: string, acknowledged: boolean, };

export type AnalyzedToken = { token: string, startOffset: number | null, endOffset: number | null, position: number | null, type: string | null, };

export type AnalysisStep = { 
/**
 * `charFilter`, `tokenizer`, `tokenFilter` or `analyzer` (a built-in analyzer, whose
 * inner steps the cluster does not show).
 */
kind: "charFilter" | "tokenizer" | "tokenFilter" | "analyzer", name: string, 
/**
 * A char filter's output text (empty for the other steps).
 */
filteredText: Array<string>, tokens: Array<AnalyzedToken>, };

export type AnalyzeResult = { 
/**
 * The final tokens (with `explain`, the last step's).
 */
tokens: Array<AnalyzedToken>, 
/**
 * With `explain`: every step; else empty.
 */
steps: Array<AnalysisStep>, };

export type CatApi = { name: string, 
/**
 * It needs a repository (`snapshots`).
 */
needsRepository: boolean, };

export type CatApiList = { apis: Array<CatApi>, };

export type CatColumn = { name: string, 
/**
 * The short names the cluster also takes in `h=`.
 */
aliases: Array<string>, 
/**
 * `""` when the help does not list the column.
 */
description: string, };

export type CatTable = { api: string, 
/**
 * The columns the rows have, in the help's order.
 */
columns: Array<CatColumn>, 
/**
 * One value per column; `null` where the cluster gave none.
 */
rows: Array<Array<string | null>>, 
/**
 * How many rows the cluster gave.
 */
totalRows: number, 
/**
 * How many of them were left out (more than [`MAX_ROWS`]).
 */
cutRows: number, };

export type TemplateKind = "index" | "component" | "legacy";

export type IndexTemplateRow = { name: string, indexPatterns: Array<string>, priority: number | null, composedOf: Array<string>, version: number | null, 
/**
 * Whether matching names become data streams (`data_stream` is set).
 */
dataStream: boolean, };

export type ComponentTemplateRow = { name: string, version: number | null, hasSettings: boolean, hasMappings: boolean, hasAliases: boolean, usedBy: Array<string>, };

export type LegacyTemplateRow = { name: string, indexPatterns: Array<string>, order: number | null, version: number | null, };

export type TemplateListError = { kind: TemplateKind, message: string, };

export type TemplateList = { index: Array<IndexTemplateRow>, component: Array<ComponentTemplateRow>, legacy: Array<LegacyTemplateRow>, errors: Array<TemplateListError>, };

export type TemplateDetail = { kind: TemplateKind, name: string, definition: Record<string, unknown>, };

export type PutTemplateBody = { definition: Record<string, unknown>, 
/**
 * Refuse (the cluster's 400) when a template of that name exists, instead of replacing it.
 */
create?: boolean | undefined, };

export type SimulateBody = { index: string, };

export type OverlappingTemplate = { name: string, indexPatterns: Array<string>, };

export type Simulation = { index: string, 
/**
 * The composable template that would apply, when one matches (the highest priority among
 * the index templates whose patterns match).
 */
template: string | null, settings: Record<string, unknown>, mappings: Record<string, unknown>, aliases: Record<string, unknown>, overlapping: Array<OverlappingTemplate>, 
/**
 * Legacy templates whose patterns match the name: they apply only when no composable
 * template matches.
 */
legacyMatches: Array<string>, };

export type TemplateDeleted = { kind: TemplateKind, name: string, };

export type ShardState = "started" | "initializing" | "relocating" | "unassigned";

export type Unassigned = { 
/**
 * The cluster's code, e.g. `NODE_LEFT`.
 */
reason: string, 
/**
 * The same in words.
 */
reasonText: string, at: string | null, details: string | null, 
/**
 * `no_attempt`, `decider_no`, `awaiting_info`, `no_valid_shard_copy`, `throttled`.
 */
allocationStatus: string | null, failedAttempts: number | null, delayed: boolean, };

export type GridCopy = { shard: number, primary: boolean, state: ShardState, 
/**
 * The position in `nodes` of the node holding it (the source while relocating); absent
 * when unassigned.
 */
node?: number, 
/**
 * While relocating: the position in `nodes` of the node it moves to.
 */
relocatingNode?: number, 
/**
 * When unassigned: why.
 */
unassigned?: Unassigned, };

export type GridIndex = { name: string, 
/**
 * Carries the "index closed" block.
 */
closed: boolean, 
/**
 * A dot-prefixed name (system and internal indices).
 */
system: boolean, shards: Array<GridCopy>, };

export type GridNode = { id: string, name: string, 
/**
 * Empty when the cluster does not list roles in its state (then every node counts as a
 * data node).
 */
roles: Array<string>, 
/**
 * Its data tier roles, in the order hot, warm, cold, frozen, content.
 */
tiers: Array<DataTier>, 
/**
 * Holds shards: the role `data` or any `data_*` (tier) role, or no roles listed.
 */
dataNode: boolean, 
/**
 * The elected master / cluster manager.
 */
elected: boolean, };

export type ShardGrid = { clusterName: string, 
/**
 * Data nodes first; among them by first tier (hot, warm, cold, frozen, content, none);
 * then by name.
 */
nodes: Array<GridNode>, 
/**
 * By name.
 */
indices: Array<GridIndex>, unassigned: number, relocating: number, initializing: number, };

export type DeciderVerdict = { decider: string, 
/**
 * `YES`, `NO`, `THROTTLE` as the cluster says.
 */
decision: string, 
/**
 * What the decider looks at, in words.
 */
meaning: string, 
/**
 * The cluster's own explanation.
 */
explanation: string, };

export type NodeDecision = { nodeId: string, nodeName: string, 
/**
 * `yes`, `no`, `throttled`, `worse_balance`, `awaiting_info`…
 */
decision: string, 
/**
 * One plain sentence: the node, its decision and each decider's reason.
 */
sentence: string, weightRanking: number | null, deciders: Array<DeciderVerdict>, };

export type ExplainedNode = { id: string, name: string, };

export type ShardExplanation = { index: string, shard: number, primary: boolean, 
/**
 * `unassigned`, `started`, `initializing`, `relocating`.
 */
currentState: string, currentNode: ExplainedNode | null, 
/**
 * The answer in one sentence.
 */
headline: string, 
/**
 * Why, in plain sentences (the unassigned reason, its details, the cluster's explanation).
 */
sentences: Array<string>, unassigned: Unassigned | null, canAllocate: string | null, canRemain: string | null, canMove: string | null, canRebalance: string | null, 
/**
 * The deciders that keep the copy from staying where it is.
 */
remainDeciders: Array<DeciderVerdict>, 
/**
 * Per node, the decision and the deciders behind it (refusals first).
 */
nodes: Array<NodeDecision>, };

export type MoveShard = { index: string, 
/**
 * Read wide so that a negative or huge number gets a precise message.
 */
shard: number, fromNode: string, toNode: string, };

export type Rerouted = { acknowledged: boolean, };

export type Progress = { recovered: number, total: number, 
/**
 * 0 to 100: the cluster's own figure (which leaves out what the target reuses), or, when
 * the cluster gives none, recovered over total.
 */
percent: number, };

export type Recovery = { index: string, shard: number, primary: boolean, 
/**
 * Lowercase: `peer`, `snapshot`, `existing_store`, `empty_store`, `local_shards`, or
 * whatever else the cluster says (empty when it says nothing).
 */
kind: string, 
/**
 * Lowercase: `init`, `index`, `verify_index`, `translog`, `finalize`, `done`, or whatever
 * else the cluster says.
 */
stage: string, 
/**
 * The node the data comes from (peer recoveries only).
 */
sourceNodeId: string | null, sourceNode: string | null, 
/**
 * For a snapshot recovery: `repository/snapshot`.
 */
sourceSnapshot: string | null, targetNodeId: string | null, targetNode: string | null, bytes: Progress, files: Progress, translogOps: Progress, elapsedMillis: number, };

export type Recoveries = { 
/**
 * By index name, shard, primary first; at most [`MAX_RECOVERIES`].
 */
recoveries: Array<Recovery>, 
/**
 * How many the cluster listed (more than `recoveries` holds when cut).
 */
total: number, truncated: boolean, };

export type DataTier = "hot" | "warm" | "cold" | "frozen" | "content";

export type GcCollector = { name: string, count: number, timeMs: number, };

export type JvmStats = { heapUsedBytes: number, heapMaxBytes: number, heapUsedPercent: number | null, nonHeapUsedBytes: number | null, threads: number | null, uptimeMs: number | null, gc: Array<GcCollector>, };

export type OsStats = { cpuPercent: number | null, 
/**
 * 1, 5 and 15 minutes (absent on Windows).
 */
loadAverage: Array<number>, memTotalBytes: number | null, memUsedBytes: number | null, memUsedPercent: number | null, swapUsedBytes: number | null, };

export type FileSystem = { path: string, mount: string | null, kind: string | null, totalBytes: number, availableBytes: number, usedPercent: number | null, };

export type ThreadPool = { name: string, threads: number, active: number, queue: number, rejected: number, largest: number, completed: number, };

export type Breaker = { name: string, limitBytes: number, estimatedBytes: number, usedPercent: number | null, overhead: number | null, tripped: number, };

export type NodeShard = { index: string, shard: number, primary: boolean, state: ShardState, 
/**
 * Relocating away: the target node id.
 */
relocatingTo: string | null, 
/**
 * Being filled by a relocation: the source node id.
 */
relocatingFrom: string | null, };

export type NodeDetail = { id: string, name: string, host: string | null, ip: string | null, transportAddress: string | null, roles: Array<string>, 
/**
 * Its data tier roles, in the order hot, warm, cold, frozen, content.
 */
tiers: Array<DataTier>, 
/**
 * Holds shards: the role `data` or any `data_*` (tier) role.
 */
dataNode: boolean, 
/**
 * The manager role's name in this cluster's dialect (`master` or `cluster_manager`).
 */
managerRole: string, managerEligible: boolean, jvm: JvmStats | null, os: OsStats | null, fileSystems: Array<FileSystem>, 
/**
 * Pools with rejections first, then by name.
 */
threadPools: Array<ThreadPool>, breakers: Array<Breaker>, shards: Array<NodeShard>, };

export type Task = { 
/**
 * `node_id:number`, as the cancel and get calls take it.
 */
id: string, node: string, 
/**
 * The node's name, when the answer gives it (the list does).
 */
nodeName: string | null, action: string, 
/**
 * `transport`, `direct`, `persistent`…
 */
type: string, description: string | null, startTimeMillis: number | null, runningTimeNanos: number, cancellable: boolean, cancelled: boolean, parentTaskId: string | null, headers: { [key in string]: string }, 
/**
 * The action's own progress report (a reindex's counts, a recovery's stage), as given.
 */
status: unknown, };

export type TaskList = { tasks: Array<Task>, 
/**
 * Nodes that did not answer (the list is then partial).
 */
nodeFailures: Array<string>, };

export type TaskDetail = { completed: boolean, task: Task, 
/**
 * The result of a finished task kept by the cluster (`.tasks` index), as given.
 */
response: unknown, error: unknown, };

export type CancelResult = { 
/**
 * The tasks the cluster marked cancelled (the task and, with it, its children).
 */
cancelled: Array<Task>, };

export type Repository = { name: string, 
/**
 * `fs`, `url`, or another type a plugin adds (`s3`, `gcs`, `azure`…).
 */
type: string, 
/**
 * Its settings as the cluster keeps them (`location`, `url`, `compress`…).
 */
settings: Record<string, unknown>, };

export type RepositoryList = { repositories: Array<Repository>, };

export type RepositoryType = "fs" | "url";

export type RepositoryRegisterBody = { type: RepositoryType, settings: Record<string, string | number | boolean>, };

export type VerifiedNode = { id: string, name: string, };

export type RepositoryVerification = { verified: boolean, nodes: Array<VerifiedNode>, error: string | null, };

export type SnapshotState = "IN_PROGRESS" | "SUCCESS" | "FAILED" | "PARTIAL" | "INCOMPATIBLE" | "UNKNOWN";

export type SnapshotRow = { name: string, uuid: string | null, state: SnapshotState, 
/**
 * Start and end, milliseconds since the epoch; no end while in progress.
 */
startMillis: number | null, endMillis: number | null, durationMillis: number | null, indexCount: number, shardsTotal: number, shardsFailed: number, shardsSuccessful: number, includeGlobalState: boolean | null, 
/**
 * Why the snapshot failed or is partial, when the cluster says.
 */
reason: string | null, 
/**
 * The version of the cluster that took it.
 */
version: string | null, };

export type SnapshotList = { snapshots: Array<SnapshotRow>, };

export type SnapshotShardFailure = { index: string, shardId: number | null, nodeId: string | null, reason: string, };

export type SnapshotProgress = { state: SnapshotState, shardsDone: number, shardsTotal: number, shardsFailed: number, shardsStarted: number, shardsInitializing: number, shardsFinalizing: number, 
/**
 * Bytes and files copied so far of those this snapshot must copy (what earlier
 * snapshots in the repository already hold is not copied again).
 */
bytesDone: number, bytesTotal: number, filesDone: number, filesTotal: number, 
/**
 * The size of every file the snapshot refers to, copied now or before.
 */
sizeInRepositoryBytes: number, timeMillis: number | null, };

export type SnapshotDetail = { snapshot: SnapshotRow, indices: Array<string>, dataStreams: Array<string>, failures: Array<SnapshotShardFailure>, progress: SnapshotProgress | null, progressError: string | null, };

export type SnapshotCreateBody = { name: string, 
/**
 * Index names or patterns (`logs-*`, `-logs-old`); none or empty: every open index.
 */
indices?: Array<string>, 
/**
 * Include the cluster state (templates, persistent settings…); the cluster's default
 * (true) when absent.
 */
includeGlobalState?: boolean, };

export type SnapshotRestoreBody = { 
/**
 * Index names or patterns of the snapshot to restore; none or empty: all of them.
 */
indices?: Array<string>, 
/**
 * A (Java) regular expression over the restored indices' names and the replacement that
 * renames them (`(.+)` → `restored-$1`); both or neither.
 */
renamePattern?: string, renameReplacement?: string, 
/**
 * Restore the cluster state too (the cluster's default, false, when absent).
 */
includeGlobalState?: boolean, };

export type SnapshotAccepted = { name: string, accepted: boolean, };

export type SnapshotAcknowledged = { acknowledged: boolean, };

export type ClusterSettings = { persistent: Record<string, unknown>, transient: Record<string, unknown>, 
/**
 * Only when asked (`includeDefaults=true`): every other setting at its default.
 */
defaults: Record<string, unknown> | null, };

export type SettingScope = "persistent" | "transient";

export type PutSettingBody = { scope: SettingScope, key: string, value: string | number | boolean | null | Array<string | number | boolean>, };

export type Comparison = { left: string, right: string, sections: Array<CompareSection>, };

export type CompareSection = { kind: CompareSectionKind, leftError: string | null, rightError: string | null, differences: number, entries: Array<CompareEntry>, };

export type CompareSectionKind = "persistentSettings" | "transientSettings" | "indexTemplates" | "componentTemplates" | "legacyTemplates" | "lifecyclePolicies";

export type CompareEntry = { name: string, state: CompareState, left: unknown, right: unknown, };

export type CompareState = "onlyLeft" | "onlyRight" | "different" | "same";

export type SecurityUser = { name: string, 
/**
 * The security roles the user has directly (OpenSearch `opendistro_security_roles`,
 * Elasticsearch `roles`).
 */
roles: Array<string>, 
/**
 * OpenSearch backend roles (role mappings match them); empty on Elasticsearch.
 */
backendRoles: Array<string>, 
/**
 * Elasticsearch only.
 */
fullName: string | null, 
/**
 * Elasticsearch only.
 */
email: string | null, 
/**
 * Always true on OpenSearch (internal users cannot be disabled).
 */
enabled: boolean, 
/**
 * OpenSearch `attributes`; Elasticsearch's text `metadata` (keys not starting with `_`).
 */
attributes: { [key in string]: string }, 
/**
 * Built in (OpenSearch `reserved`/`static`/`hidden`, Elasticsearch `metadata._reserved`):
 * shown, never changed through the console.
 */
reserved: boolean, };

export type IndexPermission = { 
/**
 * OpenSearch `index_patterns`, Elasticsearch `names`.
 */
indexPatterns: Array<string>, 
/**
 * OpenSearch `allowed_actions`, Elasticsearch `privileges`.
 */
actions: Array<string>, };

export type SecurityRole = { name: string, description: string | null, 
/**
 * OpenSearch `cluster_permissions`, Elasticsearch `cluster`.
 */
clusterPermissions: Array<string>, indexPermissions: Array<IndexPermission>, reserved: boolean, };

export type SecurityRoleMapping = { 
/**
 * OpenSearch: the role's own name; Elasticsearch: the mapping's name.
 */
name: string, 
/**
 * The roles given (OpenSearch: the one role the mapping is named after).
 */
roles: Array<string>, 
/**
 * The user names matched (Elasticsearch: the `username` fields of its rules).
 */
users: Array<string>, 
/**
 * The backend roles (Elasticsearch: the `groups` fields of its rules).
 */
backendRoles: Array<string>, enabled: boolean, 
/**
 * Elasticsearch: its rules use more than user names and groups (shown, not editable
 * here: the console keeps to `any` of `username` and `groups` fields).
 */
otherRules: boolean, reserved: boolean, };

export type SecurityOverview = { distribution: "elasticsearch" | "opensearch", users: Array<SecurityUser>, roles: Array<SecurityRole>, roleMappings: Array<SecurityRoleMapping>, };

export type UserChange = { password?: string | null, roles: Array<string>, backendRoles: Array<string>, fullName: string | null, email: string | null, enabled: boolean | null, attributes: { [key in string]: string }, };

export type RoleChange = { description: string | null, clusterPermissions: Array<string>, indexPermissions: Array<IndexPermission>, };

export type RoleMappingChange = { roles: Array<string>, users: Array<string>, backendRoles: Array<string>, enabled: boolean | null, };

export type SecurityWritten = { 
/**
 * `users`, `roles` or `role_mappings`.
 */
kind: string, name: string, 
/**
 * True when the entry did not exist before (a write), false on a delete or an edit.
 */
created: boolean, deleted: boolean, };
