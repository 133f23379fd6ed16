import { describe, expect, it } from "vitest";
import { EditorState } from "@codemirror/state";
import { CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { dialectName, endpointsFor, pathOptions } from "./paths";
import { bodyKind, keyContext, keysFor } from "./body";
import { aliasNames } from "./names";
import { consoleCompletion } from "./source";

const names = { indices: ["logs-2026.11", "metrics"], aliases: ["logs"] };
const es = endpointsFor("elasticsearch-8");
const os = endpointsFor("opensearch-2");
const labels = (typed: string, method: string | null = "GET", list = es) =>
  pathOptions(list, method, typed, names)?.options.map((o) => o.label) ?? [];

describe("API path lists", () => {
  it("has a few hundred endpoints per dialect, each with methods", () => {
    for (const list of [es, os]) {
      expect(list.length).toBeGreaterThan(250);
      for (const endpoint of list) {
        expect(endpoint.path.startsWith("/")).toBe(true);
        expect(endpoint.methods.length).toBeGreaterThan(0);
      }
    }
    const search = es.find((e) => e.path === "/{index}/_search");
    expect(search?.methods).toEqual(["GET", "POST"]);
  });

  it("picks the list from the dialect", () => {
    expect(dialectName({ distribution: "opensearch", major: 2 })).toBe("opensearch-2");
    expect(dialectName({ distribution: "elasticsearch", major: 8 })).toBe("elasticsearch-8");
    expect(dialectName(null)).toBe("elasticsearch-8");
  });

  it("differs where the dialects do", () => {
    expect(labels("_plugins/", "GET", os)).toContain("_ism");
    expect(labels("_plugins/", "GET", es)).toEqual([]);
    expect(labels("_cat/", "GET", os)).toContain("cluster_manager");
    expect(labels("_ilm/", "GET", es)).toContain("policy");
  });
});

describe("path completion", () => {
  it("offers endpoints and index and alias names for the first segment", () => {
    const first = labels("");
    expect(first).toEqual(expect.arrayContaining(["_cat", "_cluster", "_search", "logs-2026.11", "metrics", "logs"]));
    const options = pathOptions(es, "GET", "/_c", names)!;
    expect(options.prefix).toBe("_c");
  });

  it("offers the next segment of endpoints whose earlier segments match, for the method", () => {
    expect(labels("_cat/")).toEqual(expect.arrayContaining(["indices", "shards", "aliases", "nodes"]));
    expect(labels("logs-2026.11/")).toEqual(expect.arrayContaining(["_search", "_doc", "_mapping", "_count"]));
    expect(labels("logs-2026.11/", "PUT")).not.toContain("_search");
    expect(labels("logs-2026.11/", "POST")).toContain("_close");
    expect(labels("_cat/indices/")).toEqual(expect.arrayContaining(["metrics", "logs"]));
    // An API name never passes for an index name.
    expect(labels("_cluster/")).not.toContain("_search");
  });

  it("offers alias names after _alias", () => {
    const after = labels("metrics/_alias/");
    expect(after).toContain("logs");
    expect(after).not.toContain("metrics");
  });

  it("stops at the query string", () => {
    expect(pathOptions(es, "GET", "_cat/indices?v", names)).toBeNull();
  });

  it("reads alias names from _cat/aliases rows, whatever else they hold", () => {
    expect(aliasNames([{ alias: "b", index: "x" }, { alias: "a" }, { alias: "b" }, null, { index: "y" }])).toEqual(["a", "b"]);
    expect(aliasNames({ error: "x" })).toEqual([]);
  });
});

describe("body keys", () => {
  it("finds where a key is typed and the keys around it", () => {
    expect(keyContext('{ "qu')).toEqual({ from: 2, prefix: "qu", quoted: true, parents: [] });
    expect(keyContext('{ "query": { "bool": { "must": [ { "ma')).toMatchObject({
      prefix: "ma",
      parents: ["query", "bool", "must"],
    });
    expect(keyContext('{ "query": { "bool": { ')).toMatchObject({ prefix: "", quoted: false, parents: ["query", "bool"] });
    expect(keyContext('{ "size": 1, si')).toMatchObject({ prefix: "si", quoted: false, parents: [] });
    expect(keyContext('{ "query": "ma')).toBeNull();
    expect(keyContext('{ "size": ')).toBeNull();
    expect(keyContext("")).toBeNull();
  });

  it("offers query DSL, bool clauses, aggregations and index creation keys where they fit", () => {
    expect(keysFor("search", [])).toEqual(expect.arrayContaining(["query", "aggs", "size", "from", "sort", "_source"]));
    expect(keysFor("search", ["query"])).toEqual(expect.arrayContaining(["bool", "match", "term", "terms", "range"]));
    expect(keysFor("search", ["query", "bool"])).toEqual(expect.arrayContaining(["must", "filter", "should", "must_not"]));
    expect(keysFor("search", ["query", "bool", "filter"])).toContain("term");
    expect(keysFor("search", ["query", "range", "timestamp"])).toContain("gte");
    expect(keysFor("search", ["aggs", "by_host"])).toEqual(expect.arrayContaining(["terms", "date_histogram", "avg"]));
    expect(keysFor("search", ["aggs", "by_host", "terms"])).toEqual(expect.arrayContaining(["field", "size"]));
    expect(keysFor("index-create", [])).toEqual(["settings", "mappings", "aliases"]);
    expect(keysFor("bulk", ["index"])).toContain("_index");
  });

  it("tells the body kind from the method and path", () => {
    expect(bodyKind("GET", "/logs/_search?size=1")).toBe("search");
    expect(bodyKind("POST", "_bulk")).toBe("bulk");
    expect(bodyKind("PUT", "/logs")).toBe("index-create");
    expect(bodyKind("PUT", "/_cluster/settings")).toBe("cluster-settings");
    expect(bodyKind("POST", "/_aliases")).toBe("aliases");
  });
});

describe("the editor's completion source", () => {
  const source = consoleCompletion({ endpoints: () => es, names: async () => names });
  async function complete(doc: string, explicit = false): Promise<CompletionResult | null> {
    const state = EditorState.create({ doc });
    return source(new CompletionContext(state, doc.length, explicit)) as Promise<CompletionResult | null>;
  }

  it("completes paths, with index names, after the method", async () => {
    const result = (await complete("GET /_cluster/health\n\nGET /met"))!;
    expect(result.options.map((o) => o.label)).toContain("metrics");
    expect(result.from).toBe("GET /_cluster/health\n\nGET /".length);
  });

  it("completes methods at the start of a line outside a body, and keys inside one", async () => {
    const methods = (await complete("GET /\n\nPO"))!;
    expect(methods.options.map((o) => o.label)).toContain("POST");
    const keys = (await complete('GET /logs/_search\n{\n  "query": {\n    "bo'))!;
    expect(keys.options.map((o) => o.displayLabel)).toContain("bool");
    expect(keys.options.find((o) => o.displayLabel === "bool")?.apply).toBe('"bool": ');
    const inBody = await complete('GET /logs/_search\n{\n  "size": 1,\n  "query": {\n    "bool": { "must": [ { "te');
    expect(inBody!.options.map((o) => o.displayLabel)).toContain("term");
  });

  it("offers nothing in a comment or a value", async () => {
    expect(await complete("# GET /me")).toBeNull();
    expect(await complete('GET /x/_search\n{ "query": "ma')).toBeNull();
  });
});
