import { api } from "../api/client";
import { useAsync } from "../lib/useAsync";
import { useTitle } from "../lib/router";
import { formatBytes, formatCount } from "../lib/format";
import { ErrorState, HealthBadge, Loading } from "../components/common";

export function OverviewView({ clusterId }: { clusterId: string }) {
  useTitle(`${clusterId} · Overview`);
  const overview = useAsync((signal) => api.overview(clusterId, signal), [clusterId], 15_000);
  const o = overview.data;
  if (!o) return overview.error ? <ErrorState error={overview.error} onRetry={overview.reload} /> : <Loading what="the overview" />;
  const assigned = o.shardCount;
  const totalShards = assigned + o.unassignedShards;
  const assignedPercent = totalShards === 0 ? 100 : (assigned / totalShards) * 100;
  return (
    <div className="overview" data-testid="overview">
      {overview.error && <ErrorState error={overview.error} onRetry={overview.reload} />}
      <div className="tiles">
        <Tile label="Health" value={<HealthBadge health={o.health} />} sub={`cluster name ${o.clusterName}`} />
        <Tile label="Nodes" value={formatCount(o.nodeCount)} sub={`${formatCount(o.dataNodeCount)} data nodes`} />
        <Tile label="Indices" value={formatCount(o.indexCount)} />
        <Tile label="Documents" value={formatCount(o.documentCount)} />
        <Tile label="Store size" value={formatBytes(o.storeSizeBytes)} />
        <Tile
          label="Shards"
          value={formatCount(o.shardCount)}
          sub={`${formatCount(o.primaryShardCount)} primary · ${formatCount(o.replicaShardCount)} replica`}
        />
        <Tile label="Unassigned shards" value={formatCount(o.unassignedShards)} tone={o.unassignedShards > 0 ? "warn" : undefined} />
        <Tile
          label="Moving shards"
          value={formatCount(o.relocatingShards + o.initializingShards)}
          sub={`${formatCount(o.relocatingShards)} relocating · ${formatCount(o.initializingShards)} initializing`}
        />
      </div>
      <section className="card">
        <header className="card-header">
          <h3>Shard allocation</h3>
          <span className="muted">{assignedPercent.toFixed(1)}% of shards assigned</span>
        </header>
        <div className="card-body">
          <div className="stacked-bar" role="img" aria-label="Shard states">
            <Segment value={o.primaryShardCount} total={totalShards} cls="seg-primary" label="primary" />
            <Segment value={o.replicaShardCount} total={totalShards} cls="seg-replica" label="replica" />
            <Segment value={o.unassignedShards} total={totalShards} cls="seg-unassigned" label="unassigned" />
          </div>
          <div className="legend">
            <span><i className="seg-primary" /> primary {formatCount(o.primaryShardCount)}</span>
            <span><i className="seg-replica" /> replica {formatCount(o.replicaShardCount)}</span>
            <span><i className="seg-unassigned" /> unassigned {formatCount(o.unassignedShards)}</span>
          </div>
        </div>
      </section>
    </div>
  );
}

function Tile({ label, value, sub, tone }: { label: string; value: React.ReactNode; sub?: string; tone?: "warn" }) {
  return (
    <div className={`tile ${tone ? `tile-${tone}` : ""}`}>
      <div className="tile-label">{label}</div>
      <div className="tile-value">{value}</div>
      {sub && <div className="tile-sub muted">{sub}</div>}
    </div>
  );
}

function Segment({ value, total, cls, label }: { value: number; total: number; cls: string; label: string }) {
  if (value === 0 || total === 0) return null;
  return <span className={cls} style={{ flexGrow: value }} title={`${label}: ${formatCount(value)}`} />;
}
