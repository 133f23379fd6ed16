// The console's tabs: several texts side by side, one active. A pure model (every change returns
// a new value) kept per cluster in the browser's storage, and the "Open in console" helper that
// the views call to add a prefilled request in a new tab without touching the current one.
import type { KeyValueStorage } from "../lib/storage";

export interface ConsoleTab {
  id: string;
  title: string;
  text: string;
}

export interface ConsoleTabs {
  tabs: ConsoleTab[];
  active: string;
}

/** Caps, so one stored value stays small: tabs per cluster, characters per title and text. */
export const TAB_LIMIT = 20;
export const TITLE_LIMIT = 60;
export const TEXT_LIMIT = 64 * 1024;

const KEY_PREFIX = "admin-console.console-tabs.";

export function tabsKey(clusterId: string): string {
  return KEY_PREFIX + clusterId;
}

let counter = 0;
function newId(): string {
  counter += 1;
  return `t${Date.now().toString(36)}${counter.toString(36)}`;
}

export function initialTabs(text: string): ConsoleTabs {
  const tab = { id: newId(), title: "Console 1", text };
  return { tabs: [tab], active: tab.id };
}

export function activeTab(state: ConsoleTabs): ConsoleTab {
  return state.tabs.find((tab) => tab.id === state.active) ?? state.tabs[0];
}

function cleanTitle(title: string): string {
  return title.replace(/[\u0000-\u001f\u007f]/g, " ").trim().slice(0, TITLE_LIMIT);
}

/** A title not used yet: `Console N`. */
function freshTitle(state: ConsoleTabs): string {
  const used = new Set(state.tabs.map((tab) => tab.title));
  for (let n = state.tabs.length + 1; ; n += 1) {
    if (!used.has(`Console ${n}`)) return `Console ${n}`;
  }
}

/** Adds a tab after the others and makes it active; at the cap, the oldest inactive tab goes. */
export function addTab(state: ConsoleTabs, text: string, title?: string): ConsoleTabs {
  const tab = { id: newId(), title: cleanTitle(title ?? "") || freshTitle(state), text: text.slice(0, TEXT_LIMIT) };
  let tabs = state.tabs;
  if (tabs.length >= TAB_LIMIT) {
    const drop = tabs.findIndex((t) => t.id !== state.active);
    tabs = tabs.filter((_, i) => i !== drop);
  }
  return { tabs: [...tabs, tab], active: tab.id };
}

/** Closes a tab; the neighbour becomes active. The last tab is never closed (it is emptied). */
export function closeTab(state: ConsoleTabs, id: string, emptyText = ""): ConsoleTabs {
  const index = state.tabs.findIndex((tab) => tab.id === id);
  if (index < 0) return state;
  if (state.tabs.length === 1) {
    return { tabs: [{ ...state.tabs[0], text: emptyText }], active: state.tabs[0].id };
  }
  const tabs = state.tabs.filter((tab) => tab.id !== id);
  const active = state.active === id ? tabs[Math.min(index, tabs.length - 1)].id : state.active;
  return { tabs, active };
}

export function renameTab(state: ConsoleTabs, id: string, title: string): ConsoleTabs {
  const clean = cleanTitle(title);
  if (!clean) return state;
  return { ...state, tabs: state.tabs.map((tab) => (tab.id === id ? { ...tab, title: clean } : tab)) };
}

export function switchTab(state: ConsoleTabs, id: string): ConsoleTabs {
  return state.tabs.some((tab) => tab.id === id) ? { ...state, active: id } : state;
}

/** Replaces the active tab's text. */
export function setActiveText(state: ConsoleTabs, text: string): ConsoleTabs {
  const current = activeTab(state);
  if (current.text === text) return state;
  return { ...state, tabs: state.tabs.map((tab) => (tab.id === current.id ? { ...tab, text: text.slice(0, TEXT_LIMIT) } : tab)) };
}

/** Reads a stored value; anything malformed is dropped, tab by tab. */
export function parseTabs(raw: string | null): ConsoleTabs | null {
  if (!raw) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  if (!Array.isArray(v.tabs)) return null;
  const seen = new Set<string>();
  const tabs: ConsoleTab[] = [];
  for (const item of v.tabs.slice(0, TAB_LIMIT) as unknown[]) {
    if (typeof item !== "object" || item === null) continue;
    const t = item as Record<string, unknown>;
    if (typeof t.id !== "string" || !t.id || seen.has(t.id) || typeof t.text !== "string") continue;
    seen.add(t.id);
    const title = typeof t.title === "string" ? cleanTitle(t.title) : "";
    tabs.push({ id: t.id, title: title || `Console ${tabs.length + 1}`, text: t.text.slice(0, TEXT_LIMIT) });
  }
  if (tabs.length === 0) return null;
  const active = typeof v.active === "string" && seen.has(v.active) ? v.active : tabs[0].id;
  return { tabs, active };
}

export function loadTabs(storage: KeyValueStorage, clusterId: string): ConsoleTabs | null {
  try {
    return parseTabs(storage.getItem(tabsKey(clusterId)));
  } catch {
    return null;
  }
}

/** Stores the tabs; false when the browser refused (full, private mode). */
export function storeTabs(storage: KeyValueStorage, clusterId: string, state: ConsoleTabs): boolean {
  try {
    storage.setItem(tabsKey(clusterId), JSON.stringify(state));
    return true;
  } catch {
    return false;
  }
}

// ---- Open in console -------------------------------------------------------------------------

export interface ConsoleRequest {
  method: "GET" | "POST" | "PUT" | "DELETE" | "HEAD";
  /** Starts with `/`; names in it already encoded (see `pathOf`). */
  path: string;
  /** A JSON value, written pretty-printed below the request line. */
  body?: unknown;
  /** The new tab's title (default: the request line). */
  title?: string;
}

/**
 * A path from its segments, each URL-encoded: `pathOf("_alias", name)` → `/_alias/<name>`. A
 * name with `/`, `?`, `#` or spaces stays one segment.
 */
export function pathOf(...segments: string[]): string {
  return "/" + segments.map((segment) => encodeURIComponent(segment)).join("/");
}

/** The console text of one request. */
export function requestText(request: ConsoleRequest): string {
  const line = `${request.method} ${request.path}`;
  if (request.body === undefined) return line + "\n";
  return `${line}\n${JSON.stringify(request.body, null, 2)}\n`;
}

/** The event a view sends; the app opens the console and the console adds the tab. */
export const OPEN_EVENT = "admin-console:open-in-console";

/** Requests sent while the console was not mounted yet, taken by the console when it mounts. */
const pending: ConsoleRequest[][] = [];

/**
 * Opens the console with `request` in a new tab (the current tab keeps its text); a list makes
 * one tab with each request in turn.
 */
export function openInConsole(request: ConsoleRequest | ConsoleRequest[]): void {
  const requests = Array.isArray(request) ? request : [request];
  if (requests.length === 0) return;
  pending.push(requests);
  window.dispatchEvent(new CustomEvent(OPEN_EVENT));
}

/** The tabs waiting for the console, oldest first (emptied). */
export function takePending(): ConsoleRequest[][] {
  return pending.splice(0, pending.length);
}

/** Adds one tab per group of requests; the last one becomes active. */
export function withRequests(state: ConsoleTabs, groups: ConsoleRequest[][]): ConsoleTabs {
  return groups.reduce((next, group) => {
    const text = group.map(requestText).join("\n");
    const first = group[0];
    return addTab(next, text, first.title ?? `${first.method} ${decodeTitle(first.path)}`);
  }, state);
}

function decodeTitle(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
