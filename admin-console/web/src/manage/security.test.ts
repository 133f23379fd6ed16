// The Security view's form logic: lists, attributes and index permissions to and from text,
// the change bodies per dialect (an empty password on an edit is not sent).
import { describe, expect, it } from "vitest";
import { mappingChange, parseAttributes, parseIndexPermissions, roleChange, roleForm, securityNameProblem, splitList, userChange, userForm } from "./security";

describe("security forms", () => {
  it("reads lists, attributes and index permissions", () => {
    expect(splitList(" a, b ,, c ")).toEqual(["a", "b", "c"]);
    expect(parseAttributes("team=search\n\nx = y=z")).toEqual({ attributes: { team: "search", x: "y=z" }, problem: null });
    expect(parseAttributes("oops").problem).toContain("key=value");
    expect(parseIndexPermissions("logs-*, web-* : read, search")).toEqual({
      permissions: [{ indexPatterns: ["logs-*", "web-*"], actions: ["read", "search"] }],
      problem: null,
    });
    expect(parseIndexPermissions("logs-*").problem).toContain("index patterns : actions");
  });

  it("sends a password only when one is typed, and the dialect's fields", () => {
    const form = { ...userForm(), roles: "r1", fullName: "Bob", email: "b@example.com" };
    expect(userChange(form, "elasticsearch", true)).toEqual({ problem: "A new user needs a password." });
    const edit = userChange(form, "elasticsearch", false);
    expect(edit).toEqual({ change: { roles: ["r1"], attributes: {}, fullName: "Bob", email: "b@example.com", enabled: true } });
    const created = userChange({ ...form, password: "pw" }, "opensearch", true);
    expect(created).toEqual({ change: { roles: ["r1"], attributes: {}, password: "pw", backendRoles: [] } });
  });

  it("builds role and mapping bodies and names' problems", () => {
    const role = roleForm({ name: "r", description: null, clusterPermissions: ["monitor"], indexPermissions: [{ indexPatterns: ["a"], actions: ["read"] }], reserved: false });
    expect(roleChange(role)).toEqual({ change: { description: null, clusterPermissions: ["monitor"], indexPermissions: [{ indexPatterns: ["a"], actions: ["read"] }] } });
    expect(mappingChange({ name: "m", roles: "", users: "bob", backendRoles: "" }, "elasticsearch")).toEqual({ problem: "A role mapping needs at least one role." });
    expect(mappingChange({ name: "readall", roles: "", users: "bob", backendRoles: "g" }, "opensearch")).toEqual({ change: { users: ["bob"], backendRoles: ["g"] } });
    expect(securityNameProblem("a/b")).toContain("/");
    expect(securityNameProblem(" a")).toContain("space");
    expect(securityNameProblem("a,b")).toContain("comma");
    expect(securityNameProblem("ops*")).toContain("*");
    expect(securityNameProblem("alice")).toBeNull();
  });
});

describe("index permission lines", () => {
  it("split at the first ` : `, so `indices:` actions and `cluster:` permissions survive a round trip", () => {
    const saved = {
      name: "logs_reader",
      description: null,
      clusterPermissions: ["cluster:monitor/main", "cluster:admin/xpack/security/user/get"],
      indexPermissions: [
        { indexPatterns: ["logs-*", "remote:web-*"], actions: ["indices:data/read/search", "indices:admin/mappings/get"] },
        { indexPatterns: ["metrics-*"], actions: ["read"] },
      ],
      reserved: false,
    };
    const form = roleForm(saved);
    expect(form.indexPermissions).toBe("logs-*, remote:web-* : indices:data/read/search, indices:admin/mappings/get\nmetrics-* : read");
    expect(roleChange(form)).toEqual({
      change: { description: null, clusterPermissions: saved.clusterPermissions, indexPermissions: saved.indexPermissions },
    });
    expect(parseIndexPermissions("logs-* : indices:data/read/search").permissions).toEqual([
      { indexPatterns: ["logs-*"], actions: ["indices:data/read/search"] },
    ]);
    // Without the spaced separator the line is refused, never guessed at.
    expect(parseIndexPermissions("logs-*:indices:data/read/search").problem).toContain("index patterns : actions");
  });
});
