// Nodes: the list with roles, data tiers (a badge per tier, a tier filter kept in the URL as
// `?tier=hot`), version and usage meters; a name opens the node's page.
import { useEffect, useMemo, useState } from "react";
import { api } from "../api/client";
import type { ClusterNode, DataTier } from "../api/wire";
import { useAsync } from "../lib/useAsync";
import { clusterPath, navigate, useTitle } from "../lib/router";
import { Link } from "../components/Link";
import { EmptyState, ErrorState, Loading, Meter } from "../components/common";
import { StarIcon } from "../components/icons";
import { TIERS, hasTiers, readTier, tierLabel } from "./shardGridModel";

type NodeSort = "name" | "heapPercent" | "diskUsedPercent" | "cpuPercent";

/** `search` with `?tier=` set to `tier` (left out for every tier), other parameters kept. */
export function writeNodeTier(search: string, tier: DataTier | null): string {
  const params = new URLSearchParams(search);
  if (tier === null) params.delete("tier");
  else params.set("tier", tier);
  const text = params.toString();
  return text ? `?${text}` : "";
}

export function NodesView({ clusterId, search }: { clusterId: string; search: string }) {
  useTitle(`${clusterId} · Nodes`);
  const nodes = useAsync((signal) => api.nodes(clusterId, signal), [clusterId], 15_000);
  const [filter, setFilter] = useState("");
  const [tier, setTier] = useState<DataTier | null>(() => readTier(new URLSearchParams(search).get("tier")));
  useEffect(() => {
    navigate(window.location.pathname + writeNodeTier(window.location.search, tier), { replace: true });
  }, [tier]);
  const [sort, setSort] = useState<{ key: NodeSort; desc: boolean }>({ key: "name", desc: false });

  const rows = useMemo(() => {
    const text = filter.trim().toLowerCase();
    const list = (nodes.data ?? []).filter(
      (n) =>
        (tier === null || n.tiers.includes(tier)) &&
        (text === "" ||
        n.name.toLowerCase().includes(text) ||
        (n.ip ?? "").includes(text) ||
        n.roles.some((r) => r.includes(text))),
    );
    const dir = sort.desc ? -1 : 1;
    return [...list].sort((a, b) => {
      if (sort.key === "name") return dir * a.name.localeCompare(b.name);
      return dir * ((a[sort.key] ?? -1) - (b[sort.key] ?? -1));
    });
  }, [nodes.data, filter, sort, tier]);

  if (!nodes.data) return nodes.error ? <ErrorState error={nodes.error} onRetry={nodes.reload} /> : <Loading what="nodes" />;
  // The tier column and filter when the cluster has tiers (OpenSearch has none).
  const tiered = hasTiers(nodes.data) || tier !== null;

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
        {tiered && (
          <select aria-label="Data tier" value={tier ?? ""} onChange={(e) => setTier(readTier(e.target.value))}>
            <option value="">All tiers</option>
            {TIERS.filter((t) => t === tier || nodes.data!.some((n) => n.tiers.includes(t))).map((t) => (
              <option key={t} value={t}>
                {tierLabel(t)} tier
              </option>
            ))}
          </select>
        )}
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
                {tiered && <th>Tiers</th>}
                <th>Version</th>
                {header("heapPercent", "Heap")}
                {header("diskUsedPercent", "Disk")}
                {header("cpuPercent", "CPU")}
              </tr>
            </thead>
            <tbody>
              {rows.map((n) => (
                <NodeRow key={n.id} clusterId={clusterId} node={n} tiered={tiered} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function NodeRow({ clusterId, node, tiered }: { clusterId: string; node: ClusterNode; tiered: boolean }) {
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
      {tiered && (
        <td data-testid="node-tiers">
          {node.tiers.length === 0 ? (
            <span className="muted">{node.dataNode ? "data (no tier)" : "–"}</span>
          ) : (
            <span className="roles">
              {node.tiers.map((t) => (
                <span key={t} className={`tier tier-${t}`}>
                  {t}
                </span>
              ))}
            </span>
          )}
        </td>
      )}
      <td className="mono">{node.version ?? "–"}</td>
      <td><Meter value={node.heapPercent} label="Heap" /></td>
      <td><Meter value={node.diskUsedPercent} label="Disk" /></td>
      <td><Meter value={node.cpuPercent} label="CPU" /></td>
    </tr>
  );
}
