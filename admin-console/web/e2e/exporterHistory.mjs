// Writes a week of elasticsearch_exporter series (the real metric names and labels the
// exporter exposes) as OpenMetrics text, for `promtool tsdb create-blocks-from openmetrics`.
// The cluster grows from 3 to 5 nodes, gains indices and documents, goes yellow for a few
// hours and red for one sample, so every chart and the heatmap have visible shape.
import { writeFileSync } from "node:fs";

export const HISTORY_STEP = 300; // seconds between samples
export const HISTORY_DAYS = 8;
const BASE = { job: "elasticsearch", cluster: "prod", instance: "exporter:9114" };

function labels(extra = {}) {
  const all = { ...BASE, ...extra };
  return `{${Object.entries(all)
    .map(([k, v]) => `${k}="${v}"`)
    .join(",")}}`;
}

/** The cluster's state at sample `i` of `n`. */
function stateAt(i, n) {
  const progress = i / (n - 1);
  const nodes = progress < 0.4 ? 3 : progress < 0.7 ? 4 : 5;
  const indices = 4 + Math.floor(progress * 8);
  let health = "green";
  if (progress > 0.55 && progress < 0.58) health = "yellow";
  if (progress > 0.82 && progress < 0.85) health = "yellow";
  if (i === Math.floor(n * 0.9)) health = "red";
  const unassigned = health === "green" ? 0 : health === "yellow" ? 4 : 12;
  return { nodes, indices, health, unassigned, shards: indices * 2 * 2 - unassigned };
}

export function writeExporterHistory(path, nowSeconds) {
  const end = nowSeconds - 60;
  const n = Math.floor((HISTORY_DAYS * 86400) / HISTORY_STEP);
  const times = Array.from({ length: n }, (_, i) => end - (n - 1 - i) * HISTORY_STEP);
  const states = times.map((_, i) => stateAt(i, n));
  const out = [];
  const family = (name, help, seriesList) => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`);
    for (const { extra, value } of seriesList) {
      const l = labels(extra);
      times.forEach((t, i) => {
        const v = value(states[i], i, t);
        if (v !== null) out.push(`${name}${l} ${v} ${t}`);
      });
    }
  };
  family("elasticsearch_cluster_health_status", "Whether all primary and replica shards are allocated.",
    ["green", "yellow", "red"].map((color) => ({ extra: { color }, value: (s) => (s.health === color ? 1 : 0) })));
  family("elasticsearch_cluster_health_number_of_nodes", "Number of nodes in the cluster.", [{ value: (s) => s.nodes }]);
  family("elasticsearch_cluster_health_number_of_data_nodes", "Number of data nodes in the cluster.", [{ value: (s) => s.nodes - 1 }]);
  family("elasticsearch_cluster_health_active_shards", "Aggregate total of all shards across all indices.", [{ value: (s) => s.shards }]);
  family("elasticsearch_cluster_health_unassigned_shards", "The number of shards that are not allocated.", [{ value: (s) => s.unassigned }]);
  const indexNames = Array.from({ length: 12 }, (_, k) => `logs-2026.11.${String(k + 10).padStart(2, "0")}`);
  family("elasticsearch_indices_docs_primary", "Count of documents with only primary shards",
    indexNames.map((index, k) => ({
      extra: { index },
      value: (s, i) => (k < s.indices ? Math.floor(20_000 * (k + 1) + i * 37 * (k + 1)) : null),
    })));
  const nodeNames = ["es-1", "es-2", "es-3", "es-4", "es-5"];
  const perNode = (fn) =>
    nodeNames.map((name, k) => ({ extra: { name, host: `10.0.0.${k + 1}` }, value: (s, i) => (k < s.nodes ? fn(k, i) : null) }));
  const max = 4 * 1024 ** 3;
  family("elasticsearch_jvm_memory_used_bytes", "JVM memory currently used by area",
    perNode((k, i) => Math.round(max * (0.45 + 0.2 * Math.sin(i / 20 + k)))).map((s) => ({ ...s, extra: { ...s.extra, area: "heap" } })));
  family("elasticsearch_jvm_memory_max_bytes", "JVM memory max",
    perNode(() => max).map((s) => ({ ...s, extra: { ...s.extra, area: "heap" } })));
  const disk = 200 * 1024 ** 3;
  family("elasticsearch_filesystem_data_size_bytes", "Size of block device in bytes",
    perNode(() => disk).map((s) => ({ ...s, extra: { ...s.extra, mount: "/data" } })));
  family("elasticsearch_filesystem_data_available_bytes", "Available space on block device in bytes",
    perNode((k, i) => Math.round(disk * (0.7 - i / 20_000 - k * 0.02))).map((s) => ({ ...s, extra: { ...s.extra, mount: "/data" } })));
  family("elasticsearch_os_cpu_percent", "Percent CPU used by OS", perNode((k, i) => Math.round(20 + 15 * Math.abs(Math.sin(i / 12 + k)))));
  out.push("# EOF", "");
  writeFileSync(path, out.join("\n"));
  return { start: times[0], end, samples: n };
}
