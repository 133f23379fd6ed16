// Clusters of their own for a browser test: an osmem-server with search-test-server in front
// (snapshots, tasks… in the documented Elasticsearch 8 / OpenSearch 2 formats), started before
// the stack so the admin console can be configured with them (`extraClusters`). Each front gets
// its own osmem so the flavors never see each other's indices.
import { OSMEM_ARGS, osmemBinary, searchTestServerBinary, startPrintingUrl } from "./stack.mjs";

/**
 * Starts osmem + search-test-server (`--seed`: an fs repository `backups`, a cancellable reindex
 * task and two that cannot be cancelled) per flavor (`opensearch2`, `elasticsearch8`), with
 * `nodes` simulated nodes when given (`--nodes`) and a shard move taking `relocationMs` when given
 * (`--relocation-ms`). Answers `{ clusters: [{ id, flavor, url,
 * osmemUrl }], yaml, stop }`; `yaml` holds the `clusters:` entries for
 * `startStack({ extraClusters })`.
 */
export async function startSearchTestServers(flavors) {
  const children = [];
  const clusters = [];
  try {
    for (const { id, flavor, nodes, relocationMs } of flavors) {
      const osmemUrl = await startPrintingUrl(children, osmemBinary(), OSMEM_ARGS());
      const sizing = nodes === undefined ? [] : ["--nodes", String(nodes)];
      const relocation = relocationMs === undefined ? [] : ["--relocation-ms", String(relocationMs)];
      const url = await startPrintingUrl(children, searchTestServerBinary(), [
        "--osmem-url",
        osmemUrl,
        "--flavor",
        flavor,
        ...sizing,
        ...relocation,
        "--seed",
      ]);
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
