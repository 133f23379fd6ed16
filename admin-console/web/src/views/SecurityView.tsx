// Security: the cluster's own users, roles and role mappings (OpenSearch security plugin or
// Elasticsearch native realm), admin only. Three tables; create and edit in a dialog (a
// password is write-only: left empty on an edit, the cluster keeps it), delete by the typed
// name. Reserved (built-in) entries are shown read-only. A cluster without security shows the
// server's message.
import { useState, type ReactNode } from "react";
import { securityApi, type SecurityKind } from "../api/security";
import type { SecurityRole, SecurityRoleMapping, SecurityUser } from "../api/wire";
import { useAsync } from "../lib/useAsync";
import { useTitle } from "../lib/router";
import { ACTION_ROLES } from "../lib/access";
import { useClusterAccess } from "../lib/whoami";
import { EmptyState, ErrorState, Loading } from "../components/common";
import { ConfirmDialog } from "../components/ConfirmDialog";
import {
  joinList,
  mappingChange,
  mappingForm,
  roleChange,
  roleForm,
  securityNameProblem,
  userChange,
  userForm,
  type Distribution,
  type MappingForm,
  type RoleForm,
  type UserForm,
} from "../manage/security";
import "../styles/cluster-ops.css";

const TABS: ReadonlyArray<{ id: SecurityKind; label: string }> = [
  { id: "users", label: "Users" },
  { id: "roles", label: "Roles" },
  { id: "role_mappings", label: "Role mappings" },
];

type Editing =
  | { kind: "users"; creating: boolean; form: UserForm }
  | { kind: "roles"; creating: boolean; form: RoleForm }
  | { kind: "role_mappings"; creating: boolean; form: MappingForm };

type Entry = SecurityUser | SecurityRole | SecurityRoleMapping;

export function SecurityView({ clusterId }: { clusterId: string }) {
  useTitle(`${clusterId} · Security`);
  const access = useClusterAccess(clusterId);
  const denied = access.denied(ACTION_ROLES.manageSecurity);
  if (denied) {
    return (
      <div className="view" data-testid="security-view">
        <EmptyState title="Cluster security is for admins">{denied}</EmptyState>
      </div>
    );
  }
  return <SecurityTables clusterId={clusterId} />;
}

function SecurityTables({ clusterId }: { clusterId: string }) {
  const overview = useAsync((signal) => securityApi.overview(clusterId, signal), [clusterId]);
  const [tab, setTab] = useState<SecurityKind>("users");
  const [editing, setEditing] = useState<Editing | null>(null);
  const [deleting, setDeleting] = useState<{ kind: SecurityKind; name: string } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const data = overview.data;
  const distribution: Distribution = data?.distribution ?? "opensearch";
  const done = (message: string) => {
    setNotice(message);
    setEditing(null);
    setDeleting(null);
    overview.reload();
  };
  const startCreate = () => {
    if (tab === "users") setEditing({ kind: "users", creating: true, form: userForm() });
    else if (tab === "roles") setEditing({ kind: "roles", creating: true, form: roleForm() });
    else setEditing({ kind: "role_mappings", creating: true, form: mappingForm() });
  };
  const rows: Entry[] = !data ? [] : tab === "users" ? data.users : tab === "roles" ? data.roles : data.roleMappings;
  const actions = (kind: SecurityKind, entry: Entry, edit: () => void) =>
    entry.reserved ? (
      <span className="pill" title="Built into the cluster's security: read-only">
        reserved
      </span>
    ) : (
      <>
        <button className="btn btn-small" onClick={edit} data-testid="security-edit">
          Edit
        </button>{" "}
        <button className="btn btn-small btn-danger" onClick={() => setDeleting({ kind, name: entry.name })} data-testid="security-delete">
          Delete
        </button>
      </>
    );

  return (
    <div className="view" data-testid="security-view">
      <div className="toolbar" role="tablist">
        {TABS.map((t) => (
          <button key={t.id} role="tab" aria-selected={tab === t.id} className={`btn btn-small${tab === t.id ? " btn-primary" : ""}`} onClick={() => setTab(t.id)} data-testid={`security-tab-${t.id}`}>
            {t.label}
          </button>
        ))}
        <span className="spacer" />
        {data && <span className="muted">{distribution === "opensearch" ? "OpenSearch security plugin" : "Elasticsearch native realm"}</span>}
        <button className="btn btn-primary btn-small" onClick={startCreate} disabled={!data} data-testid="security-new">
          New {tab === "users" ? "user" : tab === "roles" ? "role" : "role mapping"}
        </button>
      </div>
      {notice && (
        <div className="banner banner-ok" role="status" data-testid="security-notice" onClick={() => setNotice(null)}>
          {notice}
        </div>
      )}
      {!data && overview.error ? (
        <ErrorState error={overview.error} onRetry={overview.reload} />
      ) : !data ? (
        <Loading what="security" />
      ) : rows.length === 0 ? (
        <EmptyState title="None yet" />
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid={`security-table-${tab}`}>
            <thead>
              <tr>
                <th>Name</th>
                {tab === "users" && (
                  <>
                    <th>Roles</th>
                    <th>{distribution === "opensearch" ? "Backend roles" : "Full name"}</th>
                    <th>Enabled</th>
                  </>
                )}
                {tab === "roles" && (
                  <>
                    <th>Cluster permissions</th>
                    <th>Index permissions</th>
                  </>
                )}
                {tab === "role_mappings" && (
                  <>
                    <th>Roles</th>
                    <th>Users</th>
                    <th>{distribution === "opensearch" ? "Backend roles" : "Groups"}</th>
                  </>
                )}
                <th className="row-actions">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tab === "users" &&
                data.users.map((user) => (
                  <tr key={user.name} data-testid="security-row" data-name={user.name}>
                    <td className="mono">{user.name}</td>
                    <td className="mono">{joinList(user.roles)}</td>
                    <td>{distribution === "opensearch" ? joinList(user.backendRoles) : (user.fullName ?? "")}</td>
                    <td>{user.enabled ? "yes" : "no"}</td>
                    <td className="row-actions">{actions("users", user, () => setEditing({ kind: "users", creating: false, form: userForm(user) }))}</td>
                  </tr>
                ))}
              {tab === "roles" &&
                data.roles.map((role) => (
                  <tr key={role.name} data-testid="security-row" data-name={role.name}>
                    <td className="mono">{role.name}</td>
                    <td className="mono ops-ellipsis">{joinList(role.clusterPermissions)}</td>
                    <td className="mono ops-ellipsis">{role.indexPermissions.map((p) => `${joinList(p.indexPatterns)} : ${joinList(p.actions)}`).join("; ")}</td>
                    <td className="row-actions">{actions("roles", role, () => setEditing({ kind: "roles", creating: false, form: roleForm(role) }))}</td>
                  </tr>
                ))}
              {tab === "role_mappings" &&
                data.roleMappings.map((mapping) => (
                  <tr key={mapping.name} data-testid="security-row" data-name={mapping.name}>
                    <td className="mono">{mapping.name}</td>
                    <td className="mono">{joinList(mapping.roles)}</td>
                    <td className="mono">{joinList(mapping.users)}</td>
                    <td className="mono">{joinList(mapping.backendRoles)}</td>
                    <td className="row-actions">
                      {mapping.otherRules && distribution === "elasticsearch" && !mapping.reserved ? (
                        <span className="pill" title="Its rules use more than user names and groups: edit it in the console">
                          other rules
                        </span>
                      ) : (
                        actions("role_mappings", mapping, () => setEditing({ kind: "role_mappings", creating: false, form: mappingForm(mapping) }))
                      )}
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && <EditDialog clusterId={clusterId} distribution={distribution} editing={editing} onChange={setEditing} onCancel={() => setEditing(null)} onDone={done} />}
      {deleting && (
        <ConfirmDialog
          title={`Delete the ${deleting.kind === "users" ? "user" : deleting.kind === "roles" ? "role" : "role mapping"} ${deleting.name}?`}
          typed={deleting.name}
          confirmLabel="Delete"
          danger
          testId="security-delete-dialog"
          onCancel={() => setDeleting(null)}
          onConfirm={async () => {
            await securityApi.remove(clusterId, deleting.kind, deleting.name, deleting.name);
            done(`${deleting.name} deleted.`);
          }}
        >
          <p>It is removed from the cluster's security at once; whoever relied on it loses that access.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <label className="ops-field">
      <span>{label}</span>
      {children}
    </label>
  );
}

function EditDialog({
  clusterId,
  distribution,
  editing,
  onChange,
  onCancel,
  onDone,
}: {
  clusterId: string;
  distribution: Distribution;
  editing: Editing;
  onChange: (editing: Editing) => void;
  onCancel: () => void;
  onDone: (message: string) => void;
}) {
  const { kind, creating } = editing;
  const noun = kind === "users" ? "user" : kind === "roles" ? "role" : "role mapping";
  const nameProblem = creating ? securityNameProblem(editing.form.name) : null;
  const text = (key: string, value: string, testId: string, options: { type?: string; multiline?: boolean } = {}) => {
    const set = (next: string) => onChange({ ...editing, form: { ...editing.form, [key]: next } } as Editing);
    return options.multiline ? (
      <textarea className="mono" rows={3} value={value} onChange={(e) => set(e.target.value)} spellCheck={false} data-testid={testId} />
    ) : (
      <input
        className="mono"
        type={options.type ?? "text"}
        value={value}
        onChange={(e) => set(e.target.value)}
        autoComplete={options.type === "password" ? "new-password" : "off"}
        spellCheck={false}
        data-testid={testId}
      />
    );
  };
  return (
    <ConfirmDialog
      title={creating ? `New ${noun}` : `Edit the ${noun} ${editing.form.name}`}
      confirmLabel={creating ? `Create ${noun}` : "Save"}
      testId="security-edit-dialog"
      onCancel={onCancel}
      onConfirm={async () => {
        if (nameProblem) throw new Error(nameProblem);
        const name = editing.form.name;
        const built =
          editing.kind === "users"
            ? userChange(editing.form, distribution, creating)
            : editing.kind === "roles"
              ? roleChange(editing.form)
              : mappingChange(editing.form, distribution);
        if ("problem" in built) throw new Error(built.problem);
        await securityApi.put(clusterId, kind, name, built.change, creating);
        onDone(`${noun[0].toUpperCase()}${noun.slice(1)} ${name} ${creating ? "created" : "saved"}.`);
      }}
    >
      {creating && (
        <Field label={kind === "role_mappings" && distribution === "opensearch" ? "Role (the mapping is named after it)" : "Name"}>
          {text("name", editing.form.name, "security-name")}
          {editing.form.name !== "" && nameProblem && <span className="ops-error">{nameProblem}</span>}
        </Field>
      )}
      {editing.kind === "users" && (
        <>
          <Field label={creating ? "Password" : "New password (empty: keep the current one)"}>{text("password", editing.form.password, "security-password", { type: "password" })}</Field>
          <Field label="Roles (comma-separated)">{text("roles", editing.form.roles, "security-roles")}</Field>
          {distribution === "opensearch" ? (
            <Field label="Backend roles">{text("backendRoles", editing.form.backendRoles, "security-backend-roles")}</Field>
          ) : (
            <>
              <Field label="Full name">{text("fullName", editing.form.fullName, "security-full-name")}</Field>
              <Field label="Email">{text("email", editing.form.email, "security-email")}</Field>
              <label className="ops-field">
                <span>Enabled</span>
                <input type="checkbox" checked={editing.form.enabled} onChange={(e) => onChange({ ...editing, form: { ...editing.form, enabled: e.target.checked } })} />
              </label>
            </>
          )}
          <Field label="Attributes (key=value lines)">{text("attributes", editing.form.attributes, "security-attributes", { multiline: true })}</Field>
        </>
      )}
      {editing.kind === "roles" && (
        <>
          <Field label="Description">{text("description", editing.form.description, "security-description")}</Field>
          <Field label="Cluster permissions (comma-separated)">{text("clusterPermissions", editing.form.clusterPermissions, "security-cluster-permissions")}</Field>
          <Field label="Index permissions (one per line: index patterns : actions)">
            {text("indexPermissions", editing.form.indexPermissions, "security-index-permissions", { multiline: true })}
          </Field>
        </>
      )}
      {editing.kind === "role_mappings" && (
        <>
          {distribution === "elasticsearch" && <Field label="Roles (comma-separated)">{text("roles", editing.form.roles, "security-roles")}</Field>}
          <Field label="Users (comma-separated)">{text("users", editing.form.users, "security-users")}</Field>
          <Field label={distribution === "opensearch" ? "Backend roles" : "Groups"}>{text("backendRoles", editing.form.backendRoles, "security-backend-roles")}</Field>
        </>
      )}
    </ConfirmDialog>
  );
}
