// The shard grid's plain logic (no React): filters, the rows (an "unassigned" row, then one per
// node, grouped under a header per data tier when the cluster has tiers) × columns (indices)
// layout with each cell's copies, the row heights, the visible window of a virtualised axis, and
// the nodes a copy may move to.
import type { DataTier, GridCopy, GridIndex, GridNode, ShardGrid } from "../api/wire";

export type StateFilter = "all" | "unassigned" | "relocating" | "initializing";

export interface GridFilters {
  /** Case-insensitive substring of the index name. */
  index: string;
  /** Case-insensitive substring of the node name or id. */
  node: string;
  state: StateFilter;
  hideClosed: boolean;
  hideSystem: boolean;
  /** Only the nodes with this data tier role (`?tier=hot`); null for every node. */
  tier: DataTier | null;
}

export const NO_FILTERS: GridFilters = { index: "", node: "", state: "all", hideClosed: false, hideSystem: false, tier: null };

/** The data tiers in their order (hot, warm, cold, frozen, content). */
export const TIERS: readonly DataTier[] = ["hot", "warm", "cold", "frozen", "content"];

/** A tier as a label: "Hot", or "No tier" for nodes without one. */
export function tierLabel(tier: DataTier | null): string {
  return tier === null ? "No tier" : tier[0].toUpperCase() + tier.slice(1);
}

/** Whether any node of the grid has a data tier role (then rows are grouped by tier). */
export function hasTiers(nodes: readonly { tiers: readonly DataTier[] }[]): boolean {
  return nodes.some((node) => node.tiers.length > 0);
}

/** The tier a node is grouped under: the filtered tier if it has it, else its first tier (hot
 * before warm… before content), null without tier roles. */
export function groupTier(node: { tiers: readonly DataTier[] }, filter: DataTier | null): DataTier | null {
  if (filter !== null && node.tiers.includes(filter)) return filter;
  return node.tiers[0] ?? null;
}

/** One chip in a cell. An "incoming" chip is the target side of a relocation: the copy being
 * built on the node it moves to (the routing table lists it only on its source). */
export interface CellCopy {
  index: string;
  copy: GridCopy;
  incoming: boolean;
  /** The id of the node holding the copy (the source of a relocation); null when unassigned. */
  nodeId: string | null;
}

export type Row =
  | { kind: "unassigned"; key: string; label: string }
  | { kind: "node"; key: string; label: string; node: GridNode }
  /** A data tier's group header (no cells): its nodes follow until the next header. */
  | { kind: "tier"; key: string; label: string; tier: DataTier | null; nodes: number };

export const UNASSIGNED_KEY = "\u0000unassigned";

export interface GridLayout {
  rows: Row[];
  columns: GridIndex[];
  /** Row key → column position → copies. Sparse: most cells are empty. */
  cells: Map<string, Map<number, CellCopy[]>>;
  /** Copies shown (incoming chips not counted). */
  shown: number;
}

function copyMatches(copy: GridCopy, state: StateFilter): boolean {
  switch (state) {
    case "all":
      return true;
    case "unassigned":
      return copy.state === "unassigned";
    case "relocating":
      return copy.state === "relocating";
    case "initializing":
      // A relocation's target is an initialising copy too.
      return copy.state === "initializing" || copy.state === "relocating";
  }
}

function push(cells: Map<string, Map<number, CellCopy[]>>, row: string, column: number, chip: CellCopy) {
  let byColumn = cells.get(row);
  if (!byColumn) cells.set(row, (byColumn = new Map()));
  const list = byColumn.get(column);
  if (list) list.push(chip);
  else byColumn.set(column, [chip]);
}

/** The grid as filtered: which indices are columns, which nodes rows, and each cell's chips.
 * Copies name their nodes by position in `grid.nodes`. */
export function layoutGrid(grid: ShardGrid, filters: GridFilters): GridLayout {
  const indexText = filters.index.trim().toLowerCase();
  const nodeText = filters.node.trim().toLowerCase();
  const nodeShown = (node: GridNode) =>
    (filters.tier === null || node.tiers.includes(filters.tier)) &&
    (nodeText === "" || node.name.toLowerCase().includes(nodeText) || node.id.toLowerCase().includes(nodeText));
  const shownNodes = grid.nodes.map(nodeShown);
  const showUnassigned = filters.tier === null && (nodeText === "" || "unassigned".includes(nodeText));

  const cells = new Map<string, Map<number, CellCopy[]>>();
  const columns: GridIndex[] = [];
  let shown = 0;
  for (const index of grid.indices) {
    if (filters.hideClosed && index.closed) continue;
    if (filters.hideSystem && index.system) continue;
    if (indexText !== "" && !index.name.toLowerCase().includes(indexText)) continue;
    const column = columns.length;
    let placed = 0;
    for (const copy of index.shards) {
      if (!copyMatches(copy, filters.state)) continue;
      const ghostOnly = filters.state === "initializing" && copy.state === "relocating";
      const source = copy.node === undefined ? undefined : grid.nodes[copy.node];
      if (copy.state === "unassigned" || source === undefined) {
        if (showUnassigned) {
          push(cells, UNASSIGNED_KEY, column, { index: index.name, copy, incoming: false, nodeId: null });
          placed++;
        }
        continue;
      }
      if (!ghostOnly && shownNodes[copy.node!]) {
        push(cells, source.id, column, { index: index.name, copy, incoming: false, nodeId: source.id });
        placed++;
      }
      const target = copy.relocatingNode === undefined ? undefined : grid.nodes[copy.relocatingNode];
      if (copy.state === "relocating" && target !== undefined && shownNodes[copy.relocatingNode!]) {
        push(cells, target.id, column, { index: index.name, copy, incoming: true, nodeId: source.id });
        if (ghostOnly) placed++;
      }
    }
    // With a state filter, only indices that have such copies stay.
    if (filters.state !== "all" && placed === 0) {
      for (const byColumn of cells.values()) byColumn.delete(column);
      continue;
    }
    columns.push(index);
    shown += placed;
  }
  const rows: Row[] = [];
  if (cells.get(UNASSIGNED_KEY)?.size) rows.push({ kind: "unassigned", key: UNASSIGNED_KEY, label: "Unassigned" });
  const nodeRows: Extract<Row, { kind: "node" }>[] = [];
  grid.nodes.forEach((node, position) => {
    if (!shownNodes[position]) return;
    // With a state filter, nodes without matching copies are left out; data nodes stay otherwise.
    if (filters.state !== "all" && !cells.get(node.id)?.size) return;
    if (filters.state === "all" && !node.dataNode && !cells.get(node.id)?.size) return;
    nodeRows.push({ kind: "node", key: node.id, label: node.name, node });
  });
  if (hasTiers(grid.nodes)) rows.push(...groupByTier(nodeRows, filters.tier));
  else rows.push(...nodeRows);
  return { rows, columns, cells, shown };
}

/** `rows` under a header per tier, in tier order, nodes without a tier last; within a group in
 * the order given (the API's: by name). */
function groupByTier(rows: Extract<Row, { kind: "node" }>[], filter: DataTier | null): Row[] {
  const groups = new Map<DataTier | null, Row[]>();
  for (const row of rows) {
    const tier = groupTier(row.node, filter);
    const group = groups.get(tier);
    if (group) group.push(row);
    else groups.set(tier, [row]);
  }
  const grouped: Row[] = [];
  for (const tier of [...TIERS, null]) {
    const group = groups.get(tier);
    if (!group) continue;
    grouped.push({ kind: "tier", key: `\u0000tier:${tier ?? "none"}`, label: tierLabel(tier), tier, nodes: group.length }, ...group);
  }
  return grouped;
}

/** Sizes of the grid's pieces, in pixels (the CSS uses the same numbers). */
export const SIZES = {
  rowHeader: 180,
  columnWidth: 128,
  columnHeader: 56,
  chip: 26,
  chipsPerLine: 4,
  line: 24,
  cellPadding: 12,
  tierHeader: 28,
} as const;

/** Each row's height: as many chip lines as its fullest cell needs (one at least). */
export function rowHeights(layout: GridLayout): number[] {
  return layout.rows.map((row) => {
    if (row.kind === "tier") return SIZES.tierHeader;
    let most = 0;
    for (const chips of layout.cells.get(row.key)?.values() ?? []) most = Math.max(most, chips.length);
    const lines = Math.max(1, Math.ceil(most / SIZES.chipsPerLine));
    return SIZES.cellPadding + lines * SIZES.line;
  });
}

/** Running offsets: offsets[i] is where item i starts; offsets[n] the total. */
export function offsetsOf(sizes: number[]): number[] {
  const offsets = new Array<number>(sizes.length + 1);
  offsets[0] = 0;
  for (let i = 0; i < sizes.length; i++) offsets[i + 1] = offsets[i] + sizes[i];
  return offsets;
}

/** The items [start, end) that intersect [scroll, scroll + viewport), with `overscan` more on
 * each side; `offsets` as from [`offsetsOf`]. */
export function visibleRange(offsets: number[], scroll: number, viewport: number, overscan = 2): [number, number] {
  const count = offsets.length - 1;
  if (count <= 0) return [0, 0];
  // First item whose end is past the scroll position.
  let low = 0;
  let high = count - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (offsets[mid + 1] <= scroll) low = mid + 1;
    else high = mid;
  }
  let end = low;
  while (end < count && offsets[end] < scroll + viewport) end++;
  return [Math.max(0, low - overscan), Math.min(count, Math.max(end, low + 1) + overscan)];
}

/** The same for equal-sized items (the columns). */
export function visibleFixed(count: number, size: number, scroll: number, viewport: number, overscan = 2): [number, number] {
  if (count <= 0) return [0, 0];
  const start = Math.max(0, Math.floor(scroll / size) - overscan);
  const end = Math.min(count, Math.ceil((scroll + viewport) / size) + overscan);
  return [start, Math.max(start, end)];
}

/** The data nodes `copy` of `index` may move to: every data node that holds no copy of the same
 * shard (a copy already there or arriving there would be refused by the same_shard decider). */
export function moveTargets(grid: ShardGrid, index: string, copy: GridCopy): GridNode[] {
  const entry = grid.indices.find((i) => i.name === index);
  const taken = new Set<number>();
  for (const other of entry?.shards ?? []) {
    if (other.shard !== copy.shard) continue;
    if (other.node !== undefined) taken.add(other.node);
    if (other.relocatingNode !== undefined) taken.add(other.relocatingNode);
  }
  return grid.nodes.filter((node, position) => node.dataNode && !taken.has(position));
}

/** A node's name by its position in the grid's node list. */
export function nodeNamer(grid: ShardGrid): (position: number | undefined) => string {
  return (position) => (position === undefined ? "no node" : (grid.nodes[position]?.name ?? `node #${position}`));
}

/** A chip's label: the shard number, with what it is in words for its title. */
export function describeCopy(chip: CellCopy, nodeName: (position: number | undefined) => string): string {
  const { copy } = chip;
  const what = `${chip.index} shard ${copy.shard} ${copy.primary ? "primary" : "replica"}`;
  if (chip.incoming) return `${what}: initialising here, relocating from ${nodeName(copy.node)}`;
  switch (copy.state) {
    case "started":
      return `${what}: started`;
    case "relocating":
      return `${what}: relocating to ${nodeName(copy.relocatingNode)}`;
    case "initializing":
      return `${what}: initialising`;
    case "unassigned":
      return `${what}: unassigned${copy.unassigned ? ` (${copy.unassigned.reason})` : ""}`;
  }
}

/** Whether any copy is in motion (the view then refreshes faster). */
export function inMotion(grid: ShardGrid): boolean {
  return grid.relocating > 0 || grid.initializing > 0;
}

/** Unassigned copies whose allocation failed (what "Retry failed allocations" retries). */
export function failedCount(grid: ShardGrid): number {
  let failed = 0;
  for (const index of grid.indices) for (const copy of index.shards) if ((copy.unassigned?.failedAttempts ?? 0) > 0) failed++;
  return failed;
}

const STATE_VALUES: readonly StateFilter[] = ["all", "unassigned", "relocating", "initializing"];

/** A tier named in a URL, or null for anything else. */
export function readTier(value: string | null): DataTier | null {
  return TIERS.find((tier) => tier === value) ?? null;
}

/** The filters kept in the URL (`?index=&node=&state=&hideClosed=1&hideSystem=1&tier=hot`), so
 * a view such as "unassigned only" can be bookmarked or shared; anything unknown is the default. */
export function readShardFilters(search: string): GridFilters {
  const params = new URLSearchParams(search);
  const state = params.get("state") as StateFilter | null;
  return {
    tier: readTier(params.get("tier")),
    index: params.get("index") ?? "",
    node: params.get("node") ?? "",
    state: state && STATE_VALUES.includes(state) ? state : "all",
    hideClosed: params.get("hideClosed") === "1",
    hideSystem: params.get("hideSystem") === "1",
  };
}

/** `search` with the filters written in (defaults left out, other parameters kept). */
export function writeShardFilters(search: string, filters: GridFilters): string {
  const params = new URLSearchParams(search);
  const set = (key: string, value: string, isDefault: boolean) => (isDefault ? params.delete(key) : params.set(key, value));
  set("index", filters.index, filters.index === "");
  set("node", filters.node, filters.node === "");
  set("state", filters.state, filters.state === "all");
  set("hideClosed", "1", !filters.hideClosed);
  set("hideSystem", "1", !filters.hideSystem);
  set("tier", filters.tier ?? "", filters.tier === null);
  const text = params.toString();
  return text ? `?${text}` : "";
}
