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
      filters: { search: "shop api", namespaces: ["a", "b"], classes: ["nginx", ""], tls: "tls" as const, labels: "app=web,tier!=db" },
      sort: { key: "age" as const, descending: true },
      selected: "shop/web",
    };
    const query = formatViewState(view);
    expect(query).toContain("namespaces=a,b");
    expect(query).toContain("sort=-age");
    expect(parseViewState(query)).toEqual(view);
  });

  it("drops namespace names that are not DNS-1123 labels", () => {
    expect(parseViewState("?namespaces=shop,Bad_Name,,ops").filters.namespaces).toEqual(["shop", "ops"]);
  });

  it("ignores unknown values", () => {
    const view = parseViewState("?sort=bogus&tls=maybe");
    expect(view.sort).toEqual(defaultSort);
    expect(view.filters.tls).toBe("any");
  });
});
