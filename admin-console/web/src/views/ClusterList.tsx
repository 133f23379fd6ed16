// Landing page: every configured cluster with its health, version and reachability.
import { api } from "../api/client";
import type { ClusterSummary } from "../api/wire";
import { useAsync } from "../lib/useAsync";
import { clusterPath, useTitle } from "../lib/router";
import { Link } from "../components/Link";
import { EmptyState, ErrorState, HealthBadge, Loading } from "../components/common";
import { RefreshIcon } from "../components/icons";
import { ProductionBadge } from "../components/ChangeReason";
import { noteEnvironment } from "../lib/changeReason";
import { useEffect } from "react";

export function ClusterList() {
  useTitle("Clusters");
  const clusters = useAsync((signal) => api.clusters(signal), [], 15_000);
  const list = clusters.data;
  const counts = countByHealth(list ?? []);

  return (
    <div className="page">
      <div className="page-header">
        <div>
          <h1>Clusters</h1>
          {list && (
            <p className="muted">
              {list.length} configured · {counts.green} green · {counts.yellow} yellow · {counts.red} red
              {counts.unreachable > 0 && ` · ${counts.unreachable} unreachable`}
            </p>
          )}
        </div>
        <button className="btn" onClick={clusters.reload} disabled={clusters.loading}>
          <RefreshIcon /> Refresh
        </button>
      </div>
      {clusters.error && <ErrorState error={clusters.error} onRetry={clusters.reload} />}
      {!list && !clusters.error && <Loading what="clusters" />}
      {list && list.length === 0 && (
        <EmptyState title="No clusters configured">
          Add entries under <code>clusters</code> in the admin-console configuration file.
        </EmptyState>
      )}
      {list && list.length > 0 && (
        <div className="cluster-grid" data-testid="cluster-list">
          {list.map((c) => (
            <ClusterCard key={c.id} cluster={c} />
          ))}
        </div>
      )}
    </div>
  );
}

function ClusterCard({ cluster }: { cluster: ClusterSummary }) {
  const health = cluster.reachable ? cluster.health : null;
  useEffect(() => noteEnvironment(cluster.id, cluster.environment), [cluster.id, cluster.environment]);
  return (
    <Link
      to={clusterPath(cluster.id)}
      className={`cluster-card health-edge-${health ?? "unknown"}`}
      data-testid={`cluster-${cluster.id}`}
    >
      <div className="cluster-card-top">
        <strong className="cluster-name">{cluster.name}</strong>
        {cluster.environment === "production" && <ProductionBadge />}
        <HealthBadge health={health} label={cluster.reachable ? undefined : "unreachable"} />
      </div>
      <div className="cluster-card-meta muted">
        <code>{cluster.id}</code>
        {cluster.distribution && <span>{cluster.distribution === "opensearch" ? "OpenSearch" : "Elasticsearch"}</span>}
        {cluster.version && <span>{cluster.version}</span>}
        <span>metrics: {cluster.metricsSource === "internal" ? "internal" : "metrics server"}</span>
      </div>
      {!cluster.reachable && cluster.error && <div className="cluster-card-error">{cluster.error}</div>}
    </Link>
  );
}

function countByHealth(list: ClusterSummary[]) {
  const counts = { green: 0, yellow: 0, red: 0, unreachable: 0 };
  for (const c of list) {
    if (!c.reachable || !c.health) counts.unreachable++;
    else counts[c.health]++;
  }
  return counts;
}
