// Statistics: a time range (presets or a custom range kept in the URL), time-series charts
// and the health heatmap from /metrics/history, and the current distributions.
import { useMemo, useState } from "react";
import { api } from "../api/client";
import type { ClusterNode, Measurement as HistoryPoint, MetricsHistory, Overview } from "../api/wire";
import { useAsync } from "../lib/useAsync";
import { navigate, useTitle } from "../lib/router";
import type { Theme } from "../lib/theme";
import { readRange, writeRange } from "../lib/urlState";
import {
  PRESETS,
  describeSelection,
  formatRange,
  parseLocalDateTime,
  resolveRange,
  toLocalDateTimeInput,
  validateRange,
  type RangeSelection,
} from "../lib/range";
import { TimeSeriesChart, type Series } from "../charts/TimeSeriesChart";
import { BarList } from "../charts/BarList";
import { HealthHeatmap } from "../charts/HealthHeatmap";
import { Card, ErrorState, Loading } from "../components/common";
import { RefreshIcon } from "../components/icons";
import { formatLocalTime } from "../lib/format";

interface Props {
  clusterId: string;
  search: string;
  theme: Theme;
  metricsSource?: "internal" | "external_metrics";
}

export function StatisticsView({ clusterId, search, theme, metricsSource }: Props) {
  useTitle(`${clusterId} · Statistics`);
  const { selection, error: urlError } = readRange(search);
  // Presets end "now": the moment of the last load, refreshed by the Refresh button.
  const [now, setNow] = useState(() => Math.floor(Date.now() / 1000));
  const range = resolveRange(selection, now);
  const history = useAsync(
    (signal) => api.history(clusterId, range.start, range.end, signal),
    [clusterId, range.start, range.end],
  );

  const choose = (next: RangeSelection) => {
    setNow(Math.floor(Date.now() / 1000));
    navigate(window.location.pathname + writeRange(window.location.search, next));
  };

  return (
    <div className="statistics" data-testid="statistics">
      <RangePicker selection={selection} range={range} onChoose={choose} onRefresh={() => { setNow(Math.floor(Date.now() / 1000)); history.reload(); }} />
      {urlError && <div className="banner banner-warn">The link's time range was ignored: {urlError}. Showing the last 24 hours.</div>}
      <HistorySection history={history.data} error={history.error} loading={history.loading} onRetry={history.reload} theme={theme} metricsSource={metricsSource} label={describeSelection(selection)} />
      <Distributions clusterId={clusterId} />
    </div>
  );
}

function RangePicker({
  selection,
  range,
  onChoose,
  onRefresh,
}: {
  selection: RangeSelection;
  range: { start: number; end: number };
  onChoose: (s: RangeSelection) => void;
  onRefresh: () => void;
}) {
  const [start, setStart] = useState(toLocalDateTimeInput(range.start));
  const [end, setEnd] = useState(toLocalDateTimeInput(range.end));
  const [customOpen, setCustomOpen] = useState(selection.kind === "custom");
  const startS = parseLocalDateTime(start);
  const endS = parseLocalDateTime(end);
  const problem = startS == null || endS == null ? "Enter a start and an end date with time" : validateRange(startS, endS);

  return (
    <div className="range-picker" data-testid="range-picker">
      <div className="segmented" role="group" aria-label="Time range">
        {PRESETS.map((p) => (
          <button
            key={p.id}
            className={selection.kind === "preset" && selection.preset === p.id ? "active" : ""}
            aria-pressed={selection.kind === "preset" && selection.preset === p.id}
            onClick={() => {
              setCustomOpen(false);
              onChoose({ kind: "preset", preset: p.id });
            }}
            title={p.label}
          >
            {p.id}
          </button>
        ))}
        <button
          className={selection.kind === "custom" || customOpen ? "active" : ""}
          aria-pressed={selection.kind === "custom"}
          onClick={() => {
            setStart(toLocalDateTimeInput(range.start));
            setEnd(toLocalDateTimeInput(range.end));
            setCustomOpen(true);
          }}
        >
          Custom
        </button>
      </div>
      {customOpen && (
        <form
          className="custom-range"
          onSubmit={(e) => {
            e.preventDefault();
            if (!problem && startS != null && endS != null) onChoose({ kind: "custom", start: startS, end: endS });
          }}
        >
          <label>
            From <input type="datetime-local" aria-label="Start" value={start} onChange={(e) => setStart(e.target.value)} />
          </label>
          <label>
            To <input type="datetime-local" aria-label="End" value={end} onChange={(e) => setEnd(e.target.value)} />
          </label>
          <button className="btn btn-primary btn-small" type="submit" disabled={problem != null}>
            Apply
          </button>
          {problem && <span className="hint-inline">{problem}</span>}
        </form>
      )}
      <span className="spacer" />
      <span className="muted range-label" data-testid="range-label" title="Local time">
        {formatRange(range)}
      </span>
      <button className="btn btn-icon btn-small" onClick={onRefresh} aria-label="Refresh statistics" title="Refresh">
        <RefreshIcon />
      </button>
    </div>
  );
}

const COLORS = { blue: "#3b82f6", violet: "#8b5cf6", teal: "#14b8a6", amber: "#f59e0b", red: "#ef4444", pink: "#ec4899" };

/**
 * "Collecting since …" while the history is empty or holds one sample: since when the console
 * samples the cluster (`internal`), else since the one sample; null otherwise.
 */
export function collectingNote(history: MetricsHistory): string | null {
  if (history.points.length > 1) return null;
  const since = history.collectingSince ?? history.points[0]?.timestamp;
  if (since === undefined) return null;
  const when = formatLocalTime(since * 1000);
  return history.points.length === 0
    ? `Collecting since ${when}; no sample falls in this range yet.`
    : `Collecting since ${when}: one sample so far in this range; the charts fill in as samples arrive.`;
}

export function HistorySection({
  history,
  error,
  loading,
  onRetry,
  theme,
  metricsSource,
  label,
}: {
  history?: MetricsHistory;
  error?: Error;
  loading: boolean;
  onRetry: () => void;
  theme: Theme;
  metricsSource?: string;
  label: string;
}) {
  const charts = useMemo(() => (history ? buildCharts(history.points) : null), [history]);
  if (error) return <ErrorState error={error} onRetry={onRetry} />;
  if (!history || !charts) return <Loading what="statistics" />;
  const source = history.source === "internal" || metricsSource === "internal" ? "sampled by the admin console" : "from the metrics server";
  const note = collectingNote(history);
  if (history.points.length === 0) {
    return (
      <div className="no-data" data-testid="no-data">
        <strong>No data for {label.toLowerCase()}</strong>
        <p>{history.reason ?? "The metrics source returned no points for this range."}</p>
        {note && <p data-testid="collecting-since">{note}</p>}
        <p className="muted">
          {history.source === "internal"
            ? "With the internal source, the admin console samples the cluster while it runs; older ranges have no samples."
            : "Check that the metrics server's job name and labels match the cluster's exporter series."}
        </p>
      </div>
    );
  }
  return (
    <>
      {note && (
        <div className="hint" role="status" data-testid="collecting-since">
          {note}
        </div>
      )}
      <div className="chart-grid" aria-busy={loading}>
        {charts.map((c) => (
          <Card key={c.title} title={c.title} actions={<span className="muted small">{source}</span>} testId={`chart-${c.id}`} className="chart-card">
            {c.points === 0 ? (
              <div className="no-data small-no-data" data-testid="no-data">
                <strong>No data</strong>
                <p>The metrics source has no values for {c.missing} in this range.</p>
              </div>
            ) : (
              <div data-points={c.points}>
                <TimeSeriesChart start={history.start} end={history.end} timestamps={c.timestamps} series={c.series} theme={theme} unit={c.unit} />
              </div>
            )}
          </Card>
        ))}
      </div>
      <Card title="Health over time" testId="chart-health" actions={<span className="muted small">{label}</span>}>
        <HealthHeatmap points={history.points} step={history.step} />
      </Card>
    </>
  );
}

interface ChartSpec {
  id: string;
  title: string;
  timestamps: number[];
  series: Series[];
  points: number;
  missing: string;
  unit?: string;
}

function buildCharts(points: HistoryPoint[]): ChartSpec[] {
  const timestamps = points.map((p) => p.timestamp);
  const pick = (key: keyof HistoryPoint) => points.map((p) => p[key] as number | null);
  const spec = (id: string, title: string, series: Series[], missing: string, unit?: string): ChartSpec => ({
    id,
    title,
    timestamps,
    series,
    missing,
    unit,
    points: series.reduce((n, s) => n + s.values.filter((v) => v != null).length, 0),
  });
  return [
    spec("nodes-indices", "Nodes and indices", [
      { label: "Nodes", values: pick("nodeCount"), color: COLORS.blue },
      { label: "Indices", values: pick("indexCount"), color: COLORS.violet },
    ], "node and index counts"),
    spec("shards", "Shards", [
      { label: "Shards", values: pick("shardCount"), color: COLORS.teal },
      { label: "Unassigned", values: pick("unassignedShards"), color: COLORS.red },
    ], "shard counts"),
    spec("documents", "Documents", [{ label: "Documents", values: pick("documentCount"), color: COLORS.amber }], "document counts"),
    spec("resources", "Resource usage", [
      { label: "Memory", values: pick("memoryUsagePercent"), color: COLORS.pink },
      { label: "Disk", values: pick("diskUsagePercent"), color: COLORS.violet },
      { label: "CPU", values: pick("cpuUsagePercent"), color: COLORS.blue },
    ], "memory, disk and CPU usage", "%"),
  ];
}

function Distributions({ clusterId }: { clusterId: string }) {
  const overview = useAsync((signal) => api.overview(clusterId, signal), [clusterId], 30_000);
  const nodes = useAsync((signal) => api.nodes(clusterId, signal), [clusterId], 30_000);
  return (
    <div className="chart-grid distributions">
      <Card title="Node types" actions={<span className="muted small">now</span>} testId="chart-node-types">
        <Dist state={nodes} render={(n) => <BarList testId="dist-node-types" bars={nodeTypes(n)} empty="The cluster reports no nodes." />} />
      </Card>
      <Card title="Shard distribution" actions={<span className="muted small">now</span>} testId="chart-shard-states">
        <Dist state={overview} render={(o) => <BarList testId="dist-shards" bars={shardStates(o)} empty="The cluster has no shards: it has no indices yet." />} />
      </Card>
      <Card title="Nodes by role" actions={<span className="muted small">now</span>} testId="chart-node-roles">
        <Dist state={nodes} render={(n) => <BarList testId="dist-roles" bars={nodeRoles(n)} of={n.length} empty="The cluster reports no nodes." />} />
      </Card>
    </div>
  );
}

function Dist<T>({ state, render }: { state: { data?: T; error?: Error; reload: () => void }; render: (d: T) => React.ReactNode }) {
  if (state.data !== undefined) return <>{render(state.data)}</>;
  if (state.error) return <ErrorState error={state.error} onRetry={state.reload} />;
  return <Loading what="data" />;
}

function nodeTypes(nodes: ClusterNode[]) {
  // `dataNode`: the role `data` or any data tier role (`data_hot`…), as the API decides.
  const data = nodes.filter((n) => n.dataNode).length;
  return [
    { label: "Data nodes", value: data, className: "fill-blue" },
    { label: "Other nodes", value: nodes.length - data, className: "fill-violet" },
  ];
}

function shardStates(o: Overview) {
  return [
    { label: "Primary", value: o.primaryShardCount, className: "fill-blue" },
    { label: "Replica", value: o.replicaShardCount, className: "fill-teal" },
    { label: "Unassigned", value: o.unassignedShards, className: "fill-red" },
    { label: "Relocating", value: o.relocatingShards, className: "fill-amber" },
  ];
}

function nodeRoles(nodes: ClusterNode[]) {
  const counts = new Map<string, number>();
  for (const n of nodes) for (const r of n.roles.length ? n.roles : ["coordinating"]) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([label, value]) => ({ label, value, className: "fill-teal" }));
}
