// The merges of the console's tabs with the server's (no network).
import { describe, expect, it } from "vitest";
import { TAB_LIMIT, type ConsoleTabs } from "./tabs";
import { fromServer, mergeConflict, mergeOnLoad, type ServerTabs } from "./tabsSync";

const tab = (id: string, text = id) => ({ id, title: id.toUpperCase(), text });
const server = (ids: string[], active: string | null, version = 3): ServerTabs => ({
  cluster: "prod",
  tabs: ids.map((id) => tab(id, `${id} (server)`)),
  active,
  version,
  updated_at: "2026-11-28T12:00:00Z",
});
const local = (ids: string[], active: string): ConsoleTabs => ({ tabs: ids.map((id) => tab(id)), active });

describe("tabs on the server", () => {
  it("reads nothing stored as nothing, and an unknown active tab as the first", () => {
    expect(fromServer(server([], null, 0))).toBeNull();
    expect(fromServer(server(["a", "b"], "gone"))?.active).toBe("a");
  });

  it("at load, the stored tabs win, plus the tabs this page opened", () => {
    const mine = local(["a", "old", "opened"], "opened");
    const loaded = mergeOnLoad(mine, server(["a", "b"], "b"), new Set(["opened"]));
    expect(loaded.tabs.map((t) => t.id)).toEqual(["a", "b", "opened"]);
    expect(loaded.tabs[0].text).toBe("a (server)");
    expect(loaded.active).toBe("opened");
    expect(mergeOnLoad(mine, server(["a"], "a"), new Set()).tabs.map((t) => t.id)).toEqual(["a"]);
    expect(mergeOnLoad(mine, server([], null, 0), new Set())).toBe(mine);
  });

  it("after a conflict, both browsers' tabs are kept and this one's edits win", () => {
    const merged = mergeConflict(local(["a", "mine"], "mine"), server(["a", "theirs"], "theirs"));
    expect(merged.tabs.map((t) => t.id)).toEqual(["a", "theirs", "mine"]);
    expect(merged.tabs[0].text).toBe("a");
    expect(merged.active).toBe("mine");
  });

  it("a merge keeps at most the cap, the newest", () => {
    const ids = Array.from({ length: TAB_LIMIT }, (_, n) => `s${n}`);
    const merged = mergeConflict(local(["m1", "m2"], "m2"), server(ids, "s0"));
    expect(merged.tabs).toHaveLength(TAB_LIMIT);
    expect(merged.tabs.at(-1)?.id).toBe("m2");
    expect(merged.active).toBe("m2");
  });
});
