// @vitest-environment jsdom
// The console tab model and the "Open in console" helper.
import { describe, expect, it } from "vitest";
import { memoryStorage } from "../lib/storage";
import {
  OPEN_EVENT,
  TAB_LIMIT,
  activeTab,
  addTab,
  closeTab,
  initialTabs,
  loadTabs,
  openInConsole,
  parseTabs,
  pathOf,
  renameTab,
  requestText,
  setActiveText,
  storeTabs,
  switchTab,
  takePending,
  withRequests,
} from "./tabs";

describe("console tabs", () => {
  it("adds a tab that becomes active while the others keep their text", () => {
    const first = setActiveText(initialTabs("GET /"), "GET /_cat/indices");
    const next = addTab(first, "GET /_cluster/health");
    expect(next.tabs).toHaveLength(2);
    expect(activeTab(next).text).toBe("GET /_cluster/health");
    expect(next.tabs[0].text).toBe("GET /_cat/indices");
    expect(next.tabs[1].title).toBe("Console 2");
  });

  it("edits only the active tab's text and switches between tabs", () => {
    let state = addTab(initialTabs("one"), "two");
    state = setActiveText(state, "two!");
    expect(state.tabs.map((t) => t.text)).toEqual(["one", "two!"]);
    state = switchTab(state, state.tabs[0].id);
    expect(activeTab(state).text).toBe("one");
    expect(switchTab(state, "missing")).toBe(state);
  });

  it("closing the active tab activates its neighbour and the last tab is only emptied", () => {
    let state = addTab(addTab(initialTabs("a"), "b"), "c");
    state = switchTab(state, state.tabs[1].id);
    state = closeTab(state, state.tabs[1].id);
    expect(state.tabs.map((t) => t.text)).toEqual(["a", "c"]);
    expect(activeTab(state).text).toBe("c");
    state = closeTab(closeTab(state, state.tabs[1].id), state.tabs[0].id, "GET /");
    expect(state.tabs).toHaveLength(1);
    expect(activeTab(state).text).toBe("GET /");
  });

  it("renames with a cleaned, capped title and ignores an empty one", () => {
    const state = initialTabs("");
    const id = state.tabs[0].id;
    expect(renameTab(state, id, "  Slow\nlogs  ").tabs[0].title).toBe("Slow logs");
    expect(renameTab(state, id, "   ")).toBe(state);
    expect(renameTab(state, id, "x".repeat(500)).tabs[0].title).toHaveLength(60);
  });

  it("keeps at most the cap of tabs, dropping the oldest inactive one", () => {
    let state = initialTabs("0");
    for (let n = 1; n <= TAB_LIMIT + 2; n += 1) state = addTab(state, String(n));
    expect(state.tabs).toHaveLength(TAB_LIMIT);
    expect(activeTab(state).text).toBe(String(TAB_LIMIT + 2));
    expect(state.tabs[0].text).toBe("3");
  });

  it("survives a round trip through storage, per cluster", () => {
    const storage = memoryStorage();
    const state = switchTab(addTab(initialTabs("a"), "b"), "nope");
    expect(storeTabs(storage, "prod", state)).toBe(true);
    expect(loadTabs(storage, "prod")).toEqual(state);
    expect(loadTabs(storage, "staging")).toBeNull();
  });

  it("drops what is malformed in a stored value", () => {
    expect(parseTabs("not json")).toBeNull();
    expect(parseTabs(JSON.stringify({ tabs: [] }))).toBeNull();
    const parsed = parseTabs(
      JSON.stringify({
        tabs: [{ id: "a", title: "A", text: "x" }, { id: "a", text: "dup" }, { id: 3, text: "y" }, { id: "b", text: "z" }],
        active: "gone",
      }),
    );
    expect(parsed?.tabs.map((t) => t.id)).toEqual(["a", "b"]);
    expect(parsed?.tabs[1].title).toBe("Console 2");
    expect(parsed?.active).toBe("a");
  });

  it("reports a storage that refuses", () => {
    const refusing = { getItem: () => null, setItem: () => { throw new Error("quota"); }, removeItem: () => {} };
    expect(storeTabs(refusing, "prod", initialTabs(""))).toBe(false);
  });
});

describe("open in console", () => {
  it("encodes each name as one path segment", () => {
    expect(pathOf("_alias", "logs/2026 #1?")).toBe("/_alias/logs%2F2026%20%231%3F");
    expect(pathOf("my-index", "_settings")).toBe("/my-index/_settings");
  });

  it("writes the request line and a pretty body", () => {
    expect(requestText({ method: "GET", path: "/_tasks/n1%3A5" })).toBe("GET /_tasks/n1%3A5\n");
    expect(requestText({ method: "POST", path: "/_cluster/allocation/explain", body: { index: "a", shard: 0 } })).toBe(
      'POST /_cluster/allocation/explain\n{\n  "index": "a",\n  "shard": 0\n}\n',
    );
  });

  it("queues the request, signals the console and adds a new tab without touching the current one", () => {
    let signals = 0;
    const count = () => (signals += 1);
    window.addEventListener(OPEN_EVENT, count);
    openInConsole([
      { method: "GET", path: pathOf("logs 1", "_settings") },
      { method: "GET", path: pathOf("logs 1", "_mapping") },
    ]);
    openInConsole([]);
    window.removeEventListener(OPEN_EVENT, count);
    expect(signals).toBe(1);
    const before = setActiveText(initialTabs(""), "GET /mine");
    const after = withRequests(before, takePending());
    expect(takePending()).toEqual([]);
    expect(after.tabs[0].text).toBe("GET /mine");
    expect(activeTab(after).text).toBe("GET /logs%201/_settings\n\nGET /logs%201/_mapping\n");
    expect(activeTab(after).title).toBe("GET /logs 1/_settings");
  });
});
