// A cluster for the 10,000-index benchmark: the stack's real OpenSearch node for everything,
// except that its `_cat/indices` answer is replayed at benchmark scale.
//
// Why: a node takes at most 1,000 shards by default (`cluster.max_shards_per_node`), and 10,000
// real indices in a 512 MB test node would take many minutes to create and most of its heap. The replayed answer is the node's own
// `_cat/indices` answer for a few real indices (same query string as admin-console sends, so the
// same columns and value types), repeated under 10,000 names; every other request goes to the
// node unchanged.
import { createServer, request as httpRequest } from "node:http";

const TEMPLATE_INDICES = ["logs-app", "logs-web", "metrics-node", "orders", "users", "audit"];

/** Creates a few real indices in the node (some with documents) and records its answer. */
async function recordCatIndices(nodeUrl, catPathAndQuery) {
  for (const [position, name] of TEMPLATE_INDICES.entries()) {
    const created = await fetch(`${nodeUrl}/${name}`, { method: "PUT" });
    if (!created.ok && created.status !== 400) throw new Error(`PUT ${name}: ${created.status}`);
    const lines = [];
    for (let doc = 0; doc < position * 3; doc++) {
      lines.push(JSON.stringify({ index: { _index: name } }), JSON.stringify({ n: doc, text: `document ${doc}` }));
    }
    if (lines.length > 0) {
      const bulk = await fetch(`${nodeUrl}/_bulk?refresh=true`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: `${lines.join("\n")}\n`,
      });
      if (!bulk.ok) throw new Error(`_bulk into ${name}: ${bulk.status}`);
    }
  }
  const response = await fetch(`${nodeUrl}${catPathAndQuery}`);
  if (!response.ok) throw new Error(`recording ${catPathAndQuery}: ${response.status}`);
  const rows = (await response.json()).filter((row) => TEMPLATE_INDICES.includes(row.index));
  if (rows.length === 0) throw new Error("the node's _cat/indices answer has none of the template indices");
  return rows;
}

/** `count` rows shaped exactly like the recorded ones, named bench-00000, bench-00001, ... */
function scaleUp(recorded, count) {
  return Array.from({ length: count }, (_, n) => ({
    ...recorded[n % recorded.length],
    index: `bench-${String(n).padStart(5, "0")}`,
  }));
}

/**
 * Starts the replaying cluster on a free port. `attach(nodeUrl)` records the answer and starts
 * forwarding; until then every request gets 503.
 */
export async function startRecordedCluster({ indexCount, catPathAndQuery }) {
  let upstream = null;
  let catBody = null;
  const server = createServer((req, res) => {
    if (!upstream) {
      res.writeHead(503).end();
      return;
    }
    if (req.method === "GET" && req.url.startsWith("/_cat/indices")) {
      res.writeHead(200, { "content-type": "application/json; charset=UTF-8", "content-length": catBody.length });
      res.end(catBody);
      return;
    }
    const target = new URL(req.url, upstream);
    const forwarded = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    });
    forwarded.on("error", () => res.writeHead(502).end());
    req.pipe(forwarded);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    async attach(nodeUrl) {
      const recorded = await recordCatIndices(nodeUrl, catPathAndQuery);
      catBody = Buffer.from(JSON.stringify(scaleUp(recorded, indexCount)));
      upstream = nodeUrl;
      return { recordedRows: recorded.length, bytes: catBody.length };
    },
    close: () => new Promise((ok) => server.close(ok)),
  };
}
