// Plain-text descriptions of record parts, shared by the table, the details panel and sorting.

import type { Backend, IngressRecord } from "../api/wire";

export function describeBackend(backend: Backend): string {
  if ("service" in backend) return `${backend.service.name}:${backend.service.port}`;
  const { apiGroup, kind, name } = backend.resource;
  return `${apiGroup ? `${apiGroup}/` : ""}${kind}/${name}`;
}

export interface Route {
  host: string | null;
  path: string;
  pathType: string | null;
  backend: string;
}

/** Every path of every rule, then the default backend (path `*`), in spec order. */
export function routes(record: IngressRecord): Route[] {
  const out: Route[] = [];
  for (const rule of record.rules) {
    for (const p of rule.paths) {
      out.push({ host: rule.host, path: p.path ?? "/", pathType: p.pathType, backend: describeBackend(p.backend) });
    }
  }
  if (record.defaultBackend) {
    out.push({ host: null, path: "*", pathType: null, backend: describeBackend(record.defaultBackend) });
  }
  return out;
}

/** `/api → api:80, / → web:http` for the table cell. */
export function routesSummary(record: IngressRecord): string {
  // The same path and backend under several hosts reads once.
  return [...new Set(routes(record).map((r) => `${r.path} → ${r.backend}`))].join(", ");
}

export function tlsHostCount(record: IngressRecord): number {
  let n = 0;
  for (const t of record.tls) n += t.hosts.length;
  return n;
}

/** Ages as kubectl prints them: 45s, 5m12s, 37m, 4h12m, 19h, 3d4h, 210d, 2y45d. */
export function formatAge(createdAt: string, now: number): string {
  const created = Date.parse(createdAt);
  if (Number.isNaN(created)) return "?";
  const seconds = Math.max(0, Math.floor((now - created) / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return `${minutes}m${unit(seconds % 60, "s")}`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return `${hours}h${unit(minutes % 60, "m")}`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (days < 8) return `${days}d${unit(hours % 24, "h")}`;
  if (days < 730) return `${days}d`;
  return `${Math.floor(days / 365)}y${days % 365}d`;
}

/** The second part of an age, left out when zero ("4h", not "4h0m"). */
function unit(n: number, suffix: string): string {
  return n === 0 ? "" : `${n}${suffix}`;
}

/** 14:03, in the browser's time zone, for "stale since" and event times. */
export function formatClock(epochMs: number): string {
  const d = new Date(epochMs);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}
