// Data streams: the list with backing indices, generation, template and health; create from a
// matching index template, roll over, delete by the typed name (docs/api/admin-console.md,
// "Data streams").
import { cluster, request } from "./client";
import type { DataStreamCreated, DataStreamDeleted, DataStreamList, RolledOver } from "./wire";

const streamPath = (id: string, name: string) => `${cluster(id)}/data_streams/${encodeURIComponent(name)}`;

export const dataStreamsApi = {
  list: (id: string, signal?: AbortSignal) => request<DataStreamList>(`${cluster(id)}/data_streams`, undefined, signal),
  create: (id: string, name: string) => request<DataStreamCreated>(streamPath(id, name), { method: "PUT" }),
  rollover: (id: string, name: string) => request<RolledOver>(`${streamPath(id, name)}/_rollover`, { method: "POST" }),
  remove: (id: string, name: string, confirm: string) =>
    request<DataStreamDeleted>(`${streamPath(id, name)}?confirm=${encodeURIComponent(confirm)}`, { method: "DELETE" }),
};
