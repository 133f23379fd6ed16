// Recoveries in progress on a node's page (copies leaving and arriving while it drains) or on an
// index's page, from `GET /recoveries` or `GET /indices/:index/recoveries`: polled every 2 s
// while any recovery runs, every 10 s otherwise; shown only while there is something to show.
import { useEffect, useState } from "react";
import type { Recovery } from "../api/wire";
import { recoveryApi } from "../api/recovery";
import { Card } from "../components/common";
import { formatBytes, formatDuration } from "../lib/format";
import { useAsync } from "../lib/useAsync";
import { recoveriesOfNode, recoverySource } from "./recoveryModel";

export type RecoveriesScope = { nodeId: string; index?: undefined } | { index: string; nodeId?: undefined };

export function RecoveriesPanel({ clusterId, scope }: { clusterId: string; scope: RecoveriesScope }) {
  const [active, setActive] = useState(false);
  const list = useAsync(
    (signal) => (scope.index !== undefined ? recoveryApi.ofIndex(clusterId, scope.index, signal) : recoveryApi.all(clusterId, signal)),
    [clusterId, scope.index ?? null],
    active ? 2_000 : 10_000,
  );
  const data = list.data;
  const rows: { direction: string | null; recovery: Recovery }[] = [];
  if (data && scope.nodeId !== undefined) {
    const { leaving, arriving } = recoveriesOfNode(data.recoveries, scope.nodeId);
    rows.push(...leaving.map((recovery) => ({ direction: "leaving", recovery })), ...arriving.map((recovery) => ({ direction: "arriving", recovery })));
  } else if (data) {
    rows.push(...data.recoveries.map((recovery) => ({ direction: null, recovery })));
  }
  useEffect(() => {
    if (data) setActive(rows.length > 0);
  }, [data, rows.length]);
  if (rows.length === 0) return null;
  return (
    <Card title={`Recoveries (${rows.length})`} testId="recoveries">
      {data?.truncated && <p className="muted small">The first {data.recoveries.length} of {data.total} recoveries.</p>}
      <table className="table">
        <thead>
          <tr>
            {scope.nodeId !== undefined && <th />}
            <th>Index</th>
            <th>Shard</th>
            <th>Type</th>
            <th>Stage</th>
            <th>From</th>
            <th>To</th>
            <th>Bytes</th>
            <th>Files</th>
            <th>Translog</th>
            <th>Elapsed</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ direction, recovery: r }) => (
            <tr key={`${direction}-${r.index}-${r.shard}-${r.primary}-${r.targetNodeId}`} data-testid="recovery-row" data-direction={direction ?? undefined}>
              {direction !== null && <td>{direction}</td>}
              <td className="mono">{r.index}</td>
              <td>
                {r.shard} {r.primary ? "primary" : "replica"}
              </td>
              <td>{r.kind.replace(/_/g, " ")}</td>
              <td>{r.stage.replace(/_/g, " ")}</td>
              <td>{recoverySource(r)}</td>
              <td>{r.targetNode ?? r.targetNodeId ?? "–"}</td>
              <td>
                <progress max={100} value={r.bytes.percent} aria-label="Bytes recovered" /> {r.bytes.percent.toFixed(1)}%{" "}
                <span className="muted small">
                  {formatBytes(r.bytes.recovered)} of {formatBytes(r.bytes.total)}
                </span>
              </td>
              <td>
                {r.files.recovered}/{r.files.total}
              </td>
              <td>{r.translogOps.total > 0 ? `${r.translogOps.recovered}/${r.translogOps.total}` : "–"}</td>
              <td>{formatDuration(r.elapsedMillis)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}
