// Recoveries in progress: of the whole cluster or of one index (docs/api/admin-console.md,
// "Recoveries").
import { cluster, request } from "./client";
import type { Recoveries } from "./wire";

export const recoveryApi = {
  all: (id: string, signal?: AbortSignal) => request<Recoveries>(`${cluster(id)}/recoveries`, undefined, signal),
  ofIndex: (id: string, index: string, signal?: AbortSignal) =>
    request<Recoveries>(`${cluster(id)}/indices/${encodeURIComponent(index)}/recoveries`, undefined, signal),
};
