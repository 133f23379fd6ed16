// Long operations started as tasks (shrink, split, clone, force merge, reindex): the checks of
// their dialogs as the user types (the server's rules, docs/admin-console.md "Long
// operations"), the request bodies, a running task's progress in words and the notice when a
// followed task ends. Kept out of the components so tests call it directly.
import type { ForcemergeRequest, IndexDetail, Operation, ReindexRequest, ResizeRequest, Task, TaskDetail } from "../api/wire";
import { nameProblem, whole, type Checked } from "../views/indexForms";

export type ResizeKind = Extract<Operation, "shrink" | "split" | "clone">;

export interface OperationInfo {
  operation: Operation;
  label: string;
  hint: string;
  /** The role it needs (the server's table). */
  role: "operator" | "admin";
}

export const OPERATIONS: readonly OperationInfo[] = [
  { operation: "shrink", label: "Shrink…", hint: "a new index with fewer primary shards", role: "admin" },
  { operation: "split", label: "Split…", hint: "a new index with more primary shards", role: "admin" },
  { operation: "clone", label: "Clone…", hint: "a new index with the same shards and documents", role: "admin" },
  { operation: "forcemerge", label: "Force merge…", hint: "merge segments in the background", role: "operator" },
  { operation: "reindex", label: "Reindex to…", hint: "copy the documents into another index", role: "admin" },
];

/** What the dialogs know of the source index. */
export interface SourceFacts {
  name: string;
  shards: number;
  /** `index.blocks.write` or `index.blocks.read_only` is set. */
  readOnly: boolean;
}

export interface ResizeForm {
  target: string;
  shards: string;
  replicas: string;
}

/** The factors of `n` below it: the shard counts a shrink may ask for. */
export function shrinkCounts(n: number): number[] {
  const counts: number[] = [];
  for (let k = 1; k < n; k++) if (n % k === 0) counts.push(k);
  return counts;
}

/** The body of a resize, or every problem at once (the server says the same before it calls
 * the cluster). */
export function buildResize(kind: ResizeKind, source: SourceFacts, form: ResizeForm, opensearch = false): Checked<ResizeRequest> {
  const errors: string[] = [];
  const target = form.target.trim();
  const problem = nameProblem(target, "index", opensearch);
  if (problem) errors.push(problem);
  else if (target === source.name) errors.push("The target must be a new index, not the source itself.");
  const shards = kind === "clone" ? undefined : whole(form.shards, "Shards", 1, 1024, errors);
  if (kind !== "clone" && form.shards.trim() === "") errors.push("Shards is needed: the target's number of primary shards.");
  if (kind === "shrink" && shards !== undefined && (shards >= source.shards || source.shards % shards !== 0)) {
    const counts = shrinkCounts(source.shards);
    errors.push(
      counts.length === 0
        ? `${source.name} has one primary shard: it cannot shrink.`
        : `A shrink of ${source.shards} shards goes to one of ${counts.join(", ")}.`,
    );
  }
  if (kind === "split" && shards !== undefined && (shards <= source.shards || shards % source.shards !== 0)) {
    errors.push(`A split of ${source.shards} shards goes to a larger multiple of ${source.shards}, such as ${source.shards * 2}.`);
  }
  const replicas = whole(form.replicas, "Replicas", 0, 16, errors);
  if (!source.readOnly) errors.push(`${source.name} must be read-only first: add its write block (Block writes).`);
  if (errors.length > 0) return { ok: false, errors };
  const body: ResizeRequest = { target };
  if (shards !== undefined) body.shards = shards;
  if (replicas !== undefined) body.replicas = replicas;
  return { ok: true, value: body };
}

export function buildForcemerge(segments: string): Checked<ForcemergeRequest> {
  const errors: string[] = [];
  const maxNumSegments = whole(segments, "Segments", 1, 1024, errors);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: maxNumSegments === undefined ? {} : { maxNumSegments } };
}

export interface ReindexForm {
  dest: string;
  requestsPerSecond: string;
}

export function buildReindex(source: string, form: ReindexForm, opensearch = false): Checked<ReindexRequest> {
  const errors: string[] = [];
  const dest = form.dest.trim();
  const problem = nameProblem(dest, "index", opensearch);
  if (problem) errors.push(problem);
  else if (dest === source) errors.push("The destination must be another index.");
  const requestsPerSecond = whole(form.requestsPerSecond, "Documents a second", 1, 1_000_000, errors);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: requestsPerSecond === undefined ? { source, dest } : { source, dest, requestsPerSecond } };
}

/** The progress a task reports, in words: a reindex's (or update/delete by query's) documents
 * done of the total; null when the status says nothing countable. */
export function taskProgress(task: Pick<Task, "status">): { done: number; total: number; text: string } | null {
  const status = task.status;
  if (status === null || typeof status !== "object" || Array.isArray(status)) return null;
  const s = status as Record<string, unknown>;
  const total = s.total;
  if (typeof total !== "number" || !Number.isFinite(total) || total < 0) return null;
  const count = (key: string) => (typeof s[key] === "number" && Number.isFinite(s[key]) ? (s[key] as number) : 0);
  const done = count("created") + count("updated") + count("deleted") + count("noops") + count("version_conflicts");
  const percent = total === 0 ? 100 : Math.min(100, Math.floor((done / total) * 100));
  return { done, total, text: `${done.toLocaleString("en")} of ${total.toLocaleString("en")} (${percent}%)` };
}

/** The notice when a followed task has ended: its result in words, or the cluster's reason. */
export function endNotice(detail: TaskDetail): { ok: boolean; text: string } | null {
  if (!detail.completed) return null;
  const what = detail.task.description ?? detail.task.action;
  const error = detail.error as { reason?: unknown; type?: unknown } | null;
  if (error != null) {
    const reason = typeof error.reason === "string" ? error.reason : typeof error.type === "string" ? error.type : "no reason given";
    return { ok: false, text: `Failed: ${what}: ${reason}` };
  }
  const response = detail.response as Record<string, unknown> | null;
  const failures = response && Array.isArray(response.failures) ? response.failures.length : 0;
  if (failures > 0) return { ok: false, text: `Done with ${failures} failures: ${what}` };
  if (detail.task.cancelled) return { ok: false, text: `Cancelled: ${what}` };
  const created = response && typeof response.created === "number" ? ` (${response.created.toLocaleString("en")} documents created)` : "";
  return { ok: true, text: `Done: ${what}${created}` };
}

/** The facts the dialogs check from an index's page (its flat settings). */
export function sourceFacts(detail: Pick<IndexDetail, "name" | "settings" | "shards">): SourceFacts {
  const setting = (key: string) => detail.settings.find((row) => row.key === key)?.value;
  const on = (key: string) => String(setting(key)) === "true";
  const fromSettings = Number(setting("index.number_of_shards"));
  const primaries = new Set(detail.shards.filter((s) => s.primary).map((s) => s.shard)).size;
  return {
    name: detail.name,
    shards: Number.isInteger(fromSettings) && fromSettings > 0 ? fromSettings : Math.max(primaries, 1),
    readOnly: on("index.blocks.write") || on("index.blocks.read_only"),
  };
}
