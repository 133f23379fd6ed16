// Typed client of the snapshot routes (docs/api/admin-console.md, "Snapshots"): repositories
// and the snapshots of each, under /api/clusters/:id.
import { cluster, request } from "./client";
import type {
  RepositoryList,
  RepositoryRegisterBody,
  RepositoryVerification,
  SnapshotAccepted,
  SnapshotAcknowledged,
  SnapshotCreateBody,
  SnapshotDetail,
  SnapshotList,
  SnapshotRestoreBody,
} from "./wire";

const repositories = (id: string) => `${cluster(id)}/repositories`;
const repository = (id: string, repo: string) => `${repositories(id)}/${encodeURIComponent(repo)}`;
const snapshot = (id: string, repo: string, snap: string) =>
  `${repository(id, repo)}/snapshots/${encodeURIComponent(snap)}`;

function json(method: string, body: unknown): RequestInit {
  return { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
}

export const snapshotsApi = {
  repositories: (id: string, signal?: AbortSignal) =>
    request<RepositoryList>(repositories(id), undefined, signal).then((r) => r.repositories),
  register: (id: string, repo: string, body: RepositoryRegisterBody) =>
    request<SnapshotAcknowledged>(repository(id, repo), json("PUT", body)),
  deleteRepository: (id: string, repo: string, confirm: string) =>
    request<SnapshotAcknowledged>(`${repository(id, repo)}?confirm=${encodeURIComponent(confirm)}`, { method: "DELETE" }),
  verify: (id: string, repo: string) =>
    request<RepositoryVerification>(`${repository(id, repo)}/verify`, { method: "POST" }),
  snapshots: (id: string, repo: string, signal?: AbortSignal) =>
    request<SnapshotList>(`${repository(id, repo)}/snapshots`, undefined, signal).then((r) => r.snapshots),
  create: (id: string, repo: string, body: SnapshotCreateBody) =>
    request<SnapshotAccepted>(`${repository(id, repo)}/snapshots`, json("POST", body)),
  /** `sizes`: also the bytes and files from `_status` for a finished snapshot (the cluster reads
   * every shard's metadata from the repository for it; a running one always has them). */
  detail: (id: string, repo: string, snap: string, signal?: AbortSignal, sizes = false) =>
    request<SnapshotDetail>(`${snapshot(id, repo, snap)}${sizes ? "?sizes=true" : ""}`, undefined, signal),
  restore: (id: string, repo: string, snap: string, body: SnapshotRestoreBody) =>
    request<SnapshotAccepted>(`${snapshot(id, repo, snap)}/restore`, json("POST", body)),
  deleteSnapshot: (id: string, repo: string, snap: string, confirm: string) =>
    request<SnapshotAcknowledged>(`${snapshot(id, repo, snap)}?confirm=${encodeURIComponent(confirm)}`, { method: "DELETE" }),
};
