// Cat APIs: the `_cat` APIs the cluster offers (those the console knows to be safe reads), one
// of them as a table sorted and filtered here, each column's help from the cluster (`?help`) as
// its header's tooltip, and a refresh. The chosen API is the path's last segment
// (`/clusters/prod/cat/indices`), the repository of `snapshots` its `?repository=`. Viewer.
import { useMemo, useState } from "react";
import { OpenInConsole } from "../components/OpenInConsole";
import { pathOf } from "../console/tabs";
import { analysisApi } from "../api/analysis";
import type { CatTable } from "../api/wire";
import { useAsync } from "../lib/useAsync";
import { clusterPath, navigate, useTitle } from "../lib/router";
import { EmptyState, ErrorState, Loading } from "../components/common";
import { filterCatRows, sortCatRows } from "../manage/analysis";
import "../styles/cluster-ops.css";

interface Props {
  clusterId: string;
  /** The chosen cat API, if any. */
  api?: string;
  search: string;
}

function Table({ table }: { table: CatTable }) {
  const [filter, setFilter] = useState("");
  const [sort, setSort] = useState<{ at: number; order: "asc" | "desc" } | null>(null);
  const rows = useMemo(() => {
    const kept = filterCatRows(table.rows, filter);
    return sort ? sortCatRows(kept, sort.at, sort.order) : kept;
  }, [table, filter, sort]);
  const sortBy = (at: number) => setSort((s) => (s?.at === at ? { at, order: s.order === "asc" ? "desc" : "asc" } : { at, order: "asc" }));
  return (
    <>
      <div className="toolbar">
        <input className="filter" placeholder="Filter rows" aria-label="Filter rows" value={filter} onChange={(e) => setFilter(e.target.value)} data-testid="cat-filter" />
        <span className="spacer" />
        <span className="muted" data-testid="cat-count">
          {rows.length} of {table.rows.length} rows
        </span>
      </div>
      {table.cutRows > 0 && (
        <div className="banner banner-warn" role="status" data-testid="cat-cut">
          The cluster gave {table.totalRows} rows; the first {table.rows.length} are shown, {table.cutRows} left out.
        </div>
      )}
      {table.rows.length === 0 ? (
        <EmptyState title="No rows">The cluster answered with an empty table.</EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="cat-table">
            <thead>
              <tr>
                {table.columns.map((column, at) => (
                  <th
                    key={column.name}
                    title={[column.description, column.aliases.length ? `also: ${column.aliases.join(", ")}` : ""].filter(Boolean).join("\n")}
                    aria-sort={sort?.at === at ? (sort.order === "asc" ? "ascending" : "descending") : "none"}
                    data-testid="cat-column"
                    data-column={column.name}
                  >
                    <button className="sort" onClick={() => sortBy(at)}>
                      {column.name} {sort?.at === at ? (sort.order === "asc" ? "▲" : "▼") : ""}
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, at) => (
                <tr key={at} data-testid="cat-row">
                  {row.map((cell, column) => (
                    <td key={column} className="mono">
                      {cell ?? ""}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

export function CatView({ clusterId, api, search }: Props) {
  useTitle(`${clusterId} · Cat${api ? ` ${api}` : ""}`);
  const repository = new URLSearchParams(search).get("repository");
  const apis = useAsync((signal) => analysisApi.catApis(clusterId, signal), [clusterId]);
  const chosen = apis.data?.apis.find((a) => a.name === api);
  const [repoDraft, setRepoDraft] = useState(repository ?? "");
  const ready = api !== undefined && (!chosen?.needsRepository || (repository ?? "") !== "");
  const table = useAsync(
    (signal) => (ready && api ? analysisApi.cat(clusterId, api, chosen?.needsRepository ? repository : null, signal) : Promise.resolve(null)),
    [clusterId, api, repository, ready],
  );

  return (
    <div className="view" data-testid="cat-view">
      <div className="toolbar">
        <label>
          Cat API{" "}
          <select
            value={api ?? ""}
            onChange={(e) => navigate(e.target.value ? clusterPath(clusterId, "cat", e.target.value) : clusterPath(clusterId, "cat"))}
            data-testid="cat-api"
            aria-label="Cat API"
          >
            <option value="">Choose…</option>
            {(apis.data?.apis ?? []).map((a) => (
              <option key={a.name} value={a.name}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
        {chosen?.needsRepository && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              navigate(`${clusterPath(clusterId, "cat", chosen.name)}?repository=${encodeURIComponent(repoDraft.trim())}`);
            }}
          >
            <input className="mono" placeholder="Repository" aria-label="Repository" value={repoDraft} onChange={(e) => setRepoDraft(e.target.value)} data-testid="cat-repository" />{" "}
            <button type="submit" className="btn btn-small">
              Show
            </button>
          </form>
        )}
        <span className="spacer" />
        {api && ready && (
          <OpenInConsole
            request={{
              method: "GET",
              path: (chosen?.needsRepository ? pathOf("_cat", api, repository ?? "") : pathOf("_cat", api)) + "?v",
            }}
          />
        )}
        {api && (
          <button className="btn btn-small" onClick={table.reload} disabled={!ready} data-testid="cat-refresh">
            Refresh
          </button>
        )}
      </div>
      {apis.error && !apis.data ? (
        <ErrorState error={apis.error} onRetry={apis.reload} />
      ) : api === undefined ? (
        <EmptyState title="Choose a cat API">
          The cluster's compact tables (`_cat`): nodes, indices, shards, thread pools and more. Sort by a column's header; hover it for the cluster's help.
        </EmptyState>
      ) : apis.data && !chosen ? (
        <EmptyState title={`This cluster offers no cat API "${api}" here`}>Choose one from the list.</EmptyState>
      ) : !ready ? (
        <EmptyState title="Name a repository">_cat/snapshots lists one repository's snapshots.</EmptyState>
      ) : table.error ? (
        <ErrorState error={table.error} onRetry={table.reload} />
      ) : !table.data ? (
        <Loading what={`_cat/${api}`} />
      ) : (
        <Table key={`${api}/${repository ?? ""}`} table={table.data} />
      )}
    </div>
  );
}
