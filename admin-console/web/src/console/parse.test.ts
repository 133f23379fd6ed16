import { describe, expect, it } from "vitest";
import { formatRequest, methodOfLine, parseRequests, prepareBody, requestAtLine, splitJsonDocuments } from "./parse";

const TEXT = [
  "# health first", // 0
  "GET /_cluster/health", // 1
  "", // 2
  "// a search", // 3
  "get logs-*/_search?size=1", // 4
  "{", // 5
  '  "query": { "match_all": {} }', // 6
  "}", // 7
  "", // 8
  "POST _bulk", // 9
  '{ "index": { "_index": "logs" } }', // 10
  '{ "message": "hello" }', // 11
  "", // 12
  "# trailing comment", // 13
].join("\n");

describe("parseRequests", () => {
  it("splits several requests at their method lines, in any case, leaving comments out", () => {
    const requests = parseRequests(TEXT);
    expect(requests.map((r) => [r.method, r.path, r.startLine, r.endLine])).toEqual([
      ["GET", "/_cluster/health", 1, 1],
      ["GET", "logs-*/_search?size=1", 4, 7],
      ["POST", "_bulk", 9, 11],
    ]);
    expect(requests[0].body).toBe("");
    expect(JSON.parse(requests[1].body)).toEqual({ query: { match_all: {} } });
    expect(requests[2].body.split("\n")).toHaveLength(2);
  });

  it("keeps offsets that point at the request's text", () => {
    const [first, second] = parseRequests(TEXT);
    expect(TEXT.slice(first.from, first.to)).toBe("GET /_cluster/health");
    expect(TEXT.slice(second.from, second.to)).toMatch(/^get logs-\*\/_search\?size=1\n\{[\s\S]*\}$/);
  });

  it("drops comment lines inside a body and knows only HTTP methods", () => {
    const [request] = parseRequests('POST /x/_search\n{\n  # not sent\n  "size": 0\n  // nor this\n}\n');
    expect(JSON.parse(request.body)).toEqual({ size: 0 });
    expect(parseRequests("FETCH /x\nGOT it")).toEqual([]);
    expect(methodOfLine("  patch /x ")).toEqual({ method: "PATCH", path: "/x" });
    expect(methodOfLine("HEAD /x")).toBeNull();
    expect(methodOfLine("DELETE")).toEqual({ method: "DELETE", path: "" });
    expect(methodOfLine('"GET": 1')).toBeNull();
  });

  it("ignores text before the first request", () => {
    expect(parseRequests('{ "stray": 1 }\nGET /').map((r) => r.path)).toEqual(["/"]);
  });
});

describe("requestAtLine (the request under the cursor)", () => {
  const requests = parseRequests(TEXT);
  it("is the request whose lines hold the cursor", () => {
    expect(requestAtLine(requests, 1)?.path).toBe("/_cluster/health");
    expect(requestAtLine(requests, 6)?.path).toBe("logs-*/_search?size=1");
    expect(requestAtLine(requests, 11)?.path).toBe("_bulk");
  });
  it("is the request above on a blank or comment line between requests, the first one before them", () => {
    expect(requestAtLine(requests, 2)?.path).toBe("/_cluster/health");
    expect(requestAtLine(requests, 3)?.path).toBe("/_cluster/health");
    expect(requestAtLine(requests, 13)?.path).toBe("_bulk");
    expect(requestAtLine(requests, 0)?.path).toBe("/_cluster/health");
    expect(requestAtLine([], 0)).toBeNull();
  });
});

describe("bodies", () => {
  it("sends NDJSON one document a line, with a final newline, even when a document spans lines", () => {
    const body = '{ "index": { "_index": "logs" } }\n{\n  "message": "a } in a string",\n  "n": [1, 2]\n}\n{"delete":{"_id":"1"}}';
    expect(prepareBody({ method: "POST", path: "/_bulk", body })).toEqual({
      text: '{"index":{"_index":"logs"}}\n{"message":"a } in a string","n":[1,2]}\n{"delete":{"_id":"1"}}\n',
      contentType: "application/x-ndjson",
    });
    expect(prepareBody({ method: "GET", path: "logs/_msearch", body: "{}\n{\"query\":{}}" }).contentType).toBe(
      "application/x-ndjson",
    );
    expect(splitJsonDocuments('{"a":"\\"}"}\n[1]\n')).toEqual(['{"a":"\\"}"}', "[1]"]);
  });

  it("says which NDJSON document is not JSON, and when a JSON body is not", () => {
    expect(prepareBody({ method: "POST", path: "_bulk", body: '{"index":{}}\n{oops}' }).error).toMatch(
      /^Line 2 of the NDJSON body is not valid JSON/,
    );
    expect(prepareBody({ method: "GET", path: "x/_search", body: "{ nope" }).error).toMatch(/^The body is not valid JSON/);
  });

  it("sends a JSON body as typed, GET included, and no body when there is none", () => {
    expect(prepareBody({ method: "GET", path: "x/_search", body: '{ "size": 1 }' })).toEqual({
      text: '{ "size": 1 }',
      contentType: "application/json",
    });
    expect(prepareBody({ method: "GET", path: "x", body: "" })).toEqual({});
  });

  it("formats a history entry back into editor text", () => {
    expect(formatRequest("GET", "_cat/indices")).toBe("GET /_cat/indices");
    expect(formatRequest("POST", "/x/_search", '{"size":0}\n')).toBe('POST /x/_search\n{"size":0}');
  });
});
