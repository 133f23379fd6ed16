// Aliases: every alias of every index (filter, routing, write index), and changes collected
// one by one then applied together: one `_aliases` call, which the cluster applies atomically
// (all of them or none). Changing aliases needs the admin role.
import { useMemo, useRef, useState } from "react";
import { OpenInConsole } from "../components/OpenInConsole";
import { pathOf } from "../console/tabs";
import type { AliasAction, AliasRow } from "../api/wire";
import { aliasesApi } from "../api/aliases";
import { api } from "../api/client";
import { EmptyState, ErrorState, Loading } from "../components/common";
import { JsonEditor } from "../components/JsonEditor";
import { Link } from "../components/Link";
import { useVirtualRows } from "../components/useVirtualRows";
import { ACTION_ROLES } from "../lib/access";
import { clusterPath, useTitle } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { useClusterAccess } from "../lib/whoami";
import {
  addAction,
  describe,
  EMPTY_ADD_FORM,
  filterRows,
  formFromRow,
  isPendingRemoval,
  removeAction,
  withChange,
  withoutChange,
  type AddForm,
} from "./aliasChanges";
import "../styles/indices.css";

const ROW_HEIGHT = 37;

export function AliasesView({ clusterId }: { clusterId: string }) {
  useTitle(`${clusterId} · Aliases`);
  const list = useAsync((signal) => aliasesApi.list(clusterId, signal), [clusterId], 30_000);
  const denied = useClusterAccess(clusterId).denied(ACTION_ROLES.changeAliases);
  const [filter, setFilter] = useState("");
  const [pending, setPending] = useState<AliasAction[]>([]);
  // The add form: closed, empty, or filled from a row to edit that alias.
  const [adding, setAdding] = useState<AddForm | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => filterRows(list.data?.aliases ?? [], filter), [list.data, filter]);
  const visible = useVirtualRows(scroller, rows.length, ROW_HEIGHT);

  const apply = async () => {
    setBusy(true);
    setMessage(null);
    try {
      const answer = await aliasesApi.apply(clusterId, pending);
      setMessage({
        ok: answer.acknowledged,
        text: answer.acknowledged
          ? `Applied ${answer.applied} ${answer.applied === 1 ? "change" : "changes"} in one call.`
          : "The cluster did not acknowledge the changes in time; reload to see what applied.",
      });
      setPending([]);
      list.reload();
    } catch (e) {
      setMessage({ ok: false, text: `Nothing was changed: ${(e as Error).message}` });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div data-testid="aliases">
      <div className="toolbar">
        <input
          className="filter"
          type="search"
          placeholder="Filter by alias or index"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          aria-label="Filter aliases"
        />
        <span className="muted" data-testid="aliases-total">
          {list.data ? `${rows.length} of ${list.data.aliases.length} aliases` : ""}
        </span>
        <span className="spacer" />
        {list.loading && list.data && <span className="spinner" aria-label="Loading" />}
        <span className="denied-wrap" title={denied ?? undefined}>
          <button
            type="button"
            className="btn btn-primary btn-small"
            disabled={denied !== null}
            title={denied ?? "Add an alias to an index (applied with the other pending changes)"}
            data-testid="add-alias"
            data-denied={denied ?? undefined}
            onClick={() => setAdding(EMPTY_ADD_FORM)}
          >
            Add alias
          </button>
        </span>
      </div>
      {adding && (
        <AddAliasForm
          key={`${adding.alias}\u0000${adding.index}`}
          clusterId={clusterId}
          initial={adding}
          onAdd={(action) => {
            setPending((p) => withChange(p, action));
            setAdding(null);
          }}
          onCancel={() => setAdding(null)}
        />
      )}
      {pending.length > 0 && (
        <div className="pending card" data-testid="pending-changes">
          <div className="pending-head">
            <strong>
              {pending.length} pending {pending.length === 1 ? "change" : "changes"}
            </strong>
            <span className="muted">applied together, all or none</span>
            <span className="spacer" />
            <button type="button" className="btn btn-small" onClick={() => setPending([])} disabled={busy}>
              Discard all
            </button>
            <button type="button" className="btn btn-primary btn-small" onClick={() => void apply()} disabled={busy || denied !== null} data-testid="apply-changes">
              {busy ? "Applying…" : `Apply ${pending.length} ${pending.length === 1 ? "change" : "changes"}`}
            </button>
          </div>
          <ul className="pending-list">
            {pending.map((p, i) => (
              <li key={i} data-testid="pending-change" className={"remove" in p ? "pending-remove" : "pending-add"}>
                <span className="mono">{describe(p)}</span>
                <button type="button" className="btn btn-small btn-link" onClick={() => setPending((x) => withoutChange(x, i))} aria-label={`Drop: ${describe(p)}`}>
                  Drop
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {message && (
        <div className={`banner ${message.ok ? "banner-ok" : "banner-error"} action-error`} role={message.ok ? "status" : "alert"} data-testid="aliases-message" onClick={() => setMessage(null)}>
          {message.text}
        </div>
      )}
      {list.error && <ErrorState error={list.error} onRetry={list.reload} />}
      {!list.data && !list.error && <Loading what="aliases" />}
      {list.data && rows.length === 0 && (
        <EmptyState title={filter ? `No alias matches "${filter}"` : "This cluster has no aliases"}>
          {filter ? "Try a shorter filter." : "Add one with Add alias."}
        </EmptyState>
      )}
      {rows.length > 0 && (
        <div className="table-wrap indices-scroll" ref={scroller}>
          <table className="table indices-table" data-testid="aliases-table">
            <thead>
              <tr>
                <th>Alias</th>
                <th>Index</th>
                <th>Filter</th>
                <th>Index routing</th>
                <th>Search routing</th>
                <th>Write index</th>
                <th className="row-actions">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {visible.before > 0 && <tr className="spacer-row" aria-hidden><td colSpan={99} style={{ height: visible.before }} /></tr>}
              {rows.slice(visible.start, visible.end).map((r) => (
                <AliasLine
                  key={`${r.alias}\u0000${r.index}`}
                  clusterId={clusterId}
                  row={r}
                  denied={denied}
                  removing={isPendingRemoval(pending, r)}
                  onRemove={() => setPending((p) => withChange(p, removeAction(r)))}
                  onEdit={() => setAdding(formFromRow(r))}
                />
              ))}
              {visible.after > 0 && <tr className="spacer-row" aria-hidden><td colSpan={99} style={{ height: visible.after }} /></tr>}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function AliasLine({
  clusterId,
  row,
  denied,
  removing,
  onRemove,
  onEdit,
}: {
  clusterId: string;
  row: AliasRow;
  denied: string | null;
  removing: boolean;
  onRemove: () => void;
  onEdit: () => void;
}) {
  return (
    <tr data-alias={row.alias} data-index={row.index} className={removing ? "closed" : undefined}>
      <td className="mono">{row.alias}</td>
      <td className="mono index-name">
        <Link to={clusterPath(clusterId, "indices", row.index)}>{row.index}</Link>
      </td>
      <td className="mono filter-cell" title={row.filter ? JSON.stringify(row.filter, null, 2) : undefined}>
        {row.filter ? JSON.stringify(row.filter) : "–"}
      </td>
      <td className="mono">{row.indexRouting ?? "–"}</td>
      <td className="mono">{row.searchRouting ?? "–"}</td>
      <td>{row.isWriteIndex === true ? <span className="pill">write index</span> : row.isWriteIndex === false ? "no" : "–"}</td>
      <td className="row-actions">
        <OpenInConsole label="Console" request={{ method: "GET", path: pathOf("_alias", row.alias) }} />
        <span className="denied-wrap" title={denied ?? undefined}>
          <button
            type="button"
            className="btn btn-small btn-link"
            disabled={denied !== null || removing}
            title={denied ?? `Change the filter, routing or write flag of ${row.alias} on ${row.index}`}
            aria-label={`Edit alias ${row.alias} on ${row.index}`}
            data-testid="edit-alias"
            onClick={onEdit}
          >
            Edit
          </button>
        </span>
        <span className="denied-wrap" title={denied ?? undefined}>
          <button
            type="button"
            className="btn btn-small"
            disabled={denied !== null || removing}
            title={denied ?? `Remove ${row.alias} from ${row.index} (with the other pending changes)`}
            aria-label={`Remove alias ${row.alias} from ${row.index}`}
            data-testid="remove-alias"
            onClick={onRemove}
          >
            {removing ? "Removing" : "Remove"}
          </button>
        </span>
      </td>
    </tr>
  );
}

function AddAliasForm({
  clusterId,
  initial,
  onAdd,
  onCancel,
}: {
  clusterId: string;
  initial: AddForm;
  onAdd: (action: AliasAction) => void;
  onCancel: () => void;
}) {
  const [form, setForm] = useState<AddForm>(initial);
  const [touched, setTouched] = useState(false);
  // Index names to choose from (the first 500 by name; any name may be typed).
  const indices = useAsync((signal) => api.indices(clusterId, "size=500&sort=name", signal), [clusterId]);
  const checked = addAction(form);
  const set = (patch: Partial<AddForm>) => {
    setTouched(true);
    setForm((f) => ({ ...f, ...patch }));
  };
  return (
    <form
      className="card add-alias"
      data-testid="add-alias-form"
      onSubmit={(e) => {
        e.preventDefault();
        setTouched(true);
        if (checked.ok) onAdd(checked.value);
      }}
    >
      <div className="form-grid">
        <label className="field">
          Index
          <input className="mono" list="alias-index-names" value={form.index} onChange={(e) => set({ index: e.target.value })} data-testid="alias-index" autoComplete="off" />
          <datalist id="alias-index-names">
            {indices.data?.indices.map((i) => (
              <option key={i.name} value={i.name} />
            ))}
          </datalist>
        </label>
        <label className="field">
          Alias
          <input className="mono" value={form.alias} onChange={(e) => set({ alias: e.target.value })} data-testid="alias-name" autoComplete="off" />
        </label>
        <label className="field">
          Index routing
          <input className="mono" value={form.indexRouting} onChange={(e) => set({ indexRouting: e.target.value })} data-testid="alias-index-routing" />
        </label>
        <label className="field">
          Search routing
          <input className="mono" value={form.searchRouting} onChange={(e) => set({ searchRouting: e.target.value })} placeholder="1,2" data-testid="alias-search-routing" />
        </label>
        <label className="field">
          Write index
          <select value={form.isWriteIndex} onChange={(e) => set({ isWriteIndex: e.target.value as AddForm["isWriteIndex"] })} data-testid="alias-write-index">
            <option value="unset">not set</option>
            <option value="true">yes</option>
            <option value="false">no</option>
          </select>
        </label>
      </div>
      <JsonEditor label="Filter (a query)" value={form.filter} onChange={(filter) => set({ filter })} placeholder={'{"term": {"user.id": "kimchy"}}'} rows={3} testId="alias-filter" />
      {touched && !checked.ok && (
        <ul className="form-errors" role="alert" data-testid="alias-errors">
          {checked.errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={!checked.ok} data-testid="alias-add-pending">
          Add to pending changes
        </button>
      </div>
    </form>
  );
}
