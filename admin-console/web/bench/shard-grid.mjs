// Benchmark (not a test): the Shards view at 2,000 indices × 30 nodes in headless Chromium
// against the real binary. Prints figures: time to the first chip from navigation start, the
// DOM cells, rows and chips rendered (the grid is virtualised in both directions, so these stay
// bounded), the time to draw after a scroll jump, and the cluster calls one grid load costs
// (goal: one routing-table read). The cluster is synthetic (syntheticShardCluster.mjs) in the
// documented Elasticsearch 8 shapes: no test server here models 2,000 indices × 30 nodes.
// Run: npm run build && node bench/shard-grid.mjs   (ADMIN_CONSOLE_BIN as for the e2e tests;
// BENCH_INDICES, BENCH_NODES, BENCH_RUNS to change the size)
import { startStack, stopStack } from "../e2e/stack.mjs";
import { catAnswers, startSyntheticShardCluster } from "./syntheticShardCluster.mjs";

const INDEX_COUNT = Number(process.env.BENCH_INDICES ?? 2_000);
const NODE_COUNT = Number(process.env.BENCH_NODES ?? 30);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const GOAL_MS = 1000;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const row = (label, value, goal = "") => console.log(`  ${label.padEnd(66)}${String(value).padStart(16)}${String(goal).padStart(14)}`);

const cluster = await startSyntheticShardCluster({ indexCount: INDEX_COUNT, nodeCount: NODE_COUNT });
const stack = await startStack({
  extraClusters: `  - id: bench\n    name: Benchmark\n    url: ${cluster.url}\n    metrics_source: internal\n`,
});
try {
  const page = await stack.context.newPage();
  await page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.querySelector('[data-testid="shard-chip"]')) {
        window.__firstChipAt = performance.now();
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  const runs = [];
  for (let run = 0; run <= RUNS; run++) {
    await page.goto("/clusters/bench/shards", { waitUntil: "commit" });
    await page.waitForFunction(() => window.__firstChipAt !== undefined, null, { timeout: 60_000 });
    const figures = await page.evaluate(() => {
      const api = performance.getEntriesByType("resource").find((e) => e.name.endsWith("/shards"));
      const grid = document.querySelector('[data-testid="shard-grid"]');
      return {
        firstChip: window.__firstChipAt,
        api: api ? api.duration : NaN,
        apiStart: api ? api.startTime : NaN,
        apiEnd: api ? api.responseEnd : NaN,
        apiBytes: api ? api.decodedBodySize : NaN,
        cells: grid.querySelectorAll('[role="gridcell"]').length,
        rows: grid.querySelectorAll('[role="row"]').length,
        columnHeaders: grid.querySelectorAll('[role="columnheader"]').length,
        chips: grid.querySelectorAll('[data-testid="shard-chip"]').length,
        elements: grid.querySelectorAll("*").length,
        rowCount: Number(grid.getAttribute("aria-rowcount")),
        colCount: Number(grid.getAttribute("aria-colcount")),
      };
    });
    if (run > 0) runs.push(figures); // run 0 warms the binary's connection pool and the dialect
  }

  // Scroll jumps: the time until the window at the new place is drawn (the frame after the one
  // that renders it; about 33 ms of it is the two frames themselves at 60 Hz).
  const jumps = await page.evaluate(async () => {
    const grid = document.querySelector('[data-testid="shard-grid"]');
    const frame = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
    const times = [];
    let maxCells = 0;
    for (const [x, y] of [[0.25, 0], [0.5, 0.5], [1, 1], [0.75, 0.2], [0, 1], [0.1, 0.1], [0.9, 0.6], [0.33, 0.9]]) {
      const start = performance.now();
      grid.scrollLeft = x * (grid.scrollWidth - grid.clientWidth);
      grid.scrollTop = y * (grid.scrollHeight - grid.clientHeight);
      await frame();
      times.push(performance.now() - start);
      maxCells = Math.max(maxCells, grid.querySelectorAll('[role="gridcell"]').length);
    }
    const last = grid.querySelector('[role="columnheader"][aria-colindex]:last-of-type')?.textContent;
    return { times, maxCells, last };
  });

  // Cluster calls of one grid load, the dialect being known (the console keeps it a minute).
  const before = new Map(cluster.counts);
  const answer = await fetch(`${stack.baseUrl}/api/clusters/bench/shards`);
  if (!answer.ok) throw new Error(`GET /shards: ${answer.status}`);
  await answer.arrayBuffer();
  const calls = [...cluster.counts].map(([path, n]) => [path, n - (before.get(path) ?? 0)]).filter(([, n]) => n > 0);
  const routingReads = calls.filter(([path]) => path.startsWith("/_cluster/state/")).reduce((sum, [, n]) => sum + n, 0);

  const cat = catAnswers(cluster.routing);
  const catBytes = Buffer.byteLength(JSON.stringify(cat.shards)) + Buffer.byteLength(JSON.stringify(cat.nodes));
  const copies = cat.shards.length;

  const first = runs.map((r) => r.firstChip);
  const last = runs[runs.length - 1];
  console.log("");
  console.log(`Shards view, ${INDEX_COUNT.toLocaleString("en-US")} indices × ${NODE_COUNT} nodes (${copies.toLocaleString("en-US")} copies), headless Chromium, 1440×900, median of ${RUNS} runs`);
  row("measure", "measured", "goal");
  row("time to first chip (navigation start)", `${median(first).toFixed(0)} ms`, `< ${GOAL_MS} ms`);
  row("  min / max", `${Math.min(...first).toFixed(0)} / ${Math.max(...first).toFixed(0)} ms`);
  row("  of which GET /api/clusters/bench/shards", `${median(runs.map((r) => r.api)).toFixed(0)} ms`);
  row("  it starts / ends at", `${median(runs.map((r) => r.apiStart)).toFixed(0)} / ${median(runs.map((r) => r.apiEnd)).toFixed(0)} ms`);
  row("  its answer (JSON)", `${(last.apiBytes / 1024).toFixed(0)} KiB`);
  row("grid size (aria-rowcount × aria-colcount)", `${last.rowCount} × ${last.colCount}`);
  row("DOM rows rendered (incl. header row)", last.rows, "bounded");
  row("DOM cells rendered (role=gridcell)", last.cells, "bounded");
  row("DOM column headers rendered", last.columnHeaders);
  row("chips rendered", last.chips);
  row("elements inside the grid", last.elements);
  row("scroll jump to drawn, median / max of 8", `${median(jumps.times).toFixed(0)} / ${Math.max(...jumps.times).toFixed(0)} ms`);
  row("most DOM cells after any jump", jumps.maxCells, "bounded");
  row("cluster calls per grid load", calls.map(([p, n]) => `${n}× ${p.split("?")[0]}`).join(", ") || "none");
  row("  routing-table reads", routingReads, "1");
  console.log("");
  console.log("The routing read, compared (same routing, documented shapes)");
  row("_cluster/state/routing_table,nodes,blocks,master_node (filtered)", `1 call, ${(cluster.stateBytes / 1024).toFixed(0)} KiB`);
  row("_cat/shards?format=json&h=… + _cat/nodes?format=json", `2 calls, ${(catBytes / 1024).toFixed(0)} KiB`);
  console.log(
    median(first) < GOAL_MS && routingReads === 1 ? "\nresult: within the goals" : "\nresult: a goal is MISSED",
  );
  await page.close();
} finally {
  await stopStack(stack);
  await cluster.close();
}
