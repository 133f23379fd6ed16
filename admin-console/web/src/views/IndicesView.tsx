// Indices: paged, sorted and filtered by the server, so 10,000 indices cost one page of rows;
// the rows of a page are windowed (only those in view are in the DOM). Page, size, sort and
// filter live in the URL. Rows can be selected for an action on all of them (with a per-index
// result list); an index's name links to its page; admins create indices here.
import { useEffect, useMemo, useRef, useState } from "react";
import { api } from "../api/client";
import { dialect as readDialect } from "../api/indices";
import { Link } from "../components/Link";
import { useVirtualRows } from "../components/useVirtualRows";
import { clusterPath } from "../lib/router";
import { ACTION_ROLES } from "../lib/access";
import { useClusterAccess } from "../lib/whoami";
import { CreateIndexDialog } from "./CreateIndexDialog";
import { ActionResults, useIndexActionFlow } from "./IndexActionFlow";
import { INDEX_ACTIONS, keepVisible } from "./indexForms";
import "../styles/indices.css";
import { useAsync } from "../lib/useAsync";
import { navigate, useTitle } from "../lib/router";
import { formatBytes, formatCount } from "../lib/format";
import { EmptyState, ErrorState, HealthDot, Loading } from "../components/common";
import { ChevronIcon } from "../components/icons";
import { IndexAction } from "./IndexActions";
import {
  indicesApiQuery,
  PAGE_SIZES,
  readIndicesQuery,
  writeIndicesQuery,
  type IndexSort,
  type IndicesQuery,
} from "../lib/urlState";

/** The height of a row (styles/indices.css keeps rows at it), for the windowing. */
const ROW_HEIGHT = 37;

const COLUMNS: ReadonlyArray<{ key: IndexSort; label: string; numeric?: boolean }> = [
  { key: "health", label: "Health" },
  { key: "name", label: "Index" },
  { key: "status", label: "Status" },
  { key: "primaries", label: "Primaries", numeric: true },
  { key: "replicas", label: "Replicas", numeric: true },
  { key: "docsCount", label: "Documents", numeric: true },
  { key: "storeSizeBytes", label: "Size", numeric: true },
];

export function IndicesView({ clusterId, search }: { clusterId: string; search: string }) {
  useTitle(`${clusterId} · Indices`);
  const query = readIndicesQuery(search);
  const apiQuery = indicesApiQuery(query);
  const page = useAsync((signal) => api.indices(clusterId, apiQuery, signal), [clusterId, apiQuery], 30_000);
  const [filterText, setFilterText] = useState(query.filter);
  // The outcome of the last open/close: a short confirmation, or the refusal's message.
  const [done, setDone] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [creating, setCreating] = useState(false);
  const access = useClusterAccess(clusterId);
  const createDenied = access.denied(ACTION_ROLES.createIndex);
  const flavor = useAsync((signal) => readDialect(clusterId, signal), [clusterId]);
  const flow = useIndexActionFlow(clusterId, () => page.reload());
  const scroller = useRef<HTMLDivElement>(null);

  const update = (patch: Partial<IndicesQuery>, replace = false) => {
    const next = { ...query, ...patch };
    navigate(window.location.pathname + writeIndicesQuery(window.location.search, next), { replace });
  };

  // Back/forward changes the URL's filter: show it.
  useEffect(() => setFilterText(query.filter), [query.filter]);

  // Debounced filter: typing does not flood the server or the browser history.
  useEffect(() => {
    if (filterText === query.filter) return;
    const timer = window.setTimeout(() => update({ filter: filterText, page: 1 }, true), 250);
    return () => window.clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [filterText]);

  const data = page.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / data.size)) : 1;
  const names = useMemo(() => data?.indices.map((i) => i.name) ?? [], [data]);
  // A new page, filter or reload keeps only the selected names still shown.
  useEffect(() => setSelected((s) => (s.size === 0 ? s : keepVisible(s, names))), [names]);
  const rows = useVirtualRows(scroller, data?.indices.length ?? 0, ROW_HEIGHT);
  const allSelected = names.length > 0 && names.every((n) => selected.has(n));
  const toggle = (name: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(name)) next.delete(name);
      else next.add(name);
      return next;
    });
  const chosen = names.filter((n) => selected.has(n));

  const sortBy = (key: IndexSort, numeric?: boolean) => {
    if (query.sort === key) update({ order: query.order === "asc" ? "desc" : "asc", page: 1 });
    else update({ sort: key, order: numeric ? "desc" : "asc", page: 1 });
  };

  return (
    <div data-testid="indices">
      <div className="toolbar">
        <input
          className="filter"
          type="search"
          placeholder="Filter indices by name"
          value={filterText}
          onChange={(e) => setFilterText(e.target.value)}
          aria-label="Filter indices"
        />
        <span className="muted" data-testid="indices-total">
          {data ? `${formatCount(data.total)} ${query.filter ? "matching " : ""}indices` : ""}
        </span>
        <span className="spacer" />
        {page.loading && data && <span className="spinner" aria-label="Loading" />}
        <span className="denied-wrap" title={createDenied ?? undefined}>
          <button
            type="button"
            className="btn btn-primary btn-small"
            disabled={createDenied !== null}
            title={createDenied ?? "Create an index"}
            data-testid="create-index"
            data-denied={createDenied ?? undefined}
            onClick={() => setCreating(true)}
          >
            Create index
          </button>
        </span>
        <Pager page={query.page} pages={pages} onPage={(p) => update({ page: p })} />
        <select aria-label="Rows per page" value={query.size} onChange={(e) => update({ size: Number(e.target.value), page: 1 })}>
          {PAGE_SIZES.map((s) => (
            <option key={s} value={s}>
              {s} / page
            </option>
          ))}
        </select>
      </div>
      {actionError && (
        <div className="banner banner-error action-error" role="alert" data-testid="index-action-error" onClick={() => setActionError(null)}>
          {actionError}
        </div>
      )}
      {done && !actionError && (
        <div className="banner banner-ok action-error" role="status" data-testid="index-action-done" onClick={() => setDone(null)}>
          {done}
        </div>
      )}
      {chosen.length > 0 && (
        <div className="selection-bar" data-testid="selection-bar">
          <strong data-testid="selection-count">
            {chosen.length} selected
          </strong>
          {INDEX_ACTIONS.map((a) => {
            const why = access.denied(a.role);
            return (
              <span key={a.action} className="denied-wrap" title={why ?? undefined}>
                <button
                  type="button"
                  className={`btn btn-small ${a.action === "delete" ? "btn-danger-outline" : ""}`}
                  disabled={why !== null}
                  title={why ?? `${a.label}: ${a.hint}`}
                  data-testid={`bulk-${a.action}`}
                  data-denied={why ?? undefined}
                  onClick={() => flow.ask(a, chosen)}
                >
                  {a.label}
                </button>
              </span>
            );
          })}
          <button type="button" className="btn btn-small btn-link" onClick={() => setSelected(new Set())}>
            Clear selection
          </button>
        </div>
      )}
      {flow.answer && <ActionResults answer={flow.answer} onClose={flow.clear} />}
      {flow.dialog}
      {creating && (
        <CreateIndexDialog
          clusterId={clusterId}
          opensearch={flavor.data?.distribution === "opensearch"}
          onCancel={() => setCreating(false)}
          onCreated={(created) => {
            setCreating(false);
            setActionError(null);
            setDone(`Index ${created.index} created.`);
            page.reload();
          }}
        />
      )}
      {page.error && <ErrorState error={page.error} onRetry={page.reload} />}
      {!data && !page.error && <Loading what="indices" />}
      {data && data.indices.length === 0 && (
        <EmptyState title={query.filter ? `No index matches "${query.filter}"` : "This cluster has no indices"}>
          {query.filter ? "Try a shorter filter." : "Create one with Create index, or from the console."}
        </EmptyState>
      )}
      {data && data.indices.length > 0 && (
        <div className="table-wrap indices-scroll" ref={scroller}>
          <table className="table indices-table" data-testid="indices-table">
            <thead>
              <tr>
                <th className="select-cell">
                  <input
                    type="checkbox"
                    aria-label="Select every index on this page"
                    checked={allSelected}
                    onChange={() => setSelected(allSelected ? new Set() : new Set(names))}
                    data-testid="select-all"
                  />
                </th>
                {COLUMNS.map((c) => (
                  <th
                    key={c.key}
                    className={c.numeric ? "num" : undefined}
                    aria-sort={query.sort === c.key ? (query.order === "asc" ? "ascending" : "descending") : "none"}
                  >
                    <button className="sort" onClick={() => sortBy(c.key, c.numeric)}>
                      {c.label} {query.sort === c.key ? (query.order === "asc" ? "▲" : "▼") : ""}
                    </button>
                  </th>
                ))}
                <th className="row-actions">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.before > 0 && <tr className="spacer-row" aria-hidden><td colSpan={99} style={{ height: rows.before }} /></tr>}
              {data.indices.slice(rows.start, rows.end).map((i) => (
                <tr key={i.name} className={i.status === "close" ? "closed" : undefined} data-index={i.name}>
                  <td className="select-cell">
                    <input
                      type="checkbox"
                      aria-label={`Select ${i.name}`}
                      checked={selected.has(i.name)}
                      onChange={() => toggle(i.name)}
                      data-testid="select-index"
                      data-index={i.name}
                    />
                  </td>
                  <td>
                    <HealthDot health={i.health} />
                  </td>
                  <td className="mono index-name">
                    <Link to={clusterPath(clusterId, "indices", i.name)} data-testid="index-link">
                      {i.name}
                    </Link>
                  </td>
                  <td>{i.status === "close" ? <span className="pill">closed</span> : "open"}</td>
                  <td className="num">{i.primaries}</td>
                  <td className="num">{i.replicas}</td>
                  <td className="num">{formatCount(i.docsCount)}</td>
                  <td className="num">{formatBytes(i.storeSizeBytes)}</td>
                  <td className="row-actions">
                    <IndexAction
                      clusterId={clusterId}
                      index={i.name}
                      closed={i.status === "close"}
                      onDone={(message) => {
                        setActionError(null);
                        setDone(message);
                        page.reload();
                      }}
                      onError={(message) => {
                        setDone(null);
                        setActionError(message);
                      }}
                      onAsk={flow.ask}
                    />
                  </td>
                </tr>
              ))}
              {rows.after > 0 && <tr className="spacer-row" aria-hidden><td colSpan={99} style={{ height: rows.after }} /></tr>}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function Pager({ page, pages, onPage }: { page: number; pages: number; onPage: (p: number) => void }) {
  return (
    <span className="pager">
      <button className="btn btn-icon btn-small" disabled={page <= 1} onClick={() => onPage(page - 1)} aria-label="Previous page">
        <ChevronIcon dir="left" />
      </button>
      <span data-testid="page-indicator">
        Page {page} of {formatCount(pages)}
      </span>
      <button className="btn btn-icon btn-small" disabled={page >= pages} onClick={() => onPage(page + 1)} aria-label="Next page">
        <ChevronIcon dir="right" />
      </button>
    </span>
  );
}
