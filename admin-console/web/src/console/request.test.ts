import { describe, expect, it } from "vitest";
import {
  contentTypeFor,
  fetchMethod,
  prettyBody,
  relayUrl,
  statusLine,
  toCurl,
  upstreamDuration,
} from "./request";

describe("console request helpers", () => {
  it("builds the relay URL, keeping the query string", () => {
    expect(relayUrl("prod eu", "/_cat/indices?v")).toBe("/api/clusters/prod%20eu/proxy/_cat/indices?v");
    expect(relayUrl("a", "")).toBe("/api/clusters/a/proxy/");
  });

  it("uses NDJSON for bulk and multi-search", () => {
    expect(contentTypeFor("_bulk")).toBe("application/x-ndjson");
    expect(contentTypeFor("/logs/_msearch?x=1")).toBe("application/x-ndjson");
    expect(contentTypeFor("logs/_search")).toBe("application/json");
  });

  it("copies as cURL without credentials, quoting for the shell", () => {
    expect(toCurl("http://h:1", "a", "GET", "_cluster/health", "")).toBe(
      "curl -X GET 'http://h:1/api/clusters/a/proxy/_cluster/health' -H 'X-Requested-By: admin-console'",
    );
    // curl sends a GET with a body as it is; the relay takes it.
    expect(toCurl("http://h:1", "a", "GET", "i/_search", "{}")).toBe(
      "curl -X GET 'http://h:1/api/clusters/a/proxy/i/_search' -H 'X-Requested-By: admin-console' -H 'Content-Type: application/json' --data-binary '{}'",
    );
    expect(toCurl("http://h:1", "a", "POST", "i/_search", `{"q":"it's"}`)).toBe(
      `curl -X POST 'http://h:1/api/clusters/a/proxy/i/_search' -H 'X-Requested-By: admin-console' -H 'Content-Type: application/json' --data-binary '{"q":"it'\\''s"}'`,
    );
  });

  it("shows the status with its reason phrase", () => {
    expect(statusLine(404)).toBe("404 Not Found");
    expect(statusLine(200, "OK")).toBe("200 OK");
    expect(statusLine(599)).toBe("599");
  });

  it("pretty-prints JSON and leaves text alone", () => {
    expect(prettyBody('{"a":[1]}')).toEqual({ text: '{\n  "a": [\n    1\n  ]\n}', json: true });
    expect(prettyBody("green 1 2\n")).toEqual({ text: "green 1 2\n", json: false });
  });

  it("reads the upstream duration from Server-Timing", () => {
    expect(upstreamDuration("upstream;dur=12.5")).toBe(12.5);
    expect(upstreamDuration("db;dur=3, upstream;desc=x;dur=7")).toBe(7);
    expect(upstreamDuration(null)).toBeNull();
    expect(upstreamDuration("other;dur=1")).toBeNull();
  });

  it("sends a GET with a body as POST with X-Console-Method: GET, everything else as typed", () => {
    expect(fetchMethod("GET", true)).toEqual({ method: "POST", headers: { "X-Console-Method": "GET" } });
    expect(fetchMethod("GET", false)).toEqual({ method: "GET", headers: {} });
    expect(fetchMethod("DELETE", true)).toEqual({ method: "DELETE", headers: {} });
    expect(fetchMethod("POST", true)).toEqual({ method: "POST", headers: {} });
  });
});
