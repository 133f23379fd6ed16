// Clusters for the templates, tasks and settings browser tests: per flavor an osmem-server with
// the search-test-server binary in front (`--nodes 3 --seed`: a cancellable reindex and two
// tasks that cannot be cancelled, in the documented Elasticsearch 8 / OpenSearch 2 formats),
// started before the stack so the console is configured with them (`extraClusters`).
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

async function startPrintingUrl(children, command, args) {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });
  children.push(child);
  const line = await new Promise((ok, fail) => {
    createInterface({ input: child.stdout }).once("line", ok);
    child.once("exit", (code) => fail(new Error(`${command} exited with ${code}`)));
  });
  return JSON.parse(line).url;
}

/** `flavors`: `[{ id, flavor: "opensearch2" | "elasticsearch8" }]`. Answers `{ clusters: [{ id,
 * flavor, url }], yaml, stop }`, `yaml` being the `clusters:` entries for `startStack`. */
export async function startOpsClusters(flavors) {
  const children = [];
  const clusters = [];
  try {
    for (const { id, flavor } of flavors) {
      const osmemUrl = await startPrintingUrl(children, osmemBinary(), ["-addr", "127.0.0.1:0", "-no-stdin-watch", "-no-ja", "-parent-pid", String(process.pid)]);
      const url = await startPrintingUrl(children, frontBinary(), ["--osmem-url", osmemUrl, "--flavor", flavor, "--nodes", "3", "--seed"]);
      clusters.push({ id, flavor, url });
    }
  } catch (e) {
    await stop(children);
    throw e;
  }
  const yaml = clusters.map((c) => `  - id: ${c.id}\n    name: Ops ${c.flavor}\n    url: ${c.url}\n    metrics_source: internal\n`).join("");
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
