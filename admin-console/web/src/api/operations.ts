// Long operations started as tasks: shrink, split, clone, force merge and reindex, each
// answered 202 with the task to follow (docs/admin-console.md, "Long operations").
import { cluster, request } from "./client";
import type { ForcemergeRequest, ReindexRequest, ResizeRequest, RolledOver, Started } from "./wire";
import type { ResizeKind } from "../manage/operations";

const json = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
});

const indexPath = (id: string, index: string) => `${cluster(id)}/indices/${encodeURIComponent(index)}`;

export const operationsApi = {
  resize: (id: string, kind: ResizeKind, index: string, body: ResizeRequest) => request<Started>(`${indexPath(id, index)}/${kind}`, json(body)),
  forcemerge: (id: string, index: string, body: ForcemergeRequest) => request<Started>(`${indexPath(id, index)}/forcemerge`, json(body)),
  reindex: (id: string, body: ReindexRequest) => request<Started>(`${cluster(id)}/reindex`, json(body)),
  /** A new write index for the alias, now (no task: it returns once the index exists). */
  rolloverAlias: (id: string, alias: string) => request<RolledOver>(`${cluster(id)}/aliases/${encodeURIComponent(alias)}/rollover`, { method: "POST" }),
};
