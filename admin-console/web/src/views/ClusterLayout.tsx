// Every cluster view: the header (name, health, version, allocation lock, console icon),
// the view tabs, and the chosen view.
import { lazy, Suspense, useEffect } from "react";
import { api } from "../api/client";
import type { Theme } from "../lib/theme";
import { useAsync } from "../lib/useAsync";
import { CLUSTER_VIEWS, clusterPath, type ClusterView } from "../lib/router";
import { Link } from "../components/Link";
import { ErrorState, HealthBadge } from "../components/common";
import { TerminalIcon } from "../components/icons";
import { AllocationLock } from "./AllocationLock";
import { OverviewView } from "./OverviewView";
import { NodesView } from "./NodesView";
import { IndicesView } from "./IndicesView";
import { Loading } from "../components/common";
import { IndexDetail } from "./IndexDetail";
import { NodeDetail } from "./NodeDetail";
import { ShardsView } from "./ShardsView";
import { AliasesView } from "./AliasesView";
import { DataStreamsView } from "./DataStreamsView";
import { SecurityView } from "./SecurityView";
import { TemplatesView } from "./TemplatesView";
import { TasksView } from "./TasksView";
import { SnapshotsView } from "./SnapshotsView";
import { SettingsView } from "./SettingsView";
import { AnalyzeView } from "./AnalyzeView";
import { CatView } from "./CatView";
import { CompareView } from "./CompareView";
import { ProductionBadge } from "../components/ChangeReason";
import { noteEnvironment, ProductionContext } from "../lib/changeReason";

// uPlot loads with the Statistics view.
const StatisticsView = lazy(() => import("./StatisticsView").then((m) => ({ default: m.StatisticsView })));

interface Props {
  clusterId: string;
  view: ClusterView;
  /** An item of the view (an index, a node), from the path's last segment. */
  item?: string;
  search: string;
  consoleOpen: boolean;
  onToggleConsole: () => void;
  onName: (name: string) => void;
  theme: Theme;
}

export function ClusterLayout({ clusterId, view, item, search, consoleOpen, onToggleConsole, onName, theme }: Props) {
  const summary = useAsync((signal) => api.cluster(clusterId, signal), [clusterId], 15_000);
  const cluster = summary.data;

  useEffect(() => {
    onName(cluster?.name ?? "");
  }, [cluster?.name, onName]);
  const production = cluster?.environment === "production";
  useEffect(() => {
    if (cluster) noteEnvironment(clusterId, cluster.environment);
  }, [clusterId, cluster]);

  const unknown = summary.error && "code" in summary.error && summary.error.code === "unknown_cluster";

  return (
    <ProductionContext.Provider value={production}>
    <div className="cluster-page">
      <div className="cluster-header" data-testid="cluster-header">
        <div className="cluster-title">
          <h1>{cluster?.name ?? clusterId}</h1>
          <HealthBadge
            health={cluster?.reachable ? cluster.health : null}
            label={cluster && !cluster.reachable ? "unreachable" : undefined}
          />
          {production && <ProductionBadge />}
          {cluster?.version && (
            <span className="version" data-testid="cluster-version">
              {cluster.distribution === "opensearch" ? "OpenSearch" : cluster.distribution === "elasticsearch" ? "Elasticsearch" : ""}{" "}
              {cluster.version}
            </span>
          )}
        </div>
        <div className="cluster-actions">
          {!unknown && <AllocationLock clusterId={clusterId} />}
          {!unknown && (
            <button
              className={`btn btn-icon console-toggle ${consoleOpen ? "active" : ""}`}
              onClick={onToggleConsole}
              aria-label="Open console"
              aria-pressed={consoleOpen}
              title="REST console"
              data-testid="console-toggle"
            >
              <TerminalIcon />
            </button>
          )}
        </div>
      </div>
      {cluster && !cluster.reachable && cluster.error && (
        <div className="banner banner-error">This cluster is unreachable: {cluster.error}</div>
      )}
      <nav className="tabs" aria-label="Cluster views">
        {CLUSTER_VIEWS.map((v) => (
          <Link key={v.id} to={clusterPath(clusterId, v.id)} className={`tab ${v.id === view ? "active" : ""}`} aria-current={v.id === view ? "page" : undefined}>
            {v.label}
          </Link>
        ))}
      </nav>
      <div className="view">
        {unknown && summary.error ? (
          <ErrorState error={summary.error} />
        ) : (
          <>
            {view === "overview" && <OverviewView clusterId={clusterId} />}
            {view === "nodes" && (item === undefined ? <NodesView clusterId={clusterId} search={search} /> : <NodeDetail clusterId={clusterId} nodeId={item} />)}
            {view === "indices" &&
              (item === undefined ? <IndicesView clusterId={clusterId} search={search} /> : <IndexDetail clusterId={clusterId} index={item} />)}
            {view === "shards" && <ShardsView clusterId={clusterId} search={search} />}
            {view === "aliases" && <AliasesView clusterId={clusterId} />}
            {view === "data_streams" && <DataStreamsView clusterId={clusterId} />}
            {view === "templates" && <TemplatesView clusterId={clusterId} />}
            {view === "tasks" && <TasksView clusterId={clusterId} search={search} />}
            {view === "snapshots" && <SnapshotsView clusterId={clusterId} />}
            {view === "settings" && <SettingsView clusterId={clusterId} />}
            {view === "analyze" && <AnalyzeView clusterId={clusterId} />}
            {view === "cat" && <CatView clusterId={clusterId} api={item} search={search} />}
            {view === "compare" && <CompareView clusterId={clusterId} other={item} />}
            {view === "security" && <SecurityView clusterId={clusterId} />}
            {view === "statistics" && (
              <Suspense fallback={<Loading what="statistics" />}>
                <StatisticsView clusterId={clusterId} search={search} theme={theme} metricsSource={cluster?.metricsSource} />
              </Suspense>
            )}
          </>
        )}
      </div>
    </div>
    </ProductionContext.Provider>
  );
}
