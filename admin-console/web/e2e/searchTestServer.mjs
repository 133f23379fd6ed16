// Clusters of their own for a browser test: an osmem-server with search-test-server in front
// (snapshots, tasks… in the documented Elasticsearch 8 / OpenSearch 2 formats), started before
// the stack so the admin console can be configured with them (`extraClusters`). Each front gets
// its own osmem so the flavors never see each other's indices.
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { REPO } from "./stack.mjs";

function osmemBinary() {
  if (process.env.OSMEM_SERVER_BIN) return process.env.OSMEM_SERVER_BIN;
  const lib = join(REPO, ".venv/lib");
  for (const python of existsSync(lib) ? readdirSync(lib) : []) {
    const candidate = join(lib, python, "site-packages/osmem_server/bin/osmem-server");
    if (python.startsWith("python3") && existsSync(candidate)) return candidate;
  }
  throw new Error(`osmem-server is not installed under ${lib}; run \`make deps\``);
}

function frontBinary() {
  const path = process.env.SEARCH_TEST_SERVER_BIN ?? join(REPO, "target/debug/search-test-server");
  if (!existsSync(path)) throw new Error(`search-test-server not found at ${path}: cargo build -p search-test-server`);
  return path;
}

/** Spawns `command` and reads the `{"url"}` JSON line it prints once listening. */
async function startPrintingUrl(children, command, args) {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });
  children.push(child);
  const line = await new Promise((ok, fail) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", ok);
    child.once("exit", (code) => fail(new Error(`${command} exited with ${code}`)));
  });
  return JSON.parse(line).url;
}

/**
 * Starts osmem + search-test-server (`--seed`: an fs repository `backups`, a cancellable reindex
 * task and two that cannot be cancelled) per flavor (`opensearch2`, `elasticsearch8`), with
 * `nodes` simulated nodes when given (`--nodes`). Answers `{ clusters: [{ id, flavor, url,
 * osmemUrl }], yaml, stop }`; `yaml` holds the `clusters:` entries for
 * `startStack({ extraClusters })`.
 */
export async function startSearchTestServers(flavors) {
  const children = [];
  const clusters = [];
  try {
    for (const { id, flavor, nodes } of flavors) {
      const osmemUrl = await startPrintingUrl(children, osmemBinary(), [
        "-addr",
        "127.0.0.1:0",
        "-no-stdin-watch",
        "-no-ja",
        "-parent-pid",
        String(process.pid),
      ]);
      const sizing = nodes === undefined ? [] : ["--nodes", String(nodes)];
      const url = await startPrintingUrl(children, frontBinary(), ["--osmem-url", osmemUrl, "--flavor", flavor, ...sizing, "--seed"]);
      clusters.push({ id, flavor, url, osmemUrl });
    }
  } catch (e) {
    await stop(children);
    throw e;
  }
  const yaml = clusters.map((c) => `  - id: ${c.id}\n    name: ${c.id} (${c.flavor})\n    url: ${c.url}\n    metrics_source: internal\n`).join("");
  return { clusters, yaml, stop: () => stop(children) };
}

async function stop(children) {
  for (const child of children.reverse()) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
}

/** A request straight to a cluster (test set-up, not through the app). */
export async function clusterCall(url, method, path, body) {
  const response = await fetch(`${url}/${path}`, {
    method,
    headers: body ? { "Content-Type": typeof body === "string" ? "application/x-ndjson" : "application/json" } : undefined,
    body: body ? (typeof body === "string" ? body : JSON.stringify(body)) : undefined,
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}
