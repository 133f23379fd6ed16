// Indices: paged, sorted and filtered by the server, so 10,000 indices cost one page of rows.
// Page, size, sort and filter live in the URL.
import { useEffect, useState } from "react";
import { api } from "../api/client";
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
      {page.error && <ErrorState error={page.error} onRetry={page.reload} />}
      {!data && !page.error && <Loading what="indices" />}
      {data && data.indices.length === 0 && (
        <EmptyState title={query.filter ? `No index matches "${query.filter}"` : "This cluster has no indices"}>
          {query.filter ? "Try a shorter filter." : "Create one from the console, e.g. PUT my-index."}
        </EmptyState>
      )}
      {data && data.indices.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="indices-table">
            <thead>
              <tr>
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
              {data.indices.map((i) => (
                <tr key={i.name} className={i.status === "close" ? "closed" : undefined}>
                  <td>
                    <HealthDot health={i.health} />
                  </td>
                  <td className="mono index-name">{i.name}</td>
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
                    />
                  </td>
                </tr>
              ))}
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
