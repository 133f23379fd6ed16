// Shards: the grid of nodes × indices (one routing-table read per load, `GET /shards`), with
// filters, a copy's detail and move beside it, and "retry failed allocations". The grid is
// virtualised in both directions; it refreshes every 15 s, every 2 s while copies move, and
// while they move the recoveries (`GET /recoveries`) are read at the same pace for the chips'
// progress (not read at all otherwise).
import { useEffect, useMemo, useState } from "react";
import { recoveryApi } from "../api/recovery";
import { shardsApi } from "../api/shards";
import { ACTION_ROLES } from "../lib/access";
import { formatCount } from "../lib/format";
import { navigate, useTitle } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { useClusterAccess } from "../lib/whoami";
import { EmptyState, ErrorState, Loading } from "../components/common";
import { ShardGrid, type SelectedCopy } from "./ShardGrid";
import { ShardPanel } from "./ShardPanel";
import { recoveriesByCopy } from "./recoveryModel";
import type { DataTier } from "../api/wire";
import { TIERS, failedCount, hasTiers, inMotion, layoutGrid, readShardFilters, readTier, tierLabel, writeShardFilters, type GridFilters, type StateFilter } from "./shardGridModel";
import "../styles/shards.css";

const STATES: ReadonlyArray<{ value: StateFilter; label: string }> = [
  { value: "all", label: "All states" },
  { value: "unassigned", label: "Unassigned only" },
  { value: "relocating", label: "Relocating only" },
  { value: "initializing", label: "Initialising only" },
];

export function ShardsView({ clusterId, search }: { clusterId: string; search: string }) {
  useTitle(`${clusterId} · Shards`);
  // Copies in motion in the last grid, or an action just sent: refresh every 2 s.
  const [motion, setMotion] = useState(false);
  const [fastUntil, setFastUntil] = useState(0);
  const grid = useAsync((signal) => shardsApi.grid(clusterId, signal), [clusterId], motion || Date.now() < fastUntil ? 2_000 : 15_000);
  const acted = () => setFastUntil(Date.now() + 10_000);
  const recoveries = useAsync((signal) => (motion ? recoveryApi.all(clusterId, signal) : Promise.resolve(null)), [clusterId, motion], motion ? 2_000 : undefined);
  const progress = useMemo(() => (motion && recoveries.data ? recoveriesByCopy(recoveries.data.recoveries) : undefined), [motion, recoveries.data]);
  // The filters start from the URL and are written back to it (replacing the entry).
  const [filters, setFilters] = useState<GridFilters>(() => readShardFilters(search));
  useEffect(() => {
    navigate(window.location.pathname + writeShardFilters(window.location.search, filters), { replace: true });
  }, [filters]);
  const [selected, setSelected] = useState<SelectedCopy | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [retrying, setRetrying] = useState(false);
  const retryDenied = useClusterAccess(clusterId).denied(ACTION_ROLES.retryShardAllocation);

  const data = grid.data;
  const layout = useMemo(() => (data ? layoutGrid(data, filters) : null), [data, filters]);
  useEffect(() => {
    if (data) setMotion(inMotion(data));
  }, [data]);
  const set = (patch: Partial<GridFilters>) => setFilters((f) => ({ ...f, ...patch }));

  const retry = async () => {
    setRetrying(true);
    setFailure(null);
    try {
      await shardsApi.retryFailed(clusterId);
      setDone("Retrying the allocation of every copy that failed too often.");
      acted();
      grid.reload();
    } catch (e) {
      setDone(null);
      setFailure(`Could not retry failed allocations: ${(e as Error).message}`);
    } finally {
      setRetrying(false);
    }
  };

  const failed = data ? failedCount(data) : 0;
  return (
    <div data-testid="shards" className="shards-view">
      <div className="toolbar">
        <input className="filter" type="search" placeholder="Filter indices" value={filters.index} onChange={(e) => set({ index: e.target.value })} aria-label="Filter indices" />
        <input className="filter filter-narrow" type="search" placeholder="Filter nodes" value={filters.node} onChange={(e) => set({ node: e.target.value })} aria-label="Filter nodes" />
        <select aria-label="Shard state" value={filters.state} onChange={(e) => set({ state: e.target.value as StateFilter })}>
          {STATES.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
        {data && (hasTiers(data.nodes) || filters.tier !== null) && (
          <select aria-label="Data tier" value={filters.tier ?? ""} onChange={(e) => set({ tier: readTier(e.target.value) })}>
            <option value="">All tiers</option>
            {TIERS.filter((tier: DataTier) => tier === filters.tier || data.nodes.some((n) => n.tiers.includes(tier))).map((tier) => (
              <option key={tier} value={tier}>
                {tierLabel(tier)} tier
              </option>
            ))}
          </select>
        )}
        <label className="check">
          <input type="checkbox" checked={filters.hideClosed} onChange={(e) => set({ hideClosed: e.target.checked })} /> Hide closed
        </label>
        <label className="check">
          <input type="checkbox" checked={filters.hideSystem} onChange={(e) => set({ hideSystem: e.target.checked })} /> Hide system
        </label>
        <span className="spacer" />
        {data && (
          <span className="shard-counts" data-testid="shard-counts">
            <span className={`pill${data.unassigned ? " pill-red" : ""}`}>{formatCount(data.unassigned)} unassigned</span>
            <span className={`pill${data.relocating ? " pill-blue" : ""}`}>{formatCount(data.relocating)} relocating</span>
            <span className={`pill${data.initializing ? " pill-yellow" : ""}`}>{formatCount(data.initializing)} initialising</span>
          </span>
        )}
        {grid.loading && data && <span className="spinner" aria-label="Loading" />}
        <span className="denied-wrap" title={retryDenied ?? (failed ? `${failed} copies failed to allocate too often` : "Retries copies whose allocation failed too many times")}>
          <button className="btn btn-small" onClick={() => void retry()} disabled={retrying || retryDenied !== null} data-testid="retry-failed">
            Retry failed allocations{failed ? ` (${failed})` : ""}
          </button>
        </span>
      </div>
      {failure && (
        <div className="banner banner-error action-error" role="alert" onClick={() => setFailure(null)}>
          {failure}
        </div>
      )}
      {done && !failure && (
        <div className="banner banner-ok action-error" role="status" data-testid="shards-done" onClick={() => setDone(null)}>
          {done}
        </div>
      )}
      {grid.error && <ErrorState error={grid.error} onRetry={grid.reload} />}
      {!data && !grid.error && <Loading what="shards" />}
      {data && layout && (
        <div className={`shards-body${selected ? " with-panel" : ""}`}>
          {layout.rows.length === 0 || layout.columns.length === 0 ? (
            <EmptyState title={data.indices.length === 0 ? "This cluster has no indices" : "No shard matches the filters"} />
          ) : (
            <ShardGrid
              clusterId={clusterId}
              layout={layout}
              nodes={data.nodes}
              selected={selected}
              recoveries={progress}
              onSelect={(chip) => setSelected({ index: chip.index, shard: chip.copy.shard, primary: chip.copy.primary, node: chip.nodeId })}
            />
          )}
          {selected && (
            <ShardPanel
              clusterId={clusterId}
              grid={data}
              selected={selected}
              onClose={() => setSelected(null)}
              onMoved={(message) => {
                setFailure(null);
                setDone(message);
                acted();
                setSelected(null);
                grid.reload();
              }}
            />
          )}
        </div>
      )}
      <p className="shard-legend muted small" aria-hidden>
        <span className="shard-chip chip-started chip-primary">0</span> primary
        <span className="shard-chip chip-started chip-replica">0</span> replica
        <span className="shard-chip chip-relocating chip-primary">0</span> relocating
        <span className="shard-chip chip-incoming chip-primary">0</span> arriving
        <span className="shard-chip chip-initializing chip-replica">0</span> initialising
        <span className="shard-chip chip-unassigned chip-replica">0</span> unassigned
      </p>
    </div>
  );
}
