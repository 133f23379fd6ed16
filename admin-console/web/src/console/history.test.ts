import { describe, expect, it } from "vitest";
import {
  EXPORT_FORMAT,
  HistoryStore,
  MAX_IMPORT_BYTES,
  exportFileName,
  exportHistory,
  historyKey,
  mergeEntries,
  parseHistoryImport,
  type HistoryEntry,
} from "./history";
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

describe("history export and import", () => {
  it("exports a versioned file that imports back whole", () => {
    const entries = [entry("_cluster/health", 2, { status: 200, durationMs: 4 }), entry("x/_search", 1, { method: "POST", body: "{}" })];
    const file = exportHistory("prod eu", entries, new Date("2026-11-24T10:00:00Z"));
    expect(file).toMatchObject({ format: EXPORT_FORMAT, version: 1, cluster: "prod eu", exportedAt: "2026-11-24T10:00:00.000Z" });
    expect(exportFileName("prod eu/../x", new Date("2026-11-24T10:00:00Z"))).toBe("console-history-prod_eu_.._x-2026-11-24.json");
    const back = parseHistoryImport(JSON.stringify(file));
    expect(back).toEqual({ ok: true, entries, skipped: 0 });
  });

  it("refuses bad JSON, a wrong shape, another version and an oversized file with a clear message", () => {
    const message = (text: string, size?: number) => {
      const result = parseHistoryImport(text, size);
      return result.ok ? "accepted" : result.message;
    };
    expect(message("{ not json")).toMatch(/^The file is not JSON: /);
    expect(message('"text"')).toMatch(/not a console history export/);
    expect(message("null")).toMatch(/not a console history export/);
    expect(message('{"entries": []}')).toMatch(/"format" should be "admin-console-history"/);
    expect(message('{"format": "admin-console-history", "version": 9, "entries": []}')).toMatch(/version 9/);
    expect(message('{"format": "admin-console-history", "version": 1, "entries": {}}')).toMatch(/"entries" should be a list/);
    expect(message('{"format": "admin-console-history", "version": 1, "entries": []}')).toBe("The file holds no requests.");
    expect(message('[{"method": "TRACE", "path": "/", "executedAt": 1}, {"path": 3}]')).toMatch(/None of the 2 entries/);
    expect(message("[]", MAX_IMPORT_BYTES + 1)).toMatch(/too large/);
  });

  it("keeps only checked fields of valid entries and counts the others", () => {
    const result = parseHistoryImport(
      JSON.stringify([
        { method: "GET", path: "/ok", executedAt: 5, status: 200, extra: "<script>", durationMs: -1 },
        { method: "DELETE", path: "/x".repeat(5000), executedAt: 1 },
        { method: "GET", path: "/y", executedAt: 2, status: "200" },
        "nonsense",
      ]),
    );
    expect(result).toEqual({
      ok: true,
      entries: [
        { method: "GET", path: "/ok", executedAt: 5, status: 200 },
        { method: "GET", path: "/y", executedAt: 2 },
      ],
      skipped: 2,
    });
  });

  it("merges without duplicates, the newer of two identical requests kept, within the limit", () => {
    const store = new HistoryStore(memoryStorage(), 3);
    store.add("a", entry("/one", 10));
    store.add("a", entry("/two", 20));
    const { entries } = store.merge("a", [entry("/one", 30, { status: 200 }), entry("/two", 5), entry("/three", 1), entry("/four", 25)]);
    expect(entries.map((e) => [e.path, e.executedAt])).toEqual([
      ["/one", 30],
      ["/four", 25],
      ["/two", 20],
    ]);
    expect(mergeEntries([], [entry("/a", 1), entry("/a", 1)])).toHaveLength(1);
  });
});
