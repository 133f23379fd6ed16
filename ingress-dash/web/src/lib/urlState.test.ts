import { describe, expect, it } from "vitest";
import { defaultSort, emptyFilters } from "../state/filters";
import { formatViewState, parseViewState } from "./urlState";

describe("view state in the URL", () => {
  it("an empty query is the default view", () => {
    expect(parseViewState("")).toEqual({ filters: emptyFilters, sort: defaultSort, selected: null });
    expect(formatViewState({ filters: emptyFilters, sort: defaultSort, selected: null })).toBe("");
  });

  it("round-trips every field", () => {
    const view = {
      filters: {
        search: "shop api",
        namespaces: ["a", "b"],
        classes: ["nginx", ""],
        tls: "tls" as const,
        labels: "app=web,tier!=db",
        kind: "HTTPRoute" as const,
        backends: "no_ready_endpoints" as const,
        expiresWithinDays: 7,
      },
      sort: { key: "age" as const, descending: true },
      selected: "shop/web",
    };
    const query = formatViewState(view);
    expect(query).toContain("namespaces=a,b");
    expect(query).toContain("sort=-age");
    expect(query).toContain("kind=HTTPRoute");
    expect(query).toContain("backends=no_ready_endpoints");
    expect(query).toContain("expires=7");
    expect(parseViewState(query)).toEqual(view);
  });

  it("drops namespace names that are not DNS-1123 labels", () => {
    expect(parseViewState("?namespaces=shop,Bad_Name,,ops").filters.namespaces).toEqual(["shop", "ops"]);
  });

  it("ignores unknown values", () => {
    const view = parseViewState("?sort=bogus&tls=maybe&kind=Gateway&backends=all&expires=-1");
    expect(view.sort).toEqual(defaultSort);
    expect(view.filters.tls).toBe("any");
    expect(view.filters.kind).toBe("any");
    expect(view.filters.backends).toBe("any");
    expect(view.filters.expiresWithinDays).toBeNull();
    expect(parseViewState("?expires=1e3").filters.expiresWithinDays).toBeNull();
    expect(parseViewState("?expires=99999").filters.expiresWithinDays).toBeNull();
    expect(parseViewState("?expires=0").filters.expiresWithinDays).toBe(0);
  });

  it("an HTTPRoute in the details panel is route=ns/name, apart from an ingress of the same name", () => {
    const route = { filters: emptyFilters, sort: defaultSort, selected: "httproute/team-000/checkout" };
    expect(formatViewState(route)).toBe("?route=team-000/checkout");
    expect(parseViewState("?route=team-000/checkout")).toEqual(route);
    expect(parseViewState("?ingress=team-000/checkout").selected).toBe("team-000/checkout");
  });

  it("a GRPCRoute or TLSRoute in the details panel is route= its whole key", () => {
    for (const selected of ["grpcroute/team-000/cart", "tlsroute/team-000/db"]) {
      const view = { filters: emptyFilters, sort: defaultSort, selected };
      expect(formatViewState(view)).toBe(`?route=${selected}`);
      expect(parseViewState(`?route=${selected}`)).toEqual(view);
    }
  });
});
