// The cluster's own security: users, roles and role mappings of the OpenSearch security plugin
// or the Elasticsearch native realm (docs/admin-console.md, "Cluster security"). Admin only;
// a password is sent write-only and never comes back.
import { cluster, request } from "./client";
import type { RoleChange, RoleMappingChange, SecurityOverview, SecurityWritten, UserChange } from "./wire";

export type SecurityKind = "users" | "roles" | "role_mappings";

/** The change body of each kind (the wire types without the server-only fields). */
export type SecurityChange = {
  users: Partial<UserChange>;
  roles: Partial<RoleChange>;
  role_mappings: Partial<RoleMappingChange>;
};

const entryPath = (id: string, kind: SecurityKind, name: string) => `${cluster(id)}/security/${kind}/${encodeURIComponent(name)}`;

export const securityApi = {
  overview: (id: string, signal?: AbortSignal) => request<SecurityOverview>(`${cluster(id)}/security`, undefined, signal),
  put: <K extends SecurityKind>(id: string, kind: K, name: string, change: SecurityChange[K], create: boolean) =>
    request<SecurityWritten>(`${entryPath(id, kind, name)}${create ? "?create=true" : ""}`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(change),
    }),
  remove: (id: string, kind: SecurityKind, name: string, confirm: string) =>
    request<SecurityWritten>(`${entryPath(id, kind, name)}?confirm=${encodeURIComponent(confirm)}`, { method: "DELETE" }),
};
