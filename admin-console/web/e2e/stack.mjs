// Starts everything the browser tests need on free loopback ports, and stops it afterwards:
// a real three-node OpenSearch 2.19 cluster (and the other real clusters a file asks for) from
// the Rust test harness (test-support's `search-nodes`), seeded with an fs snapshot repository
// `backups`; a Prometheus serving backfilled
// elasticsearch_exporter series, the real admin-console binary with a generated config
// serving dist/, and Debian Chromium through playwright-core.
import { spawn, execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, writeFileSync, existsSync, readFileSync, rmSync, mkdirSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { writeExporterHistory } from "./exporterHistory.mjs";

export const WEB_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const REPO = resolve(WEB_DIR, "../..");
export const ARTIFACTS = join(WEB_DIR, "e2e-artifacts");
const START_TIMEOUT_MS = 30_000;

export async function freePort() {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
  });
}

async function waitFor(what, check, child) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${what} did not start within ${START_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function adminConsoleBinary() {
  const path = process.env.ADMIN_CONSOLE_BIN ?? join(REPO, "target/debug/admin-console");
  if (!existsSync(path)) {
    throw new Error(`admin-console binary not found at ${path}: build it (cargo build -p admin-console) or set ADMIN_CONSOLE_BIN`);
  }
  return path;
}

/** The search-nodes binary built by `cargo build -p test-support` (or SEARCH_NODES_BIN). */
export function searchNodesBinary() {
  const path = process.env.SEARCH_NODES_BIN ?? join(REPO, "target/debug/search-nodes");
  if (!existsSync(path)) {
    throw new Error(`search-nodes binary not found at ${path}: build it (cargo build -p test-support --bin search-nodes) or set SEARCH_NODES_BIN`);
  }
  return path;
}

/**
 * Real search clusters from the test harness (test-support's `search-nodes`: the distributions
 * pinned in versions.env, fetched by scripts/install-servers.sh), one per `<distribution>[:<nodes>]`
 * spec, started in parallel; stopped with `children` (stdin closed or SIGTERM; the nodes die
 * with it in any case). Answers the clusters as it printed them: `{ distribution, version, url,
 * nodes: [{ name, url }], repo, user?, password?, caFile? }`.
 */
export async function startSearchNodes(children, specs) {
  const child = spawn(searchNodesBinary(), specs, { stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  const stderr = [];
  child.stderr.on("data", (d) => stderr.push(d));
  const line = await new Promise((ok, fail) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", ok);
    child.once("exit", (code) => fail(new Error(`search-nodes ${specs.join(" ")} exited with ${code}: ${Buffer.concat(stderr).toString().slice(-4000)}`)));
  });
  return JSON.parse(line).clusters;
}

/** Seeds a cluster as the browser tests expect it: an fs snapshot repository `backups` in its
 * `path.repo` with one snapshot (`seed`) of nothing but the cluster's state. */
async function seedCluster(cluster) {
  await clusterCall(cluster, "PUT", "_snapshot/backups", { type: "fs", settings: { location: join(cluster.repo, "backups"), compress: true } });
  await clusterCall(cluster, "PUT", "_snapshot/backups/seed?wait_for_completion=true", { indices: "-*", include_global_state: false });
}

async function startPrometheus(children, dir, nowSeconds) {
  const openMetrics = join(dir, "exporter.om");
  writeExporterHistory(openMetrics, nowSeconds);
  const tsdb = join(dir, "tsdb");
  mkdirSync(tsdb);
  execFileSync("promtool", ["tsdb", "create-blocks-from", "openmetrics", "--max-block-duration=240h", openMetrics, tsdb], { stdio: "ignore" });
  const port = await freePort();
  const config = join(dir, "prometheus.yml");
  writeFileSync(config, "global:\n  scrape_interval: 1h\nscrape_configs: []\n");
  const child = spawn(
    "prometheus",
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${tsdb}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--storage.tsdb.retention.time=90d",
    ],
    { stdio: "ignore" },
  );
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitFor("prometheus", async () => (await fetch(`${url}/-/ready`)).ok, child);
  return url;
}

/** The `clusters:` entry of admin-console's configuration for a cluster of `startSearchNodes`
 * (with its credential and CA when it is secured). */
export function clusterYaml(id, cluster, name = `${id} (${cluster.distribution} ${cluster.version})`) {
  const secured = cluster.user
    ? `    auth:\n      username: ${cluster.user}\n      password: ${JSON.stringify(cluster.password)}\n    tls:\n      ca_file: ${JSON.stringify(cluster.caFile)}\n`
    : "";
  return `  - id: ${id}\n    name: ${JSON.stringify(name)}\n    url: ${cluster.url}\n    metrics_source: internal\n${secured}`;
}

/**
 * Clusters: `prod` (external metrics from Prometheus), `staging` (internal sampling) and
 * `nodata` (external metrics with labels no series has), all on the same real cluster.
 */
async function startAdminConsole(children, dir, { clusterUrl, prometheusUrl, extraClusters = "", extraServer = "", extraConfig = "" }) {
  const config = join(dir, "admin-console.yaml");
  writeFileSync(
    config,
    `server:
  host: 127.0.0.1
  static_dir: ${JSON.stringify(join(WEB_DIR, "dist"))}
${extraServer}${extraConfig}observability:
  log_level: info
  log_format: json
internal_history:
  sample_interval: 2s
clusters:
  - id: prod
    name: Production
    url: ${clusterUrl}
    metrics_source: external_metrics
    metrics_server_url: ${prometheusUrl}
    metrics_server_job_name: elasticsearch
    metrics_server_labels:
      cluster: prod
  - id: staging
    name: Staging
    url: ${clusterUrl}
    metrics_source: internal
  - id: nodata
    name: Capacity test
    url: ${clusterUrl}
    metrics_source: external_metrics
    metrics_server_url: ${prometheusUrl}
    metrics_server_job_name: elasticsearch
    metrics_server_labels:
      cluster: not-scraped
${extraClusters.replaceAll("$CLUSTER_URL", clusterUrl)}`,
  );
  const stderr = [];
  // The binary reads ADMIN_CONSOLE_* variables as configuration overrides, so the harness's
  // own ADMIN_CONSOLE_BIN must not reach it.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ADMIN_CONSOLE_")));
  // Both listeners bind port 0 (no port is chosen before it is bound, and a stack still going
  // away cannot hold it); the binary says which it got in its `listening` log line.
  Object.assign(env, { ADMIN_CONSOLE_SERVER__PORT: "0", ADMIN_CONSOLE_SERVER__INTERNAL_PORT: "0" });
  // In the stack's own folder: what the binary writes by a relative path (the saved queries'
  // default file, .cache/admin-console/) goes there and is removed with it, not into web/.
  const child = spawn(adminConsoleBinary(), ["--config", config], { stdio: ["ignore", "pipe", "pipe"], env, cwd: dir });
  child.stderr.on("data", (d) => stderr.push(d));
  let port = null;
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (port !== null || !line.includes(" listening")) return;
    try {
      port = JSON.parse(line).port ?? null;
    } catch {
      // not a log record
    }
  });
  children.push(child);
  try {
    await waitFor("admin-console's listening line", async () => port !== null, child);
    await waitFor("admin-console", async () => (await fetch(`http://127.0.0.1:${port}/api/live`)).ok, child);
  } catch (e) {
    throw new Error(`${e.message}\n${Buffer.concat(stderr).toString()}`);
  }
  return `http://127.0.0.1:${port}`;
}

/**
 * `options`: `main` (the stack's own cluster, `prod`, `staging` and `nodata`: a three-node
 * OpenSearch 2.19 cluster, `"opensearch2:3"`, unless a file needs another), `clusters` (more real clusters, `{ <id>: "<distribution>[:<nodes>]" }`, started
 * with the stack's own and configured as the cluster `<id>`; `stack.clusters[<id>]` describes
 * each, the stack's own is `stack.clusters.prod`), `extraClusters` (YAML list entries;
 * `$CLUSTER_URL` stands for the stack's cluster's URL), `extraServer` (keys under `server:`, indented),
 * `extraConfig` (top-level sections such as `access:`), `headers` (sent by the browser with
 * every request, e.g. the identity headers a sign-in proxy would add).
 */
export async function startStack({ headers, main = "opensearch2:3", clusters: more = {}, ...options } = {}) {
  if (!existsSync(join(WEB_DIR, "dist/index.html"))) throw new Error("dist/ is missing: run `npm run build` first");
  const children = [];
  const dir = mkdtempSync(join(tmpdir(), "admin-console-e2e-"));
  const stack = { children, dir, browser: null };
  try {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const ids = ["prod", ...Object.keys(more)];
    const started = await startSearchNodes(children, [main, ...Object.values(more)]);
    const clusters = Object.fromEntries(ids.map((id, i) => [id, started[i]]));
    for (const cluster of started) await seedCluster(cluster);
    const clusterUrl = clusters.prod.url;
    const prometheusUrl = await startPrometheus(children, dir, nowSeconds);
    const extraClusters = Object.keys(more).map((id) => clusterYaml(id, clusters[id])).join("") + (options.extraClusters ?? "");
    const baseUrl = await startAdminConsole(children, dir, { clusterUrl, prometheusUrl, ...options, extraClusters });
    const userDataDir = join(dir, "chromium-profile");
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: process.env.CHROMIUM_BIN ?? "/usr/bin/chromium",
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
      viewport: { width: 1440, height: 900 },
      // Not UTC, so the tests see local-time display and Unix seconds on the wire differ.
      timezoneId: "Europe/Berlin",
      locale: "en-GB",
      baseURL: baseUrl,
      ...(headers ? { extraHTTPHeaders: headers } : {}),
    });
    stack.browser = context;
    mkdirSync(ARTIFACTS, { recursive: true });
    return { ...stack, clusters, clusterUrl, prometheusUrl, baseUrl, context, nowSeconds };
  } catch (e) {
    await stopStack(stack);
    throw e;
  }
}

export async function stopStack(stack) {
  if (!stack) return;
  await stack.browser?.close().catch(() => {});
  for (const child of stack.children.reverse()) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(stack.dir, { recursive: true, force: true });
}

/** A fresh page; every test saves a screenshot of it under e2e-artifacts/. */
export async function newPage(stack) {
  const page = await stack.context.newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

export async function screenshot(page, name, { fullPage = false } = {}) {
  if (!fullPage) return page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
  // The app scrolls inside <main>: grow the viewport to its content for the picture.
  const viewport = page.viewportSize();
  const height = await page.evaluate(() => {
    const main = document.querySelector("main");
    return (main?.scrollHeight ?? 0) + (main?.getBoundingClientRect().top ?? 0);
  });
  await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, Math.ceil(height)) });
  // Laid out and painted at the new size: two animation frames.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
  await page.setViewportSize(viewport);
}

/** Sends a request to the stack's cluster directly (test setup, not through the app). */
export async function search(stack, method, path, body) {
  return clusterCall(stack.clusters.prod, method, path, body);
}

/**
 * A request straight to a cluster of `startSearchNodes` (test set-up, not through the app), with
 * its credential and CA when it is secured (and `cluster.headers` when given); a string body is
 * sent as NDJSON. Answers the parsed
 * body; throws on a status other than 2xx, unless `{ raw: true }`: then `{ status, body }`.
 */
export async function clusterCall(cluster, method, path, body, { raw = false } = {}) {
  const url = new URL(`${cluster.url}/${path}`);
  const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  const headers = { ...(cluster.headers ?? {}) };
  if (payload !== undefined) headers["Content-Type"] = typeof body === "string" ? "application/x-ndjson" : "application/json";
  if (cluster.user) headers.Authorization = `Basic ${Buffer.from(`${cluster.user}:${cluster.password}`).toString("base64")}`;
  const { status, text } = await new Promise((ok, fail) => {
    const request = (url.protocol === "https:" ? httpsRequest : httpRequest)(
      url,
      { method, headers, ...(cluster.caFile ? { ca: readFileSync(cluster.caFile) } : {}) },
      (response) => {
        const chunks = [];
        response.on("data", (c) => chunks.push(c));
        response.on("end", () => ok({ status: response.statusCode, text: Buffer.concat(chunks).toString() }));
        response.on("error", fail);
      },
    );
    request.on("error", fail);
    request.end(payload);
  });
  const parsed = text ? JSON.parse(text) : null;
  if (raw) return { status, body: parsed };
  if (status < 200 || status > 299) throw new Error(`${method} ${path}: ${status} ${text}`);
  return parsed;
}
