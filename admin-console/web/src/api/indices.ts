// Index management: create, delete, the actions on one index or a selection, an
// index's page and the edit of its dynamic settings (docs/api/admin-console.md, "Indices").
import { cluster, request } from "./client";
import type {
  ActionAnswer,
  ActionRequest,
  CreateIndex,
  Dialect,
  Created,
  Deleted,
  IndexAction,
  IndexDetail,
  PutSettings,
  SettingsChanged,
} from "./wire";

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
});

const indexPath = (id: string, index: string) => `${cluster(id)}/indices/${encodeURIComponent(index)}`;

export const indicesApi = {
  create: (id: string, body: CreateIndex) => request<Created>(`${cluster(id)}/indices`, json("POST", body)),
  /** Deletes one index; `confirm` must be its exact name (the server checks it too). */
  remove: (id: string, index: string, confirm: string) =>
    request<Deleted>(`${indexPath(id, index)}?confirm=${encodeURIComponent(confirm)}`, { method: "DELETE" }),
  run: (id: string, action: IndexAction, body: ActionRequest) =>
    request<ActionAnswer>(`${cluster(id)}/indices/_actions/${action}`, json("POST", body)),
  detail: (id: string, index: string, signal?: AbortSignal) => request<IndexDetail>(indexPath(id, index), undefined, signal),
  putSettings: (id: string, index: string, settings: PutSettings["settings"]) =>
    request<SettingsChanged>(`${indexPath(id, index)}/settings`, json("PUT", { settings } satisfies PutSettings)),
};

/** The cluster's dialect (OpenSearch refuses `+` in new index names). */
export const dialect = (id: string, signal?: AbortSignal) => request<Dialect>(`${cluster(id)}/dialect`, undefined, signal);
