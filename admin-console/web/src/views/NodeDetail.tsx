// One node's page (`/clusters/:id/nodes/:node`): JVM heap and GC, OS CPU and memory, file
// systems per path, thread pools (rejections highlighted), circuit breakers and the node's
// shards, from `GET /api/clusters/:id/nodes/:nodeId` (refreshed every 10 s), and the copies
// leaving and arriving while recoveries run (`RecoveriesPanel`).
import { useMemo, useRef, useState } from "react";
import { OpenInConsole } from "../components/OpenInConsole";
import { pathOf } from "../console/tabs";
import type { NodeDetail as Detail, NodeShard } from "../api/wire";
import { nodesApi } from "../api/nodes";
import { Card, ErrorState, Loading, Meter } from "../components/common";
import { Link } from "../components/Link";
import { formatBytes, formatCount } from "../lib/format";
import { clusterPath, useTitle } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { NodeDrain } from "./NodeDrain";
import { RecoveriesPanel } from "./RecoveriesPanel";
import { visibleFixed } from "./shardGridModel";
import "../styles/shards.css";

export function NodeDetail({ clusterId, nodeId }: { clusterId: string; nodeId: string }) {
  const detail = useAsync((signal) => nodesApi.detail(clusterId, nodeId, signal), [clusterId, nodeId], 10_000);
  const data = detail.data;
  useTitle(`${clusterId} · ${data?.name ?? nodeId}`);
  return (
    <div data-testid="node-detail" className="node-detail">
      <div className="toolbar">
        <Link to={clusterPath(clusterId, "nodes")} className="btn btn-small">
          ← Nodes
        </Link>
        <h2 className="node-title" data-testid="node-title">
          {data?.name ?? nodeId}
        </h2>
        {data && <span className="muted small mono">{data.id}</span>}
        <span className="spacer" />
        <OpenInConsole request={{ method: "GET", path: pathOf("_nodes", data?.id ?? nodeId, "stats") }} />
        {detail.loading && data && <span className="spinner" aria-label="Loading" />}
        {data && <NodeDrain clusterId={clusterId} node={data} />}
      </div>
      {detail.error && <ErrorState error={detail.error} onRetry={detail.reload} />}
      {!data && !detail.error && <Loading what="the node" />}
      {data && <RecoveriesPanel clusterId={clusterId} scope={{ nodeId: data.id }} />}
      {data && <NodeBody clusterId={clusterId} node={data} />}
    </div>
  );
}

function uptime(ms: number | null): string {
  if (ms == null) return "–";
  const hours = ms / 3_600_000;
  return hours >= 48 ? `${Math.floor(hours / 24)} days` : hours >= 1 ? `${hours.toFixed(1)} h` : `${Math.round(ms / 60_000)} min`;
}

function NodeBody({ clusterId, node }: { clusterId: string; node: Detail }) {
  const { jvm, os } = node;
  const rejected = node.threadPools.filter((p) => p.rejected > 0);
  return (
    <>
      <div className="node-facts muted small" data-testid="node-facts">
        <span>{node.host ?? node.ip ?? "–"}</span>
        <span>{node.transportAddress ?? ""}</span>
        <span className="roles">
          {node.roles.map((r) => (
            <span key={r} className={`role role-${r}`}>
              {r}
            </span>
          ))}
        </span>
        <span>{node.managerEligible ? `${node.managerRole}-eligible` : `not ${node.managerRole}-eligible`}</span>
      </div>
      <div className="tiles">
        <div className="tile">
          <div className="tile-label">Heap</div>
          <div className="tile-value">
            <Meter value={jvm?.heapUsedPercent ?? null} label="Heap" />
          </div>
          <div className="tile-sub muted">{jvm ? `${formatBytes(jvm.heapUsedBytes)} of ${formatBytes(jvm.heapMaxBytes)}` : "–"}</div>
        </div>
        <div className="tile">
          <div className="tile-label">CPU</div>
          <div className="tile-value">
            <Meter value={os?.cpuPercent ?? null} label="CPU" />
          </div>
          <div className="tile-sub muted">{os && os.loadAverage.length ? `load ${os.loadAverage.map((l) => l.toFixed(2)).join(" / ")}` : "–"}</div>
        </div>
        <div className="tile">
          <div className="tile-label">Memory</div>
          <div className="tile-value">
            <Meter value={os?.memUsedPercent ?? null} label="Memory" />
          </div>
          <div className="tile-sub muted">{os?.memTotalBytes ? `${formatBytes(os.memUsedBytes)} of ${formatBytes(os.memTotalBytes)}` : "–"}</div>
        </div>
        <div className={`tile${rejected.length ? " tile-warn" : ""}`} data-testid="node-rejections">
          <div className="tile-label">Rejected tasks</div>
          <div className="tile-value">{formatCount(rejected.reduce((sum, p) => sum + p.rejected, 0))}</div>
          <div className="tile-sub muted">{rejected.length ? `in ${rejected.map((p) => p.name).join(", ")}` : "no thread pool rejected work"}</div>
        </div>
      </div>
      <div className="node-cards">
        <Card title="JVM" testId="node-jvm">
          {jvm ? (
            <>
              <p className="small muted">
                Uptime {uptime(jvm.uptimeMs)} · {formatCount(jvm.threads)} threads · non-heap {formatBytes(jvm.nonHeapUsedBytes)}
              </p>
              <table className="table">
                <thead>
                  <tr>
                    <th>GC collector</th>
                    <th className="num">Collections</th>
                    <th className="num">Time</th>
                    <th className="num">Average</th>
                  </tr>
                </thead>
                <tbody>
                  {jvm.gc.map((g) => (
                    <tr key={g.name}>
                      <td className="mono">{g.name}</td>
                      <td className="num">{formatCount(g.count)}</td>
                      <td className="num">{formatCount(g.timeMs)} ms</td>
                      <td className="num">{g.count ? `${(g.timeMs / g.count).toFixed(1)} ms` : "–"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : (
            <p className="muted">The node reported no JVM statistics.</p>
          )}
        </Card>
        <Card title="File systems" testId="node-fs">
          <table className="table">
            <thead>
              <tr>
                <th>Path</th>
                <th>Mount</th>
                <th className="num">Size</th>
                <th>Used</th>
              </tr>
            </thead>
            <tbody>
              {node.fileSystems.map((fs) => (
                <tr key={fs.path}>
                  <td className="mono">{fs.path}</td>
                  <td className="mono small">{[fs.mount, fs.kind].filter(Boolean).join(" · ")}</td>
                  <td className="num">{formatBytes(fs.totalBytes)}</td>
                  <td>
                    <Meter value={fs.usedPercent} label="Used" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
        <Card title="Thread pools" testId="node-thread-pools">
          {node.threadPools.length === 0 ? (
            <p className="muted">The node reported no thread pools.</p>
          ) : (
            <table className="table">
              <thead>
                <tr>
                  <th>Pool</th>
                  <th className="num">Threads</th>
                  <th className="num">Active</th>
                  <th className="num">Queue</th>
                  <th className="num">Rejected</th>
                  <th className="num">Completed</th>
                </tr>
              </thead>
              <tbody>
                {node.threadPools.map((p) => (
                  <tr key={p.name} className={p.rejected > 0 ? "row-rejected" : undefined} data-rejected={p.rejected > 0 || undefined}>
                    <td className="mono">{p.name}</td>
                    <td className="num">{formatCount(p.threads)}</td>
                    <td className="num">{formatCount(p.active)}</td>
                    <td className="num">{formatCount(p.queue)}</td>
                    <td className="num">{formatCount(p.rejected)}</td>
                    <td className="num">{formatCount(p.completed)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Card>
        <Card title="Circuit breakers" testId="node-breakers">
          {node.breakers.length === 0 ? (
            <p className="muted">The node reported no circuit breakers.</p>
          ) : (
            <table className="table">
              <thead>
                <tr>
                  <th>Breaker</th>
                  <th>Estimated / limit</th>
                  <th className="num">Tripped</th>
                </tr>
              </thead>
              <tbody>
                {node.breakers.map((b) => (
                  <tr key={b.name} className={b.tripped > 0 ? "row-rejected" : undefined}>
                    <td className="mono">{b.name}</td>
                    <td>
                      <Meter value={b.usedPercent} label={b.name} /> <span className="muted small">{formatBytes(b.estimatedBytes)} / {formatBytes(b.limitBytes)}</span>
                    </td>
                    <td className="num">{formatCount(b.tripped)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Card>
      </div>
      <NodeShards clusterId={clusterId} shards={node.shards} names={node.name} />
    </>
  );
}

const ROW = 34;
const LIST_HEIGHT = 420;

/** The node's shards, filterable, rendered as a window of the list (a node may hold thousands). */
function NodeShards({ clusterId, shards, names }: { clusterId: string; shards: NodeShard[]; names: string }) {
  const [filter, setFilter] = useState("");
  const [scroll, setScroll] = useState(0);
  const scroller = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => {
    const text = filter.trim().toLowerCase();
    return text === "" ? shards : shards.filter((s) => s.index.toLowerCase().includes(text));
  }, [shards, filter]);
  const [start, end] = visibleFixed(rows.length, ROW, scroll, LIST_HEIGHT, 4);
  return (
    <Card
      title={`Shards on ${names} (${formatCount(shards.length)})`}
      testId="node-shards"
      actions={<input className="filter filter-narrow" type="search" placeholder="Filter by index" value={filter} onChange={(e) => setFilter(e.target.value)} aria-label="Filter the node's shards" />}
    >
      {rows.length === 0 ? (
        <p className="muted">{shards.length === 0 ? "This node holds no shards." : "No shard matches the filter."}</p>
      ) : (
        <div className="node-shards" ref={scroller} style={{ maxHeight: LIST_HEIGHT }} onScroll={(e) => setScroll(e.currentTarget.scrollTop)}>
          <div style={{ height: rows.length * ROW, position: "relative" }}>
            {rows.slice(start, end).map((s, i) => (
              <div key={`${s.index}/${s.shard}/${s.primary}`} className="node-shard-row" style={{ top: (start + i) * ROW, height: ROW }} data-testid="node-shard">
                <Link to={clusterPath(clusterId, "indices", s.index)} className="mono">
                  {s.index}
                </Link>
                <span className="mono">shard {s.shard}</span>
                <span>{s.primary ? "primary" : "replica"}</span>
                <span className={`pill state-${s.state}`}>{s.state}</span>
                <span className="muted small">
                  {s.relocatingTo ? `→ ${s.relocatingTo}` : s.relocatingFrom ? `← from ${s.relocatingFrom}` : ""}
                </span>
              </div>
            ))}
          </div>
        </div>
      )}
    </Card>
  );
}
