// Comparing two clusters: settings, templates and lifecycle policies side by side
// (docs/api/admin-console.md, "Compare two clusters").
import { cluster, request } from "./client";
import type { Comparison } from "./wire";

export const compareApi = {
  get: (left: string, right: string, signal?: AbortSignal) =>
    request<Comparison>(`${cluster(left)}/compare/${encodeURIComponent(right)}`, undefined, signal),
};
