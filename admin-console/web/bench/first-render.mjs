// Benchmark (not a test): time to first render of the Indices view with 10,000 indices in
// headless Chromium against the real binary, and the app's bundle size (gzip). The cluster is
// the e2e stack's real OpenSearch cluster with its `_cat/indices` answer replayed at 10,000
// indices (recordedCluster.mjs says why; it was osmem-server until 2026-11-28). Run: npm run build && npm run bench   (ADMIN_CONSOLE_BIN as for the e2e tests)
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { startStack, stopStack, WEB_DIR } from "../e2e/stack.mjs";
import { startRecordedCluster } from "./recordedCluster.mjs";

const INDEX_COUNT = Number(process.env.BENCH_INDICES ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const GOAL_MS = 1000;
// The one call behind the Indices view: CAT_INDICES_PATH in admin-console/src/cluster/indices.rs.
const CAT_INDICES = "/_cat/indices?format=json&bytes=b&expand_wildcards=all&h=health,status,index,pri,rep,docs.count,store.size";

function bundleSizes() {
  const dist = join(WEB_DIR, "dist");
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(js|css|html)$/.test(name)) files.push(path);
    }
  };
  walk(dist);
  const html = readFileSync(join(dist, "index.html"), "utf8");
  let initial = 0;
  let total = 0;
  const rows = files.map((path) => {
    const raw = readFileSync(path);
    const gz = gzipSync(raw, { level: 9 }).length;
    const rel = path.slice(dist.length + 1);
    // What the first page load fetches: index.html and what it links.
    const isInitial = rel === "index.html" || rel === "theme-init.js" || html.includes(`/${rel}`);
    if (isInitial) initial += gz;
    total += gz;
    return { file: rel, raw: raw.length, gzip: gz, initial: isInitial };
  });
  return { rows, initial, total };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const sizes = bundleSizes();
const cluster = await startRecordedCluster({ indexCount: INDEX_COUNT, catPathAndQuery: CAT_INDICES });
const stack = await startStack({
  extraClusters: `  - id: bench\n    name: Benchmark\n    url: ${cluster.url}\n    metrics_source: internal\n`,
});
try {
  const recording = await cluster.attach(stack.clusterUrl);
  const page = await stack.context.newPage();
  // Records when the first table row is in the DOM, measured from navigation start.
  await page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.querySelector('[data-testid="indices-table"] tbody tr')) {
        window.__firstRowAt = performance.now();
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  const results = [];
  for (let run = 0; run <= RUNS; run++) {
    await page.goto("/clusters/bench/indices", { waitUntil: "commit" });
    await page.waitForFunction(() => window.__firstRowAt !== undefined, null, { timeout: 30_000 });
    const timing = await page.evaluate(() => {
      const api = performance.getEntriesByType("resource").find((e) => e.name.includes("/indices?"));
      return { firstRow: window.__firstRowAt, api: api ? api.duration : null, total: document.querySelector('[data-testid="indices-total"]')?.textContent };
    });
    if (run > 0) results.push(timing); // run 0 warms the binary's connection pool
    else console.log(`indices view shows: ${timing.total} (replayed _cat/indices: ${INDEX_COUNT} rows from ${recording.recordedRows} recorded, ${(recording.bytes / 1024).toFixed(0)} KiB)`);
  }
  const first = median(results.map((r) => r.firstRow));
  const api = median(results.map((r) => r.api ?? NaN));
  console.log("");
  console.log(`Indices view, ${INDEX_COUNT.toLocaleString("en-US")} indices, headless Chromium, median of ${RUNS} runs`);
  console.log(`  ${"measure".padEnd(42)}${"measured".padStart(12)}${"goal".padStart(12)}`);
  console.log(`  ${"time to first row (navigation start)".padEnd(42)}${`${first.toFixed(0)} ms`.padStart(12)}${`< ${GOAL_MS} ms`.padStart(12)}`);
  console.log(`  ${"  of which /indices API call".padEnd(42)}${`${api.toFixed(0)} ms`.padStart(12)}${"".padStart(12)}`);
  console.log(`  ${"min / max first row".padEnd(42)}${`${Math.min(...results.map((r) => r.firstRow)).toFixed(0)} / ${Math.max(...results.map((r) => r.firstRow)).toFixed(0)} ms`.padStart(12)}`);
  console.log("");
  console.log("Bundle (gzip -9)");
  for (const row of sizes.rows) {
    console.log(`  ${row.file.padEnd(42)}${`${(row.gzip / 1024).toFixed(1)} KB`.padStart(12)}${row.initial ? "  initial" : "  on demand"}`);
  }
  console.log(`  ${"first load (html + entry js + css)".padEnd(42)}${`${(sizes.initial / 1024).toFixed(1)} KB`.padStart(12)}`);
  console.log(`  ${"whole app".padEnd(42)}${`${(sizes.total / 1024).toFixed(1)} KB`.padStart(12)}`);
  console.log(first < GOAL_MS ? "\nresult: within the goal" : "\nresult: SLOWER than the goal");
} finally {
  await stopStack(stack);
  await cluster.close();
}
