// The tasks view's logic: parent/child grouping (a reindex and the bulk and search tasks it
// spawns read as one tree), running times in words, and the "running longer than" field.
import type { Task } from "../api/wire";

export interface TaskRow {
  task: Task;
  depth: number;
  /** How many tasks hang below it (all levels). */
  descendants: number;
  hasChildren: boolean;
}

interface Node {
  task: Task;
  children: Node[];
}

const byRunningTime = (a: Node, b: Node) =>
  b.task.runningTimeNanos - a.task.runningTimeNanos || a.task.id.localeCompare(b.task.id);

/** The tasks as trees: a task whose parent is listed goes under it; the others (no parent, or a
 * parent filtered out or on a node that did not answer) are roots. Longest running first at
 * each level. */
export function taskForest(tasks: readonly Task[]): Node[] {
  const nodes = new Map<string, Node>();
  for (const task of tasks) nodes.set(task.id, { task, children: [] });
  const roots: Node[] = [];
  for (const node of nodes.values()) {
    const parent = node.task.parentTaskId ? nodes.get(node.task.parentTaskId) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  const sort = (list: Node[]) => {
    list.sort(byRunningTime);
    for (const node of list) sort(node.children);
  };
  sort(roots);
  return roots;
}

/** The rows to show: each tree depth-first, without the children of collapsed tasks. */
export function taskRows(tasks: readonly Task[], collapsed: ReadonlySet<string>): TaskRow[] {
  const rows: TaskRow[] = [];
  const count = (node: Node): number => node.children.reduce((sum, child) => sum + 1 + count(child), 0);
  const visit = (node: Node, depth: number, seen: Set<string>) => {
    if (seen.has(node.task.id)) return; // a cycle in a hostile answer
    seen.add(node.task.id);
    rows.push({ task: node.task, depth, descendants: count(node), hasChildren: node.children.length > 0 });
    if (!collapsed.has(node.task.id)) for (const child of node.children) visit(child, depth + 1, seen);
    else markHidden(node, seen);
  };
  const markHidden = (node: Node, seen: Set<string>) => {
    for (const child of node.children) {
      if (seen.has(child.task.id)) continue;
      seen.add(child.task.id);
      markHidden(child, seen);
    }
  };
  const seen = new Set<string>();
  for (const root of taskForest(tasks)) visit(root, 0, seen);
  // Tasks in a parent cycle (a hostile or inconsistent answer) have no root: shown flat, never lost.
  for (const task of tasks) {
    if (seen.has(task.id)) continue;
    seen.add(task.id);
    rows.push({ task, depth: 0, descendants: 0, hasChildren: false });
  }
  return rows;
}

/** A node's heading in the by-node grouping, or a task under it. */
export type NodeGroupRow = { kind: "node"; node: string; name: string; count: number; cancellable: number } | { kind: "task"; task: Task };

/** The tasks grouped by node (busiest node first, then by name), longest running first within
 * a node, each node under a heading row with its counts. */
export function nodeGroupRows(tasks: readonly Task[]): NodeGroupRow[] {
  const byNode = new Map<string, Task[]>();
  for (const task of tasks) {
    const list = byNode.get(task.node);
    if (list) list.push(task);
    else byNode.set(task.node, [task]);
  }
  const nameOf = (list: Task[]) => list[0].nodeName ?? list[0].node;
  const groups = [...byNode.entries()].sort(([, a], [, b]) => b.length - a.length || nameOf(a).localeCompare(nameOf(b)));
  const rows: NodeGroupRow[] = [];
  for (const [node, list] of groups) {
    rows.push({ kind: "node", node, name: nameOf(list), count: list.length, cancellable: list.filter((t) => t.cancellable).length });
    list.sort((a, b) => b.runningTimeNanos - a.runningTimeNanos || a.id.localeCompare(b.id));
    for (const task of list) rows.push({ kind: "task", task });
  }
  return rows;
}

/** A running time in words: `850 ms`, `12.3 s`, `4 m 05 s`, `2 h 03 m`, `3 d 04 h`. */
export function formatRunning(nanos: number): string {
  const ms = nanos / 1e6;
  if (ms < 1) return "< 1 ms";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const pad = (n: number) => String(n).padStart(2, "0");
  const whole = Math.floor(s);
  if (whole < 3600) return `${Math.floor(whole / 60)} m ${pad(whole % 60)} s`;
  if (whole < 86400) return `${Math.floor(whole / 3600)} h ${pad(Math.floor((whole % 3600) / 60))} m`;
  return `${Math.floor(whole / 86400)} d ${pad(Math.floor((whole % 86400) / 3600))} h`;
}

/** "Running longer than": `500ms`, `30s`, `5m`, `2h`, `1d` or a bare number of seconds; empty is
 * no limit. */
export function parseMinRunning(text: string): { ok: true; ms: number } | { ok: false; error: string } {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === "") return { ok: true, ms: 0 };
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(trimmed);
  if (!match) return { ok: false, error: `"${text.trim()}" is not a duration: use e.g. 500ms, 30s, 5m, 2h.` };
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(match[2] ?? "s") as "ms" | "s" | "m" | "h" | "d"];
  return { ok: true, ms: Math.round(Number(match[1]) * unit) };
}

/** The action's family for a short label: `indices:data/write/reindex` → `reindex`. */
export function shortAction(action: string): string {
  const tail = action.split("/").pop() ?? action;
  return tail.replace(/\[.*\]$/, "") || action;
}

/** The tasks view's filters as they sit in the URL (`?actions=*reindex&nodes=n1&cancellable=true&running=30s&group=node`). */
export interface TaskUrlState {
  actions: string;
  nodes: string;
  running: string;
  cancellable: boolean;
  group: "parent" | "node";
}

export function readTaskUrl(search: string): TaskUrlState {
  const params = new URLSearchParams(search);
  return {
    actions: params.get("actions") ?? "",
    nodes: params.get("nodes") ?? "",
    running: params.get("running") ?? "",
    cancellable: params.get("cancellable") === "true",
    group: params.get("group") === "node" ? "node" : "parent",
  };
}

/** `search` with the view's parameters replaced (others kept); empty values are left out. */
export function writeTaskUrl(search: string, state: TaskUrlState): string {
  const params = new URLSearchParams(search);
  const set = (name: string, value: string) => (value ? params.set(name, value) : params.delete(name));
  set("actions", state.actions.trim());
  set("nodes", state.nodes.trim());
  set("running", state.running.trim());
  set("cancellable", state.cancellable ? "true" : "");
  set("group", state.group === "node" ? "node" : "");
  const text = params.toString();
  return text ? `?${text}` : "";
}
