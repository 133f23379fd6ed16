// Front-end benchmark (not a test): first render of 10,000 rows (ingresses and HTTPRoutes with
// backend, certificate and route badges) and the time to apply a burst of 1,000 stream events, in headless Debian Chromium, plus the bundle size. The built dist/ is
// served with a scripted stream that follows docs/api/ingress-dash.md, so the figures are the
// browser's alone. Run: npm run build && npm run bench

import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";

const WEB = join(dirname(fileURLToPath(import.meta.url)), "..");
// BENCH_DIST: another build directory (e.g. while dist/ is being served by something else).
const DIST = process.env.BENCH_DIST ?? join(WEB, "dist");
// BENCH_ROWS: 50000 for issue 20's scale (the namespaces grow with it: 500 at 50k).
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const NAMESPACES = Math.max(20, Math.round(ROWS / 100));
// BENCH_PROFILE=<file.json>: a CPU profile of the first run (navigation to first render) via
// CDP, with its heaviest functions by self time printed.
const PROFILE = process.env.BENCH_PROFILE;
const BURST = 1_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const GOALS = { firstRenderMs: 1_500, burstMs: 200 };

if (!existsSync(join(DIST, "index.html"))) {
  console.error("dist/ is missing: run `npm run build` first");
  process.exit(1);
}

// The records carry what issue 20 joined to them, in realistic shares, so the badges and their
// sorting are exercised: 2% are HTTPRoutes (a quarter of them with ResolvedRefs False and their
// Service missing); of the ingresses about 5% have a degraded backend, 4% one with no ready
// endpoint, 1% one with no Service; half have TLS, and of those about 7% expire within 7 days,
// 1% have expired and 2% have a host their certificate does not cover.
const NOW = Date.now();
const DAY = 86_400_000;
const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const isRoute = (i) => i % 50 === 49;
const ROUTES = Array.from({ length: ROWS }, (_, i) => i).filter(isRoute).length;

function backend(name, namespace, port, state) {
  const [ready, total] = { ready: [3, 3], degraded: [1, 3], no_ready_endpoints: [0, 2], missing_service: [0, 0] }[state];
  return {
    service: name,
    namespace,
    port,
    state,
    readyEndpoints: ready,
    totalEndpoints: total,
    error: state === "missing_service" ? `Service ${namespace}/${name} does not exist` : null,
  };
}

function certificate(i, h, name) {
  const expiresInDays = i % 200 === 2 ? -3 : i % 30 === 0 ? 1 + (i % 6) : 30 + (i % 60);
  const notAfter = NOW + expiresInDays * DAY;
  const byCertManager = i % 4 === 0;
  const uncovered = i % 100 === 4 ? [`www.${h}`] : [];
  return {
    secretName: `${name}-tls`,
    hosts: [h, ...uncovered],
    source: byCertManager ? "cert_manager" : "secret",
    subjectNames: [h],
    notBefore: iso(notAfter - 90 * DAY),
    notAfter: iso(notAfter),
    issuer: byCertManager ? "CN=letsencrypt-prod" : "CN=Example Internal CA,O=Example",
    missingHosts: uncovered,
    error: null,
  };
}

function record(i, version = 1, host) {
  const ns = `team-${String(i % NAMESPACES).padStart(3, "0")}`;
  const name = `app-${String(i).padStart(5, "0")}`;
  const h = host ?? `${name}.${ns}.example.com`;
  const uid = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
  const createdAt = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
  if (isRoute(i)) {
    const broken = i % 200 === 199;
    const parent = "gateway-system/public";
    return {
      kind: "HTTPRoute",
      uid,
      name,
      namespace: ns,
      ingressClassName: null,
      hosts: [h],
      rules: [{ host: h, paths: [{ path: "/", pathType: "PathPrefix", backend: { service: { name, port: 8080 } } }] }],
      defaultBackend: null,
      tls: [],
      addresses: [],
      labels: { "app.kubernetes.io/name": name },
      annotations: {},
      createdAt,
      resourceVersion: String(version),
      links: [{ host: h, url: `https://${h}/` }],
      backends: [backend(name, ns, 8080, broken ? "missing_service" : "ready")],
      certificates: [],
      route: {
        parentRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", namespace: "gateway-system", name: "public", sectionName: "https", port: null }],
        conditions: [
          { parent, type: "Accepted", status: "True", reason: "Accepted", message: "" },
          broken
            ? { parent, type: "ResolvedRefs", status: "False", reason: "BackendNotFound", message: `Service "${name}" not found` }
            : { parent, type: "ResolvedRefs", status: "True", reason: "ResolvedRefs", message: "" },
        ],
        rules: [{ matches: ["PathPrefix /"], backendRefs: [{ kind: "Service", name, namespace: ns, port: 8080, weight: 1 }] }],
      },
    };
  }
  const tls = i % 2 === 0;
  // The burst (version 2) takes every tenth row's endpoints away, as a failed rollout would.
  const webState = version > 1 && i % 10 === 0 ? "no_ready_endpoints" : i % 20 === 3 ? "degraded" : "ready";
  const apiState = i % 100 === 11 ? "missing_service" : i % 25 === 7 ? "no_ready_endpoints" : "ready";
  return {
    kind: "Ingress",
    uid,
    name,
    namespace: ns,
    ingressClassName: ["nginx", "traefik", "haproxy", null][i % 4],
    hosts: [h],
    rules: [
      {
        host: h,
        paths: [
          { path: "/", pathType: "Prefix", backend: { service: { name, port: 80 } } },
          { path: "/api", pathType: "Prefix", backend: { service: { name: `${name}-api`, port: "http" } } },
        ],
      },
    ],
    defaultBackend: null,
    tls: tls ? [{ hosts: [h], secretName: `${name}-tls` }] : [],
    addresses: [`10.0.${(i >> 8) & 255}.${i & 255}`],
    labels: { "app.kubernetes.io/name": name, "app.kubernetes.io/part-of": ns },
    annotations: { "nginx.ingress.kubernetes.io/proxy-body-size": "8m" },
    createdAt,
    resourceVersion: String(version),
    links: [{ host: h, url: `${tls ? "https" : "http"}://${h}/` }],
    backends: [backend(name, ns, 80, webState), backend(`${name}-api`, ns, "http", apiState)],
    certificates: tls ? [certificate(i, h, name)] : [],
    route: null,
  };
}

/** The 25 functions with the most self time in a CDP CPU profile. */
function printProfile(cpu) {
  const self = new Map();
  const dt = cpu.timeDeltas;
  const byId = new Map(cpu.nodes.map((n) => [n.id, n]));
  cpu.samples.forEach((id, i) => {
    const { functionName, url, lineNumber, columnNumber } = byId.get(id).callFrame;
    const key = `${functionName || "(anonymous)"} ${url.split("/").pop()}:${lineNumber + 1}:${columnNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000);
  });
  console.log("CPU profile, self time (ms):");
  for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${ms.toFixed(1).padStart(8)}  ${key}`);
}

const snapshot = JSON.stringify({ items: Array.from({ length: ROWS }, (_, i) => record(i)), errors: [], notices: [], expiryWarningDays: 14 });
console.log(`snapshot: ${(snapshot.length / 1048576).toFixed(1)} MiB, ${ROWS} records in ${NAMESPACES} namespaces`);
// The toolbar's count once every row is in: "9,800 ingresses · 200 HTTPRoutes".
const COUNT_TEXT = `${(ROWS - ROUTES).toLocaleString("en")} ingresses · ${ROUTES.toLocaleString("en")} HTTPRoutes`;
const streams = new Set();
let eventId = 0;

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://bench");
  if (url.pathname === "/api/ingresses/stream") {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
    res.write(`retry: 3000\n\nid: ${++eventId}\nevent: snapshot\ndata: ${snapshot}\n\n`);
    streams.add(res);
    req.on("close", () => streams.delete(res));
    return;
  }
  if (url.pathname === "/api/namespaces") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ namespaces: Array.from({ length: NAMESPACES }, (_, i) => `team-${String(i).padStart(3, "0")}`) }));
    return;
  }
  if (url.pathname === "/bench/burst") {
    // 1,000 modified events in one write, the last one renaming the host of the first row.
    let body = "";
    for (let n = BURST - 1; n >= 0; n--) {
      const data = record(n, 2, n === 0 ? "burst-done.example.com" : undefined);
      body += `id: ${++eventId}\nevent: modified\ndata: ${JSON.stringify(data)}\n\n`;
    }
    for (const stream of streams) stream.write(body);
    res.end("ok");
    return;
  }
  let file = join(DIST, url.pathname);
  if (!file.startsWith(DIST) || !existsSync(file) || statSync(file).isDirectory()) file = join(DIST, "index.html");
  const types = { ".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".svg": "image/svg+xml" };
  res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
  createReadStream(file).pipe(res);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;

// Records when the first snapshot / modified event reaches the page, before the app sees it.
const instrument = () => {
  const Original = window.EventSource;
  window.__bench = {};
  window.EventSource = class extends Original {
    constructor(...args) {
      super(...args);
      this.addEventListener("snapshot", () => (window.__bench.snapshotAt ??= performance.now()));
      this.addEventListener("modified", () => (window.__bench.burstAt ??= performance.now()));
    }
  };
};

const profile = mkdtempSync(join(tmpdir(), "ingress-dash-bench-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_BIN ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1440, height: 900 },
});
await context.addInitScript(instrument);

const results = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const page = await context.newPage();
    const cdp = PROFILE && run === 0 ? await context.newCDPSession(page) : null;
    if (cdp) {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
      await cdp.send("Profiler.start");
    }
    await page.goto(`${base}/`);
    // Done when the count says 10,000 and rows are painted (checked once per animation frame).
    const firstRender = await page.waitForFunction(
      (countText) => {
        const count = document.querySelector('[data-testid="row-count"]')?.textContent ?? "";
        if (count !== countText || !document.querySelector("[data-key]")) return false;
        return {
          fromNavigation: performance.now(),
          // The app marks when the snapshot event reaches its handler (its stream may live in a
          // worker, where the EventSource hook below does not see it).
          fromSnapshot: performance.now() - (performance.getEntriesByName("ingress-dash:snapshot-received")[0]?.startTime ?? window.__bench.snapshotAt ?? Number.NaN),
          domRows: document.querySelectorAll("[data-key]").length,
        };
      },
      COUNT_TEXT,
      { polling: "raf", timeout: 120_000 },
    );
    const first = await firstRender.jsonValue();
    if (cdp) {
      const { profile: cpu } = await cdp.send("Profiler.stop");
      writeFileSync(PROFILE, JSON.stringify(cpu));
      printProfile(cpu);
    }
    // The app's own marks (performance.mark "ingress-dash:*"), ms from navigation.
    first.marks = await page.evaluate(() =>
      Object.fromEntries(performance.getEntriesByType("mark").filter((m) => m.name.startsWith("ingress-dash:")).map((m) => [m.name.slice(13), Math.round(m.startTime)])),
    );
    first.jsHeapMiB = await page.evaluate(() => Math.round((performance.memory?.usedJSHeapSize ?? 0) / 1048576));

    // When the stream lives in a worker the EventSource hook does not see the burst arrive:
    // then it is timed from just before it is sent (a few ms more than from its arrival).
    const sentAt = await page.evaluate(() => performance.now());
    await fetch(`${base}/bench/burst`);
    const burst = await page.waitForFunction(
      (sent) => {
        const done = document.querySelector('[data-key="team-000/app-00000"] a')?.textContent === "burst-done.example.com";
        return done ? performance.now() - (window.__bench.burstAt ?? sent) : false;
      },
      sentAt,
      { polling: "raf", timeout: 120_000 },
    );
    results.push({ ...first, burstMs: await burst.jsonValue() });
    await page.close();
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  server.close();
  for (const stream of streams) stream.destroy();
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const assets = readdirSync(join(DIST, "assets"));
const size = (ext) =>
  assets
    .filter((f) => f.endsWith(ext))
    .reduce(
      (sum, f) => {
        const bytes = readFileSync(join(DIST, "assets", f));
        return { raw: sum.raw + bytes.length, gzip: sum.gzip + gzipSync(bytes, { level: 9 }).length };
      },
      { raw: 0, gzip: 0 },
    );
const js = size(".js");
const css = size(".css");
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
const ms = (n) => `${n.toFixed(0)} ms`;
const firstMs = median(results.map((r) => r.fromNavigation));

console.log(`\ningress-dash web benchmark: ${ROWS.toLocaleString("en")} rows (${ROUTES} HTTPRoutes), burst of ${BURST.toLocaleString("en")} events, median of ${RUNS} runs, headless Chromium\n`);
console.table([
  { metric: `first render (navigation → ${ROWS.toLocaleString("en")} rows shown)`, measured: ms(firstMs), goal: `< ${ms(GOALS.firstRenderMs)}`, met: firstMs < GOALS.firstRenderMs ? "yes" : "NO" },
  { metric: "  of which: snapshot received → rows shown", measured: ms(median(results.map((r) => r.fromSnapshot))), goal: "", met: "" },
  { metric: "burst of 1,000 events applied and painted", measured: ms(median(results.map((r) => r.burstMs))), goal: `< ${ms(GOALS.burstMs)}`, met: median(results.map((r) => r.burstMs)) < GOALS.burstMs ? "yes" : "NO" },
  { metric: "rows in the DOM", measured: String(median(results.map((r) => r.domRows))), goal: "< 200", met: median(results.map((r) => r.domRows)) < 200 ? "yes" : "NO" },
  { metric: "JavaScript bundle", measured: `${kb(js.gzip)} gzip (${kb(js.raw)})`, goal: "", met: "" },
  { metric: "CSS", measured: `${kb(css.gzip)} gzip (${kb(css.raw)})`, goal: "", met: "" },
]);
console.log("runs:", results.map((r) => `first ${ms(r.fromNavigation)} (from snapshot ${ms(r.fromSnapshot)}) / burst ${ms(r.burstMs)}`).join("; "));
console.log("JS heap after first render (MiB):", results.map((r) => r.jsHeapMiB).join(", "));
for (const r of results) if (Object.keys(r.marks).length) console.log("marks:", JSON.stringify(r.marks));
