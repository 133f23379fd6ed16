// Templates: composable index templates, component templates and legacy templates —
// list, view, create or replace, delete, and simulate what an index name would get
// (docs/api/admin-console.md, "Templates").
import { cluster, request } from "./client";
import type {
  PutTemplateBody,
  SimulateBody,
  Simulation,
  TemplateDeleted,
  TemplateDetail,
  TemplateKind,
  TemplateList,
} from "./wire";

const templatePath = (id: string, kind: TemplateKind, name: string) =>
  `${cluster(id)}/templates/${kind}/${encodeURIComponent(name)}`;

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
});

export const templatesApi = {
  list: (id: string, signal?: AbortSignal) => request<TemplateList>(`${cluster(id)}/templates`, undefined, signal),
  get: (id: string, kind: TemplateKind, name: string, signal?: AbortSignal) =>
    request<TemplateDetail>(templatePath(id, kind, name), undefined, signal),
  put: (id: string, kind: TemplateKind, name: string, definition: Record<string, unknown>, create: boolean) =>
    request<TemplateDetail>(templatePath(id, kind, name), json("PUT", { definition, create } satisfies PutTemplateBody)),
  remove: (id: string, kind: TemplateKind, name: string, confirm: string) =>
    request<TemplateDeleted>(`${templatePath(id, kind, name)}?confirm=${encodeURIComponent(confirm)}`, { method: "DELETE" }),
  simulate: (id: string, index: string) =>
    request<Simulation>(`${cluster(id)}/templates/simulate`, json("POST", { index } satisfies SimulateBody)),
};
