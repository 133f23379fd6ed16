// Front-end benchmark (not a test): first render of 10,000 rows and the time to apply a burst of
// 1,000 stream events, in headless Debian Chromium, plus the bundle size. The built dist/ is
// served with a scripted stream that follows docs/api/ingress-dash.md, so the figures are the
// browser's alone. Run: npm run build && npm run bench

import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";

const WEB = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(WEB, "dist");
const ROWS = 10_000;
const BURST = 1_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const GOALS = { firstRenderMs: 1_500, burstMs: 200 };

if (!existsSync(join(DIST, "index.html"))) {
  console.error("dist/ is missing: run `npm run build` first");
  process.exit(1);
}

function record(i, version = 1, host) {
  const ns = `team-${String(i % 20).padStart(3, "0")}`;
  const name = `app-${String(i).padStart(5, "0")}`;
  const h = host ?? `${name}.${ns}.example.com`;
  const tls = i % 2 === 0;
  return {
    uid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
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
    createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    resourceVersion: String(version),
    links: [{ host: h, url: `${tls ? "https" : "http"}://${h}/` }],
  };
}

const snapshot = JSON.stringify({ items: Array.from({ length: ROWS }, (_, i) => record(i)), errors: [] });
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
    res.end(JSON.stringify({ namespaces: Array.from({ length: 20 }, (_, i) => `team-${String(i).padStart(3, "0")}`) }));
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
    await page.goto(`${base}/`);
    // Done when the count says 10,000 and rows are painted (checked once per animation frame).
    const firstRender = await page.waitForFunction(
      (rows) => {
        const count = document.querySelector('[data-testid="row-count"]')?.textContent ?? "";
        if (count !== `${rows.toLocaleString("en")} ingresses` || !document.querySelector("[data-key]")) return false;
        return {
          fromNavigation: performance.now(),
          fromSnapshot: performance.now() - window.__bench.snapshotAt,
          domRows: document.querySelectorAll("[data-key]").length,
        };
      },
      ROWS,
      { polling: "raf", timeout: 30_000 },
    );
    const first = await firstRender.jsonValue();

    await fetch(`${base}/bench/burst`);
    const burst = await page.waitForFunction(
      () => {
        const done = document.querySelector('[data-key="team-000/app-00000"] a')?.textContent === "burst-done.example.com";
        return done ? performance.now() - window.__bench.burstAt : false;
      },
      undefined,
      { polling: "raf", timeout: 30_000 },
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

console.log(`\ningress-dash web benchmark: ${ROWS.toLocaleString("en")} rows, burst of ${BURST.toLocaleString("en")} events, median of ${RUNS} runs, headless Chromium\n`);
console.table([
  { metric: "first render (navigation → 10,000 rows shown)", measured: ms(firstMs), goal: `< ${ms(GOALS.firstRenderMs)}`, met: firstMs < GOALS.firstRenderMs ? "yes" : "NO" },
  { metric: "  of which: snapshot received → rows shown", measured: ms(median(results.map((r) => r.fromSnapshot))), goal: "", met: "" },
  { metric: "burst of 1,000 events applied and painted", measured: ms(median(results.map((r) => r.burstMs))), goal: `< ${ms(GOALS.burstMs)}`, met: median(results.map((r) => r.burstMs)) < GOALS.burstMs ? "yes" : "NO" },
  { metric: "rows in the DOM", measured: String(median(results.map((r) => r.domRows))), goal: "< 200", met: median(results.map((r) => r.domRows)) < 200 ? "yes" : "NO" },
  { metric: "JavaScript bundle", measured: `${kb(js.gzip)} gzip (${kb(js.raw)})`, goal: "", met: "" },
  { metric: "CSS", measured: `${kb(css.gzip)} gzip (${kb(css.raw)})`, goal: "", met: "" },
]);
console.log("runs:", results.map((r) => `first ${ms(r.fromNavigation)} / burst ${ms(r.burstMs)}`).join("; "));
