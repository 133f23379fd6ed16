// A small History-API router: a cluster's views, each with an optional item (an index, a node),
// not worth a routing library.
import { useEffect, useSyncExternalStore } from "react";

const listeners = new Set<() => void>();
function notify() {
  for (const l of listeners) l();
}
window.addEventListener("popstate", notify);

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const snapshot = () => window.location.pathname + window.location.search;

export function useLocation(): { pathname: string; search: string } {
  const href = useSyncExternalStore(subscribe, snapshot);
  const q = href.indexOf("?");
  return q < 0 ? { pathname: href, search: "" } : { pathname: href.slice(0, q), search: href.slice(q) };
}

export function navigate(to: string, options: { replace?: boolean } = {}) {
  if (to === snapshot()) return;
  if (options.replace) window.history.replaceState(null, "", to);
  else window.history.pushState(null, "", to);
  notify();
}

export type Route =
  | { name: "clusters" }
  | { name: "cluster"; clusterId: string; view: ClusterView; item?: string }
  | { name: "not-found" };

export type ClusterView =
  | "overview"
  | "nodes"
  | "indices"
  | "shards"
  | "aliases"
  | "data_streams"
  | "templates"
  | "tasks"
  | "snapshots"
  | "settings"
  | "analyze"
  | "cat"
  | "compare"
  | "security"
  | "statistics";
export const CLUSTER_VIEWS: ReadonlyArray<{ id: ClusterView; label: string }> = [
  { id: "overview", label: "Overview" },
  { id: "nodes", label: "Nodes" },
  { id: "indices", label: "Indices" },
  { id: "shards", label: "Shards" },
  { id: "aliases", label: "Aliases" },
  { id: "data_streams", label: "Data streams" },
  { id: "templates", label: "Templates" },
  { id: "tasks", label: "Tasks" },
  { id: "snapshots", label: "Snapshots" },
  { id: "settings", label: "Settings" },
  { id: "analyze", label: "Analyze" },
  { id: "cat", label: "Cat APIs" },
  { id: "compare", label: "Compare" },
  { id: "security", label: "Security" },
  { id: "statistics", label: "Statistics" },
];

export function matchRoute(pathname: string): Route {
  if (pathname === "/" || pathname === "" || pathname === "/clusters") return { name: "clusters" };
  const m = /^\/clusters\/([^/]+)(?:\/([^/]+)(?:\/([^/]+))?)?\/?$/.exec(pathname);
  if (m) {
    const view = (m[2] ?? "overview") as ClusterView;
    if (CLUSTER_VIEWS.some((v) => v.id === view)) {
      const route: Route = { name: "cluster", clusterId: decodeURIComponent(m[1]), view };
      return m[3] === undefined ? route : { ...route, item: decodeURIComponent(m[3]) };
    }
  }
  return { name: "not-found" };
}

/** The path of a cluster's view, or of one item in it (`/clusters/prod/indices/logs-1`). */
export function clusterPath(clusterId: string, view: ClusterView = "overview", item?: string): string {
  const base = `/clusters/${encodeURIComponent(clusterId)}`;
  if (item !== undefined) return `${base}/${view}/${encodeURIComponent(item)}`;
  return view === "overview" ? base : `${base}/${view}`;
}

/** Keeps the document title in step with the view. */
export function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Admin console`;
  }, [title]);
}
