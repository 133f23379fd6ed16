// The web app's mirror of the server's role rules (admin-console/src/access/action.rs): what a
// console request needs, and the reason shown when the role is too low.
import { describe, expect, it } from "vitest";
import { allows, denial, isReadOnlyStatement, relayNeeds, roleOn, segments } from "./access";
import type { WhoAmI } from "../api/wire";

describe("relayNeeds", () => {
  it("reads are viewer: GET, HEAD and the read-only POSTs", () => {
    for (const [method, path] of [
      ["GET", "_cluster/health"],
      ["HEAD", "logs"],
      ["GET", "/_cat/indices?v"],
      ["POST", "_search"],
      ["POST", "logs-*,metrics/_search?size=0"],
      ["POST", "/remote:logs/_count"],
      ["POST", "_all/_msearch"],
      ["POST", "logs/_mget"],
      ["POST", "logs/_field_caps"],
      ["POST", "_validate/query"],
      ["POST", "logs/_validate/query"],
      ["POST", "logs/_explain/1"],
      ["POST", "_search/scroll"],
      ["DELETE", "_search/scroll/abc"],
      ["POST", "logs/_pit"],
      ["DELETE", "_pit"],
      ["POST", "logs/_search/point_in_time"],
      ["DELETE", "_search/point_in_time"],
    ] as const) {
      expect(relayNeeds(method, path), `${method} ${path}`).toBe("viewer");
    }
  });

  it("index operations are operator; writes, deletes and settings are admin", () => {
    for (const [method, path] of [
      ["POST", "logs/_close"],
      ["POST", "logs-2024.01/_open"],
      ["POST", "_refresh"],
      ["GET", "logs/_flush"],
      ["POST", "_cache/clear"],
      ["POST", "logs/_cache/clear"],
      ["POST", "logs/_forcemerge?max_num_segments=1"],
    ] as const) {
      expect(relayNeeds(method, path), `${method} ${path}`).toBe("operator");
    }
    for (const [method, path] of [
      ["PUT", "logs"],
      ["DELETE", "logs"],
      ["DELETE", "logs/_close"],
      ["POST", "logs/_doc"],
      ["POST", "_bulk"],
      ["POST", "logs/_delete_by_query"],
      ["PUT", "_cluster/settings"],
      ["DELETE", "_search/point_in_time/_all"],
      ["POST", "_cluster/_search"],
    ] as const) {
      expect(relayNeeds(method, path), `${method} ${path}`).toBe("admin");
    }
  });

  it("paths that only look read-only are admin, as on the server", () => {
    for (const path of ["_search_evil", "x/_search/extra", "x%2F_search", "x//_search", "x/_search/../_delete", "x/%2e%2e/_search"]) {
      expect(relayNeeds("POST", path), path).toBe("admin");
    }
    expect(segments("a//b")).toBeNull();
    expect(segments("/logs/_search/")).toEqual(["logs", "_search"]);
    expect(segments("%255Fsearch")).toEqual(["_search"]);
  });

  it("SQL is viewer only for one SELECT, SHOW or DESCRIBE, or a cursor", () => {
    expect(relayNeeds("POST", "_sql", '{"query": "SELECT * FROM logs"}')).toBe("viewer");
    expect(relayNeeds("POST", "_plugins/_sql?format=txt", '{"query": "-- hi\\n show tables"}')).toBe("viewer");
    expect(relayNeeds("POST", "_sql", '{"cursor": "abc"}')).toBe("viewer");
    expect(relayNeeds("POST", "_sql/close", '{"cursor": "abc"}')).toBe("viewer");
    expect(relayNeeds("POST", "_sql", '{"query": "DELETE FROM logs"}')).toBe("admin");
    expect(relayNeeds("POST", "_sql", '{"query": "SELECT 1; DELETE FROM logs"}')).toBe("admin");
    expect(relayNeeds("POST", "_sql?sql=DELETE", '{"query": "SELECT 1"}')).toBe("admin");
    expect(relayNeeds("POST", "_sql", "not json")).toBe("admin");
    expect(relayNeeds("PUT", "_sql", '{"query": "SELECT 1"}')).toBe("admin");
    expect(isReadOnlyStatement("(SELECT 1);")).toBe(true);
    expect(isReadOnlyStatement("selection")).toBe(false);
  });
});

describe("roles", () => {
  const whoami: WhoAmI = { mode: "trusted_headers", user: "vera", email: null, groups: [], roles: { prod: "viewer" } };

  it("a cluster whoami does not list is none; roles are ordered", () => {
    expect(roleOn(whoami, "prod")).toBe("viewer");
    expect(roleOn(whoami, "other")).toBe("none");
    expect(roleOn(whoami, "constructor")).toBe("none");
    expect(allows("admin", "operator")).toBe(true);
    expect(allows("viewer", "operator")).toBe(false);
  });

  it("the reason names the role needed and the caller's", () => {
    expect(denial("viewer", "operator")).toBe("Needs the operator role; you have viewer.");
    expect(denial("operator", "admin")).toBe("Needs the admin role; you have operator.");
    expect(denial("operator", "operator")).toBeNull();
  });
});
