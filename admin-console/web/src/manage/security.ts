// The logic of the Security view, kept out of the component so tests call it directly: the
// forms' text fields (comma lists, `key=value` lines, `patterns : actions` lines) to and from the
// wire types, and the change body each form sends. A password field left empty on an edit is
// not sent (the cluster keeps the password); nothing here ever holds a hash.
import type { IndexPermission, SecurityRole, SecurityRoleMapping, SecurityUser } from "../api/wire";
import type { SecurityChange } from "../api/security";

export type Distribution = "elasticsearch" | "opensearch";

/** `a, b ,, c` → `["a", "b", "c"]`. */
export function splitList(text: string): string[] {
  return text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

export const joinList = (items: readonly string[]) => items.join(", ");

/** `key=value` lines → a map; a line without `=` is a problem. */
export function parseAttributes(text: string): { attributes: Record<string, string>; problem: string | null } {
  const attributes: Record<string, string> = {};
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const at = line.indexOf("=");
    if (at <= 0) return { attributes, problem: `"${line.trim()}" is not key=value.` };
    attributes[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { attributes, problem: null };
}

export const formatAttributes = (attributes: Record<string, string>) =>
  Object.entries(attributes)
    .map(([key, value]) => `${key}=${value}`)
    .join("\n");

/** The separator of an index-permission line: a `:` with space on both sides (patterns such as
 * `remote:logs-*` and actions such as `indices:data/read/search` hold a bare `:`). */
const PERMISSION_SEPARATOR = /\s+:\s+/;

/** `logs-*, web-* : read, indices:data/read/search` lines → index permissions, split at the
 * first ` : `. */
export function parseIndexPermissions(text: string): { permissions: IndexPermission[]; problem: string | null } {
  const permissions: IndexPermission[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const separator = PERMISSION_SEPARATOR.exec(line);
    const indexPatterns = separator ? splitList(line.slice(0, separator.index)) : [];
    const actions = separator ? splitList(line.slice(separator.index + separator[0].length)) : [];
    if (indexPatterns.length === 0 || actions.length === 0) {
      return { permissions, problem: `"${line.trim()}" is not "index patterns : actions".` };
    }
    permissions.push({ indexPatterns, actions });
  }
  return { permissions, problem: null };
}

export const formatIndexPermissions = (permissions: readonly IndexPermission[]) =>
  permissions.map((p) => `${joinList(p.indexPatterns)} : ${joinList(p.actions)}`).join("\n");

/** The text of a user form. */
export interface UserForm {
  name: string;
  password: string;
  roles: string;
  backendRoles: string;
  fullName: string;
  email: string;
  enabled: boolean;
  attributes: string;
}

export const userForm = (user?: SecurityUser): UserForm => ({
  name: user?.name ?? "",
  password: "",
  roles: joinList(user?.roles ?? []),
  backendRoles: joinList(user?.backendRoles ?? []),
  fullName: user?.fullName ?? "",
  email: user?.email ?? "",
  enabled: user?.enabled ?? true,
  attributes: formatAttributes(user?.attributes ?? {}),
});

/** The body of a user's PUT, or why it cannot be sent. */
export function userChange(form: UserForm, distribution: Distribution, creating: boolean): { change: SecurityChange["users"] } | { problem: string } {
  if (creating && form.password === "") return { problem: "A new user needs a password." };
  const { attributes, problem } = parseAttributes(form.attributes);
  if (problem) return { problem };
  const change: SecurityChange["users"] = { roles: splitList(form.roles), attributes };
  if (form.password !== "") change.password = form.password;
  if (distribution === "opensearch") change.backendRoles = splitList(form.backendRoles);
  else {
    change.fullName = form.fullName.trim() || null;
    change.email = form.email.trim() || null;
    change.enabled = form.enabled;
  }
  return { change };
}

export interface RoleForm {
  name: string;
  description: string;
  clusterPermissions: string;
  indexPermissions: string;
}

export const roleForm = (role?: SecurityRole): RoleForm => ({
  name: role?.name ?? "",
  description: role?.description ?? "",
  clusterPermissions: joinList(role?.clusterPermissions ?? []),
  indexPermissions: formatIndexPermissions(role?.indexPermissions ?? []),
});

export function roleChange(form: RoleForm): { change: SecurityChange["roles"] } | { problem: string } {
  const { permissions, problem } = parseIndexPermissions(form.indexPermissions);
  if (problem) return { problem };
  return {
    change: { description: form.description.trim() || null, clusterPermissions: splitList(form.clusterPermissions), indexPermissions: permissions },
  };
}

export interface MappingForm {
  name: string;
  roles: string;
  users: string;
  backendRoles: string;
}

export const mappingForm = (mapping?: SecurityRoleMapping): MappingForm => ({
  name: mapping?.name ?? "",
  roles: joinList(mapping?.roles ?? []),
  users: joinList(mapping?.users ?? []),
  backendRoles: joinList(mapping?.backendRoles ?? []),
});

/** On OpenSearch a mapping is named after its one role (the name field is the role). */
export function mappingChange(form: MappingForm, distribution: Distribution): { change: SecurityChange["role_mappings"] } | { problem: string } {
  const users = splitList(form.users);
  const backendRoles = splitList(form.backendRoles);
  if (distribution === "opensearch") return { change: { users, backendRoles } };
  const roles = splitList(form.roles);
  if (roles.length === 0) return { problem: "A role mapping needs at least one role." };
  if (users.length === 0 && backendRoles.length === 0) return { problem: "A role mapping needs at least one user or group to match." };
  return { change: { roles, users, backendRoles } };
}

/** Why `name` cannot name a new entry, or null (the server's rules: printable, no / or \, and
 * no , or * — Elasticsearch reads those in a path as a list or a wildcard). */
export function securityNameProblem(name: string): string | null {
  if (name === "") return "A name is needed.";
  if (name !== name.trim()) return "The name must not start or end with a space.";
  if (name === "." || name === "..") return "The name cannot be . or ..";
  if (/[/\\,*\u0000-\u001f\u007f]/.test(name)) return "The name must not contain /, \\, a comma, * or control characters.";
  return null;
}
