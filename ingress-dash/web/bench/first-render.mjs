// First render against a running ingress-dash (not a test): headless Debian Chromium opens the
// dashboard at URL and waits until the count shows ROWS and rows are painted, RUNS times in
// fresh pages. Used by the Rust benchmark (ingress-dash/benches/dashboard.rs), which starts the
// real service serving dist/; prints one JSON line: the medians and each run.
// Run: node bench/first-render.mjs http://127.0.0.1:8080 50000 [runs]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [url, rowsText, runsText] = process.argv.slice(2);
const ROWS = Number(rowsText);
const RUNS = Number(runsText ?? 3);
if (!url || !Number.isInteger(ROWS) || ROWS <= 0 || !Number.isInteger(RUNS) || RUNS <= 0) {
  console.error("usage: node bench/first-render.mjs <dashboard url> <rows> [runs]");
  process.exit(2);
}

// When the first snapshot event reaches the page, before the app handles it.
const instrument = () => {
  const Original = window.EventSource;
  window.__bench = {};
  window.EventSource = class extends Original {
    constructor(...args) {
      super(...args);
      this.addEventListener("snapshot", () => (window.__bench.snapshotAt ??= performance.now()));
    }
  };
};

const profile = mkdtempSync(join(tmpdir(), "ingress-dash-first-render-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_BIN ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1440, height: 900 },
});
await context.addInitScript(instrument);

const runs = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(url);
    // Done when the count starts with ROWS ("50,000 ingresses") and a row is painted, checked
    // once per animation frame; performance.now() counts from the navigation's start.
    const handle = await page.waitForFunction(
      (rows) => {
        const count = document.querySelector('[data-testid="row-count"]')?.textContent ?? "";
        if (!count.startsWith(`${rows.toLocaleString("en")} `) || !document.querySelector("[data-key]")) return false;
        return {
          firstRenderMs: performance.now(),
          // The app marks when the snapshot's body has been read (fetched, or the stream's
          // event reaching its handler: the stream may live in a worker, where the
          // EventSource hook below does not see it).
          fromSnapshotMs: performance.now() - (performance.getEntriesByName("ingress-dash:snapshot-received")[0]?.startTime ?? window.__bench.snapshotAt ?? Number.NaN),
          domRows: document.querySelectorAll("[data-key]").length,
          jsHeapMiB: (performance.memory?.usedJSHeapSize ?? 0) / 1048576,
          // The app's marks (ms from the navigation's start) and the snapshot fetch's timing.
          marks: Object.fromEntries(
            performance.getEntriesByType("mark").filter((m) => m.name.startsWith("ingress-dash:")).map((m) => [m.name.slice(13), Math.round(m.startTime)]),
          ),
          fetch: performance
            .getEntriesByType("resource")
            .filter((r) => new URL(r.name).pathname === "/api/ingresses")
            .map((r) => ({ start: Math.round(r.requestStart), firstByte: Math.round(r.responseStart), end: Math.round(r.responseEnd), encodedBytes: r.encodedBodySize, bytes: r.decodedBodySize }))[0],
        };
      },
      ROWS,
      { polling: "raf", timeout: 60_000 },
    );
    runs.push({ ...(await handle.jsonValue()), errors });
    await page.close();
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  JSON.stringify({
    firstRenderMs: median(runs.map((r) => r.firstRenderMs)),
    fromSnapshotMs: median(runs.map((r) => r.fromSnapshotMs)),
    domRows: median(runs.map((r) => r.domRows)),
    jsHeapMiB: median(runs.map((r) => r.jsHeapMiB)),
    runs,
  }),
);
