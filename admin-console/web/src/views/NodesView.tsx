import { useMemo, useState } from "react";
import { api } from "../api/client";
import type { ClusterNode } from "../api/wire";
import { useAsync } from "../lib/useAsync";
import { clusterPath, useTitle } from "../lib/router";
import { Link } from "../components/Link";
import { EmptyState, ErrorState, Loading, Meter } from "../components/common";
import { StarIcon } from "../components/icons";

type NodeSort = "name" | "heapPercent" | "diskUsedPercent" | "cpuPercent";

export function NodesView({ clusterId }: { clusterId: string }) {
  useTitle(`${clusterId} · Nodes`);
  const nodes = useAsync((signal) => api.nodes(clusterId, signal), [clusterId], 15_000);
  const [filter, setFilter] = useState("");
  const [sort, setSort] = useState<{ key: NodeSort; desc: boolean }>({ key: "name", desc: false });

  const rows = useMemo(() => {
    const text = filter.trim().toLowerCase();
    const list = (nodes.data ?? []).filter(
      (n) =>
        text === "" ||
        n.name.toLowerCase().includes(text) ||
        (n.ip ?? "").includes(text) ||
        n.roles.some((r) => r.includes(text)),
    );
    const dir = sort.desc ? -1 : 1;
    return [...list].sort((a, b) => {
      if (sort.key === "name") return dir * a.name.localeCompare(b.name);
      return dir * ((a[sort.key] ?? -1) - (b[sort.key] ?? -1));
    });
  }, [nodes.data, filter, sort]);

  if (!nodes.data) return nodes.error ? <ErrorState error={nodes.error} onRetry={nodes.reload} /> : <Loading what="nodes" />;

  const header = (key: NodeSort, label: string) => (
    <th aria-sort={sort.key === key ? (sort.desc ? "descending" : "ascending") : "none"}>
      <button className="sort" onClick={() => setSort((s) => ({ key, desc: s.key === key ? !s.desc : key !== "name" }))}>
        {label} {sort.key === key ? (sort.desc ? "▼" : "▲") : ""}
      </button>
    </th>
  );

  return (
    <div data-testid="nodes">
      {nodes.error && <ErrorState error={nodes.error} onRetry={nodes.reload} />}
      <div className="toolbar">
        <input className="filter" placeholder="Filter by name, IP or role" value={filter} onChange={(e) => setFilter(e.target.value)} aria-label="Filter nodes" />
        <span className="muted">
          {rows.length} of {nodes.data.length} nodes
        </span>
      </div>
      {rows.length === 0 ? (
        <EmptyState title="No node matches the filter" />
      ) : (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                {header("name", "Node")}
                <th>IP</th>
                <th>Roles</th>
                <th>Version</th>
                {header("heapPercent", "Heap")}
                {header("diskUsedPercent", "Disk")}
                {header("cpuPercent", "CPU")}
              </tr>
            </thead>
            <tbody>
              {rows.map((n) => (
                <NodeRow key={n.id} clusterId={clusterId} node={n} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function NodeRow({ clusterId, node }: { clusterId: string; node: ClusterNode }) {
  return (
    <tr>
      <td>
        <span className="node-name">
          {node.isMaster && (
            <span className="master" title="Elected master">
              <StarIcon />
            </span>
          )}
          <Link to={clusterPath(clusterId, "nodes", node.id)} data-testid="node-link">
            {node.name}
          </Link>
        </span>
        <div className="muted small mono">{node.id}</div>
      </td>
      <td className="mono">{node.ip ?? "–"}</td>
      <td>
        <span className="roles">
          {node.roles.length === 0 ? (
            <span className="role">coordinating</span>
          ) : (
            node.roles.map((r) => (
              <span key={r} className={`role role-${r}`}>
                {r}
              </span>
            ))
          )}
        </span>
      </td>
      <td className="mono">{node.version ?? "–"}</td>
      <td><Meter value={node.heapPercent} label="Heap" /></td>
      <td><Meter value={node.diskUsedPercent} label="Disk" /></td>
      <td><Meter value={node.cpuPercent} label="CPU" /></td>
    </tr>
  );
}
