// Recoveries beside the shard grid and on the node and index pages: which chip a recovery
// belongs to (index, shard, primary and the node the copy goes to), a recovery in one line, and
// a node's recoveries split into copies leaving and arriving.
import type { GridCopy, GridNode, Recovery } from "../api/wire";
import { formatBytes, formatDuration } from "../lib/format";

/** The key of a recovering copy: its index, shard, primary flag and the node it goes to. */
export function recoveryKey(index: string, shard: number, primary: boolean, targetNodeId: string | null | undefined): string {
  return `${index}\u0000${shard}\u0000${primary}\u0000${targetNodeId ?? ""}`;
}

/** The recoveries by chip key. */
export function recoveriesByCopy(recoveries: readonly Recovery[]): Map<string, Recovery> {
  return new Map(recoveries.map((r) => [recoveryKey(r.index, r.shard, r.primary, r.targetNodeId), r]));
}

/** The recovery of a grid copy: a relocating copy recovers on its target, an initialising one
 * on its own node. */
export function recoveryOf(byCopy: ReadonlyMap<string, Recovery>, index: string, copy: GridCopy, nodes: readonly GridNode[]): Recovery | undefined {
  if (copy.state !== "relocating" && copy.state !== "initializing") return undefined;
  const position = copy.state === "relocating" ? copy.relocatingNode : copy.node;
  const target = position === undefined ? undefined : nodes[position]?.id;
  return target === undefined ? undefined : byCopy.get(recoveryKey(index, copy.shard, copy.primary, target));
}

const percent = (p: number) => `${p.toFixed(1)}%`;

/** "42.0% · index · 1.2 MB of 3.0 MB · 3/12 files · 5s". */
export function recoveryLine(r: Recovery): string {
  const parts = [percent(r.bytes.percent), r.stage.replace(/_/g, " ") || "unknown stage"];
  parts.push(`${formatBytes(r.bytes.recovered)} of ${formatBytes(r.bytes.total)}`);
  parts.push(`${r.files.recovered}/${r.files.total} files`);
  if (r.translogOps.total > 0) parts.push(`${r.translogOps.recovered}/${r.translogOps.total} translog ops`);
  parts.push(formatDuration(r.elapsedMillis));
  return parts.join(" · ");
}

/** Where a recovery comes from, in words. */
export function recoverySource(r: Recovery): string {
  if (r.sourceSnapshot) return `snapshot ${r.sourceSnapshot}`;
  if (r.sourceNode || r.sourceNodeId) return (r.sourceNode ?? r.sourceNodeId) as string;
  return r.kind.replace(/_/g, " ") || "–";
}

/** A node's recoveries: copies leaving it and copies arriving on it. */
export function recoveriesOfNode(recoveries: readonly Recovery[], nodeId: string): { leaving: Recovery[]; arriving: Recovery[] } {
  return {
    leaving: recoveries.filter((r) => r.sourceNodeId === nodeId),
    arriving: recoveries.filter((r) => r.targetNodeId === nodeId),
  };
}
