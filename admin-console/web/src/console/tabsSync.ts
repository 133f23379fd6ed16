// The console's tabs on the server (`GET`/`PUT /api/console/tabs?cluster=`), so they follow the
// user to another browser or machine. Versioned: a write from a stale version (another browser
// of the same user wrote since) is a 409 with the stored tabs, merged here and written again.
// A store that is down (503) or a console that does not answer leaves the tabs in this browser.
import { CONSOLE_HEADERS, isErrorBody } from "../api/client";
import { TAB_LIMIT, type ConsoleTab, type ConsoleTabs } from "./tabs";

export interface ServerTabs {
  cluster: string;
  tabs: ConsoleTab[];
  active: string | null;
  /** 0: nothing stored yet. */
  version: number;
  updated_at: string | null;
}

export type SyncAnswer =
  | { kind: "ok"; server: ServerTabs }
  | { kind: "conflict"; current: ServerTabs }
  | { kind: "unavailable"; message: string };

const path = (cluster: string) => `/api/console/tabs?cluster=${encodeURIComponent(cluster)}`;

function isServerTabs(value: unknown): value is ServerTabs {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return Array.isArray(v.tabs) && typeof v.version === "number";
}

async function call(cluster: string, init: RequestInit, keepalive = false): Promise<SyncAnswer> {
  let response: Response;
  try {
    response = await fetch(path(cluster), {
      ...init,
      keepalive,
      headers: { Accept: "application/json", "Content-Type": "application/json", ...CONSOLE_HEADERS },
    });
  } catch {
    return { kind: "unavailable", message: "The admin console did not answer." };
  }
  const body: unknown = await response.json().catch(() => null);
  if (response.ok && isServerTabs(body)) return { kind: "ok", server: body };
  if (response.status === 409 && typeof body === "object" && body !== null) {
    const current = (body as { current?: unknown }).current;
    if (isServerTabs(current)) return { kind: "conflict", current };
  }
  return {
    kind: "unavailable",
    message: isErrorBody(body) ? body.error.message : `The admin console answered ${response.status}.`,
  };
}

export function fetchServerTabs(cluster: string): Promise<SyncAnswer> {
  return call(cluster, { method: "GET" });
}

/** `keepalive`: sent even while the page goes away (a reload, a closed tab). */
export function putServerTabs(cluster: string, state: ConsoleTabs, version: number, keepalive = false): Promise<SyncAnswer> {
  return call(cluster, { method: "PUT", body: JSON.stringify({ tabs: state.tabs, active: state.active, version }) }, keepalive);
}

/** The server's tabs as the console's, or null when none are stored. */
export function fromServer(server: ServerTabs): ConsoleTabs | null {
  if (server.tabs.length === 0) return null;
  const active = server.active && server.tabs.some((t) => t.id === server.active) ? server.active : server.tabs[0].id;
  return { tabs: server.tabs, active };
}

/**
 * `base`'s tabs, then `extra`'s tabs that `base` has not, at most the cap; `extra`'s text wins
 * for a tab both have when `extraWins`. The active tab is `active` if it is kept.
 */
export function mergeTabs(base: ConsoleTabs, extra: ConsoleTab[], extraWins: boolean, active: string): ConsoleTabs {
  const byId = new Map(extra.map((tab) => [tab.id, tab]));
  const tabs = base.tabs.map((tab) => (extraWins && byId.has(tab.id) ? (byId.get(tab.id) as ConsoleTab) : tab));
  const known = new Set(tabs.map((tab) => tab.id));
  for (const tab of extra) if (!known.has(tab.id)) tabs.push(tab);
  const kept = tabs.slice(Math.max(0, tabs.length - TAB_LIMIT));
  return { tabs: kept, active: kept.some((tab) => tab.id === active) ? active : kept[kept.length - 1].id };
}

/** After a 409: what is stored, with this browser's tabs over it (its edits are the newer here). */
export function mergeConflict(mine: ConsoleTabs, current: ServerTabs): ConsoleTabs {
  const theirs = fromServer(current);
  return theirs ? mergeTabs(theirs, mine.tabs, true, mine.active) : mine;
}

/**
 * At load: the stored tabs win (this browser's copy may be old), plus the tabs this page opened
 * before the answer came ("Open in console"), the last of them active.
 */
export function mergeOnLoad(local: ConsoleTabs, server: ServerTabs, openedHere: ReadonlySet<string>): ConsoleTabs {
  const stored = fromServer(server);
  if (!stored) return local;
  const opened = local.tabs.filter((tab) => openedHere.has(tab.id));
  if (opened.length === 0) return stored;
  return mergeTabs(stored, opened, true, opened[opened.length - 1].id);
}
