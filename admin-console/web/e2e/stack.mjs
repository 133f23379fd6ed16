// Starts everything the browser tests need on free loopback ports, and stops it afterwards:
// osmem-server (an OpenSearch-compatible server) with search-test-server in front of it (three
// simulated nodes, tasks, snapshots, allocation; the clusters' URL), a Prometheus serving backfilled
// elasticsearch_exporter series, the real admin-console binary with a generated config
// serving dist/, and Debian Chromium through playwright-core.
import { spawn, execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, writeFileSync, existsSync, readdirSync, rmSync, mkdirSync } from "node:fs";
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

/** The osmem-server binary of the repository's .venv (or OSMEM_SERVER_BIN). */
export function osmemBinary() {
  if (process.env.OSMEM_SERVER_BIN) return process.env.OSMEM_SERVER_BIN;
  const lib = join(REPO, ".venv/lib");
  for (const python of existsSync(lib) ? readdirSync(lib) : []) {
    const candidate = join(lib, python, "site-packages/osmem_server/bin/osmem-server");
    if (python.startsWith("python3") && existsSync(candidate)) return candidate;
  }
  throw new Error(`osmem-server is not installed under ${lib}; run \`make deps\``);
}

function adminConsoleBinary() {
  const path = process.env.ADMIN_CONSOLE_BIN ?? join(REPO, "target/debug/admin-console");
  if (!existsSync(path)) {
    throw new Error(`admin-console binary not found at ${path}: build it (cargo build -p admin-console) or set ADMIN_CONSOLE_BIN`);
  }
  return path;
}

/**
 * Spawns `command` (stdin held by this process, so the servers that watch it exit with it) and
 * answers the URL of the `{"url"}` JSON line it prints once listening.
 */
export async function startPrintingUrl(children, command, args) {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });
  children.push(child);
  const line = await new Promise((ok, fail) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", ok);
    child.once("exit", (code) => fail(new Error(`${command} exited with ${code}`)));
  });
  return JSON.parse(line).url;
}

/** Arguments for an osmem-server on a free loopback port that exits with this process. */
export const OSMEM_ARGS = () => ["-addr", "127.0.0.1:0", "-no-stdin-watch", "-no-ja", "-parent-pid", String(process.pid)];

/** The search-test-server binary built by `cargo build -p search-test-server` (or SEARCH_TEST_SERVER_BIN). */
export function searchTestServerBinary() {
  const path = process.env.SEARCH_TEST_SERVER_BIN ?? join(REPO, "target/debug/search-test-server");
  if (!existsSync(path)) {
    throw new Error(`search-test-server binary not found at ${path}: build it (cargo build -p search-test-server) or set SEARCH_TEST_SERVER_BIN`);
  }
  return path;
}

/** osmem-server, then search-test-server in front of it (three simulated nodes, seeded). */
async function startCluster(children) {
  const osmemUrl = await startPrintingUrl(children, osmemBinary(), OSMEM_ARGS());
  const url = await startPrintingUrl(children, searchTestServerBinary(), ["--osmem-url", osmemUrl, "--nodes", "3", "--seed"]);
  // The front prints its URL once listening; the cluster behind it must answer too.
  await waitFor("search-test-server", async () => (await fetch(`${url}/_cluster/health`)).ok, children.at(-1));
  return { osmemUrl, url };
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

/**
 * Clusters: `prod` (external metrics from Prometheus), `staging` (internal sampling) and
 * `nodata` (external metrics with labels no series has), all on the same osmem.
 */
async function startAdminConsole(children, dir, { osmemUrl, prometheusUrl, extraClusters = "", extraServer = "", extraConfig = "" }) {
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
    url: ${osmemUrl}
    metrics_source: external_metrics
    metrics_server_url: ${prometheusUrl}
    metrics_server_job_name: elasticsearch
    metrics_server_labels:
      cluster: prod
  - id: staging
    name: Staging
    url: ${osmemUrl}
    metrics_source: internal
  - id: nodata
    name: Capacity test
    url: ${osmemUrl}
    metrics_source: external_metrics
    metrics_server_url: ${prometheusUrl}
    metrics_server_job_name: elasticsearch
    metrics_server_labels:
      cluster: not-scraped
${extraClusters.replaceAll("$CLUSTER_URL", osmemUrl)}`,
  );
  const stderr = [];
  // The binary reads ADMIN_CONSOLE_* variables as configuration overrides, so the harness's
  // own ADMIN_CONSOLE_BIN must not reach it.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ADMIN_CONSOLE_")));
  // Both listeners bind port 0 (no port is chosen before it is bound, and a stack still going
  // away cannot hold it); the binary says which it got in its `listening` log line.
  Object.assign(env, { ADMIN_CONSOLE_SERVER__PORT: "0", ADMIN_CONSOLE_SERVER__INTERNAL_PORT: "0" });
  const child = spawn(adminConsoleBinary(), ["--config", config], { stdio: ["ignore", "pipe", "pipe"], env });
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
 * `options`: `extraClusters` (YAML list entries; `$CLUSTER_URL` stands for the clusters' URL), `extraServer` (keys under `server:`, indented),
 * `extraConfig` (top-level sections such as `access:`), `headers` (sent by the browser with
 * every request, e.g. the identity headers a sign-in proxy would add).
 */
export async function startStack({ headers, ...options } = {}) {
  if (!existsSync(join(WEB_DIR, "dist/index.html"))) throw new Error("dist/ is missing: run `npm run build` first");
  const children = [];
  const dir = mkdtempSync(join(tmpdir(), "admin-console-e2e-"));
  const stack = { children, dir, browser: null };
  try {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const { osmemUrl, url: clusterUrl } = await startCluster(children);
    const prometheusUrl = await startPrometheus(children, dir, nowSeconds);
    const baseUrl = await startAdminConsole(children, dir, { osmemUrl: clusterUrl, prometheusUrl, ...options });
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
    return { ...stack, osmemUrl, clusterUrl, prometheusUrl, baseUrl, context, nowSeconds };
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

/** Sends a request to osmem directly (test setup, not through the app). */
export async function osmem(stack, method, path, body) {
  const response = await fetch(`${stack.osmemUrl}/${path}`, {
    method,
    headers: body ? { "Content-Type": "application/json" } : undefined,
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}
