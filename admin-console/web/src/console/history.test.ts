import { describe, expect, it } from "vitest";
import { HistoryStore, historyKey, type HistoryEntry } from "./history";
import { memoryStorage, type KeyValueStorage } from "../lib/storage";

const entry = (path: string, at: number, extra: Partial<HistoryEntry> = {}): HistoryEntry => ({
  method: "GET",
  path,
  executedAt: at,
  ...extra,
});

describe("HistoryStore", () => {
  it("keeps entries newest first, per cluster, across store instances", () => {
    const storage = memoryStorage();
    const store = new HistoryStore(storage);
    store.add("a", entry("_cat/indices", 1));
    store.add("a", entry("_cluster/health", 2));
    store.add("b", entry("_nodes", 3));
    const reopened = new HistoryStore(storage);
    expect(reopened.list("a").map((e) => e.path)).toEqual(["_cluster/health", "_cat/indices"]);
    expect(reopened.list("b").map((e) => e.path)).toEqual(["_nodes"]);
    expect(reopened.list("c")).toEqual([]);
  });

  it("moves a repeated request to the top instead of duplicating it", () => {
    const store = new HistoryStore(memoryStorage());
    store.add("a", entry("x", 1));
    store.add("a", entry("y", 2));
    const { entries } = store.add("a", entry("x", 3, { status: 404 }));
    expect(entries.map((e) => [e.path, e.executedAt])).toEqual([
      ["x", 3],
      ["y", 2],
    ]);
    // A different body or method is a different request.
    store.add("a", entry("x", 4, { method: "POST", body: "{}" }));
    expect(store.list("a")).toHaveLength(3);
  });

  it("caps the number of entries, dropping the oldest", () => {
    const store = new HistoryStore(memoryStorage(), 3);
    for (let i = 0; i < 5; i++) store.add("a", entry(`p${i}`, i));
    expect(store.list("a").map((e) => e.path)).toEqual(["p4", "p3", "p2"]);
  });

  it("clears one cluster only", () => {
    const store = new HistoryStore(memoryStorage());
    store.add("a", entry("x", 1));
    store.add("b", entry("y", 1));
    store.clear("a");
    expect(store.list("a")).toEqual([]);
    expect(store.list("b")).toHaveLength(1);
  });

  it("ignores corrupted storage and foreign entries", () => {
    const storage = memoryStorage();
    storage.setItem(historyKey("a"), "{not json");
    const store = new HistoryStore(storage);
    expect(store.list("a")).toEqual([]);
    storage.setItem(
      historyKey("a"),
      JSON.stringify([entry("ok", 1), { method: "TRACE", path: "x", executedAt: 1 }, 42, null]),
    );
    expect(store.list("a").map((e) => e.path)).toEqual(["ok"]);
  });

  it("degrades gracefully when the quota is full", () => {
    const inner = memoryStorage();
    // Refuses values longer than 300 characters, like a nearly full quota.
    const tight: KeyValueStorage = {
      getItem: (k) => inner.getItem(k),
      removeItem: (k) => inner.removeItem(k),
      setItem: (k, v) => {
        if (v.length > 300) throw new DOMException("full", "QuotaExceededError");
        inner.setItem(k, v);
      },
    };
    const store = new HistoryStore(tight);
    let persisted = true;
    for (let i = 0; i < 10; i++) persisted = store.add("a", entry(`_search/path-${i}`, i)).persisted;
    expect(persisted).toBe(false);
    // The tab still shows all ten; storage holds the newest that fit.
    expect(store.list("a")).toHaveLength(10);
    const saved = JSON.parse(inner.getItem(historyKey("a"))!) as HistoryEntry[];
    expect(saved.length).toBeGreaterThan(0);
    expect(saved[0].path).toBe("_search/path-9");
  });

  it("survives a storage that throws on every call", () => {
    const broken: KeyValueStorage = {
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => {
        throw new Error("denied");
      },
      removeItem: () => {
        throw new Error("denied");
      },
    };
    const store = new HistoryStore(broken);
    expect(store.add("a", entry("x", 1)).persisted).toBe(false);
    expect(store.list("a").map((e) => e.path)).toEqual(["x"]);
    expect(() => store.clear("a")).not.toThrow();
  });
});
