// A synthetic cluster for the shard-grid benchmark: `indexCount` indices × `shardsPerIndex`
// shards × (1 + replicas) copies over `nodeCount` nodes, answered in the documented
// Elasticsearch 8 shapes of exactly the calls the console makes for the Shards view (the root
// document, `_cluster/health`, `_cluster/settings` for the header, and the routing-table read of
// `GET /api/clusters/:id/shards`), already filtered as its `filter_path` asks. A few copies are
// relocating, initialising and unassigned so that every chip kind is drawn. Every request is
// counted by path, so the benchmark can say how many cluster calls one grid load costs. With
// BENCH_TIERS=spread the nodes are spread over three data tiers (a third hot and content, a
// third warm, a third cold), so the grid is grouped under three tier headers; otherwise every
// node is hot and content.
//
// It also renders the same routing as `_cat/shards?format=json` (+ `_cat/nodes` for the names of
// nodes without shards), the alternative read, to compare the answers' sizes.
import { createServer } from "node:http";

const nodeId = (n) => `node${String(n).padStart(2, "0")}-${"x".repeat(15)}`;

export function syntheticRouting({ indexCount, nodeCount, shardsPerIndex = 3, replicas = 1 }) {
  const nodes = Array.from({ length: nodeCount }, (_, n) => ({ id: nodeId(n), name: `es-data-${String(n + 1).padStart(2, "0")}` }));
  const indices = [];
  let position = 0;
  for (let i = 0; i < indexCount; i++) {
    const name = i % 50 === 0 ? `.system-${i}` : `logs-${String(i).padStart(5, "0")}`;
    const shards = {};
    for (let s = 0; s < shardsPerIndex; s++) {
      const copies = [];
      for (let c = 0; c <= replicas; c++) {
        const node = nodes[(position + c) % nodeCount].id;
        const copy = { state: "STARTED", primary: c === 0, node, relocating_node: null, shard: s };
        if (i % 97 === 1 && c === 0) Object.assign(copy, { state: "RELOCATING", relocating_node: nodes[(position + replicas + 1) % nodeCount].id });
        if (i % 89 === 2 && c === 1) copy.state = "INITIALIZING";
        if (i % 61 === 3 && c === 1) {
          Object.assign(copy, { state: "UNASSIGNED", node: null });
          copy.unassigned_info = { reason: "NODE_LEFT", at: "2026-11-24T04:00:00.000Z", delayed: false, allocation_status: "no_attempt", details: "node_left [x]" };
        }
        copies.push(copy);
      }
      shards[String(s)] = copies;
      position++;
    }
    indices.push({ name, shards });
  }
  return { nodes, indices };
}

const SPREAD = [["data_content", "data_hot", "ingest", "master"], ["data_warm", "master"], ["data_cold"]];

/** A node's roles: hot and content, or (BENCH_TIERS=spread) one of three tiers by position. */
const rolesOf = (position) => (process.env.BENCH_TIERS === "spread" ? SPREAD[position % 3] : SPREAD[0]);

/** `_cluster/state/routing_table,nodes,blocks,master_node` as the console's filter_path keeps it. */
export function clusterStateAnswer({ nodes, indices }) {
  return {
    cluster_name: "bench",
    master_node: nodes[0].id,
    nodes: Object.fromEntries(nodes.map((n, position) => [n.id, { name: n.name, roles: rolesOf(position) }])),
    routing_table: { indices: Object.fromEntries(indices.map((i) => [i.name, { shards: i.shards }])) },
    blocks: { indices: { [indices[indices.length - 1].name]: { 4: { description: "index closed", retryable: false, levels: ["read", "write"] } } } },
  };
}

/** The same routing as `_cat/shards?format=json&h=index,shard,prirep,state,node,id,unassigned.reason`
 * and `_cat/nodes?format=json&h=id,name` (the other way to draw the grid: two calls; a
 * relocation's target only inside the `node` display string, e.g. `a -> 10.0.0.2 ID b`). */
export function catAnswers({ nodes, indices }) {
  const names = new Map(nodes.map((n) => [n.id, n.name]));
  const rows = [];
  for (const index of indices) {
    for (const copies of Object.values(index.shards)) {
      for (const c of copies) {
        const node = c.node === null ? null : c.relocating_node ? `${names.get(c.node)} -> 127.0.0.1 ${c.relocating_node} ${names.get(c.relocating_node)}` : names.get(c.node);
        rows.push({
          index: index.name,
          shard: String(c.shard),
          prirep: c.primary ? "p" : "r",
          state: c.state,
          node,
          id: c.node === null ? null : c.node.slice(0, 4),
          "unassigned.reason": c.unassigned_info?.reason ?? null,
        });
      }
    }
  }
  return { shards: rows, nodes: nodes.map((n) => ({ id: n.id.slice(0, 4), name: n.name })) };
}

export async function startSyntheticShardCluster(options) {
  const routing = syntheticRouting(options);
  const state = Buffer.from(JSON.stringify(clusterStateAnswer(routing)));
  const counts = new Map();
  const answers = {
    "/": { name: "bench-1", cluster_name: "bench", version: { number: "8.15.3", build_flavor: "default", lucene_version: "9.11.1" }, tagline: "You Know, for Search" },
    "/_cluster/health": {
      cluster_name: "bench", status: "yellow", timed_out: false, number_of_nodes: options.nodeCount, number_of_data_nodes: options.nodeCount,
      active_primary_shards: 0, active_shards: 0, relocating_shards: 0, initializing_shards: 0, unassigned_shards: 0,
    },
    "/_cluster/settings": { persistent: {}, transient: {} },
  };
  const server = createServer((req, res) => {
    const path = req.url.split("?")[0];
    counts.set(path, (counts.get(path) ?? 0) + 1);
    if (path.startsWith("/_cluster/state/")) {
      res.writeHead(200, { "content-type": "application/json; charset=UTF-8", "content-length": state.length });
      res.end(state);
      return;
    }
    const body = answers[path];
    res.writeHead(body ? 200 : 404, { "content-type": "application/json; charset=UTF-8" });
    res.end(JSON.stringify(body ?? { error: { type: "resource_not_found_exception", reason: `no ${path} here` }, status: 404 }));
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    routing,
    stateBytes: state.length,
    counts,
    close: () => new Promise((ok) => server.close(ok)),
  };
}
