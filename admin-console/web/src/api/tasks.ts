// Tasks: the running tasks with filters, one task's detail, and cancelling one
// (docs/api/admin-console.md, "Tasks").
import { cluster, request } from "./client";
import type { CancelResult, TaskDetail, TaskList } from "./wire";

export interface TaskFilters {
  /** Comma-separated action patterns with `*` (`*reindex,indices:data/write/*`). */
  actions: string;
  /** Comma-separated node ids or names. */
  nodes: string;
  cancellableOnly: boolean;
  /** Running at least this long; 0 for all. */
  minRunningMs: number;
}

export const NO_TASK_FILTERS: TaskFilters = { actions: "", nodes: "", cancellableOnly: false, minRunningMs: 0 };

/** The query string of `GET /tasks` for `filters` (empty filters are left out). */
export function taskQuery(filters: TaskFilters): string {
  const params = new URLSearchParams();
  if (filters.actions.trim()) params.set("actions", filters.actions.trim());
  if (filters.nodes.trim()) params.set("nodes", filters.nodes.trim());
  if (filters.cancellableOnly) params.set("cancellable", "true");
  if (filters.minRunningMs > 0) params.set("minRunningMs", String(Math.floor(filters.minRunningMs)));
  const text = params.toString();
  return text ? `?${text}` : "";
}

const taskPath = (id: string, taskId: string) => `${cluster(id)}/tasks/${encodeURIComponent(taskId)}`;

export const tasksApi = {
  list: (id: string, filters: TaskFilters, signal?: AbortSignal) =>
    request<TaskList>(`${cluster(id)}/tasks${taskQuery(filters)}`, undefined, signal),
  get: (id: string, taskId: string, signal?: AbortSignal) => request<TaskDetail>(taskPath(id, taskId), undefined, signal),
  cancel: (id: string, taskId: string) => request<CancelResult>(`${taskPath(id, taskId)}/cancel`, { method: "POST" }),
};
