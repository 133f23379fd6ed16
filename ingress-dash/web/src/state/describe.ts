// Plain-text descriptions of record parts, shared by the table, the details panel and sorting.

import type { Backend, BackendState, BackendStatus, CertificateSource, IngressRecord, ParentRef, RecordKind, RouteBackendRef } from "../api/wire";
import { DAY_MS, recordHealth } from "./health";

export const ROUTE_KEY_PREFIX = "httproute/";

/** The key prefix of each kind (an ingress has none): the kinds may share a name. */
const KEY_PREFIXES: Record<RecordKind, string> = {
  Ingress: "",
  HTTPRoute: ROUTE_KEY_PREFIX,
  GRPCRoute: "grpcroute/",
  TLSRoute: "tlsroute/",
};

/** The key prefixes of the route kinds other than HTTPRoute, with their kind. */
export const OTHER_ROUTE_PREFIXES: readonly (readonly [string, RecordKind])[] = [
  ["grpcroute/", "GRPCRoute"],
  ["tlsroute/", "TLSRoute"],
];

/**
 * A record's key in the URL and the table: `namespace/name` for an ingress,
 * `httproute/namespace/name` for an HTTPRoute, `grpcroute/…` and `tlsroute/…` for the others.
 */
export function recordKey(record: Pick<IngressRecord, "kind" | "namespace" | "name">): string {
  return `${KEY_PREFIXES[record.kind] ?? ""}${record.namespace}/${record.name}`;
}

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
  return formatDuration(now - created);
}

/** A duration as kubectl prints ages (negative ones as zero). */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
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

/** "in 4d23h" or "3d ago", for certificate dates. */
export function formatRelative(epochMs: number, now: number): string {
  return epochMs >= now ? `in ${formatDuration(epochMs - now)}` : `${formatDuration(now - epochMs)} ago`;
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

export const BACKEND_STATE_LABELS: Record<BackendState, string> = {
  ready: "ready",
  degraded: "degraded",
  no_ready_endpoints: "no ready endpoints",
  missing_service: "service missing",
  unknown: "unknown",
};

export const CERTIFICATE_SOURCE_LABELS: Record<CertificateSource, string> = {
  secret: "Secret",
  cert_manager: "cert-manager Certificate",
  not_read: "not read",
};

/** `app:80`, or `other-ns/app:80` when the Service is in another namespace than the record. */
export function describeBackendService(backend: Pick<BackendStatus, "namespace" | "service" | "port">, recordNamespace: string): string {
  const name = backend.namespace && backend.namespace !== recordNamespace ? `${backend.namespace}/${backend.service}` : backend.service;
  return backend.port === null ? name : `${name}:${backend.port}`;
}

/** `app:80 (ready 0/3)`: a backend with its endpoint counts, for tooltips and screen readers. */
export function describeBackendState(backend: BackendStatus, recordNamespace: string): string {
  const service = describeBackendService(backend, recordNamespace);
  if (backend.state === "missing_service") return `${service} (service missing)`;
  if (backend.state === "unknown") return `${service} (unknown)`;
  return `${service} (${BACKEND_STATE_LABELS[backend.state]}, ${backend.readyEndpoints}/${backend.totalEndpoints} endpoints ready)`;
}

/** `gateway-system/public` (with `/section` or `:port` when the reference names one). */
export function describeParent(parent: ParentRef): string {
  const kind = parent.kind && parent.kind !== "Gateway" ? `${parent.kind} ` : "";
  return `${kind}${parent.namespace}/${parent.name}${parent.sectionName ? `/${parent.sectionName}` : ""}${parent.port === null ? "" : `:${parent.port}`}`;
}

/** An HTTPRoute's parent gateways, for the table's class column. */
export function parentsSummary(record: IngressRecord): string {
  return (record.route?.parentRefs ?? []).map(describeParent).join(", ");
}

export function describeRouteBackendRef(ref: RouteBackendRef, recordNamespace: string): string {
  const kind = ref.kind && ref.kind !== "Service" ? `${ref.kind} ` : "";
  const name = ref.namespace && ref.namespace !== recordNamespace ? `${ref.namespace}/${ref.name}` : ref.name;
  return `${kind}${name}${ref.port === null ? "" : `:${ref.port}`}`;
}

export type BadgeTone = "ok" | "info" | "warn" | "danger";

/** A row badge: short visible text (never colour alone) and a sentence for tooltips and screen readers. */
export interface Badge {
  kind: "backend" | "certificate" | "hosts" | "route";
  tone: BadgeTone;
  text: string;
  detail: string;
}

const BACKEND_BADGE_TEXT: Partial<Record<BackendState, string>> = {
  missing_service: "Service missing",
  no_ready_endpoints: "No ready endpoints",
  degraded: "Degraded",
};

/**
 * The badges of a row: backends not ready (count and worst state), a certificate expired or
 * expiring within `warningDays`, hosts no certificate covers, and an HTTPRoute's conditions.
 * Reads the precomputed summary; only the expiry depends on `now`. Worst first.
 */
export function rowBadges(record: IngressRecord, now: number, warningDays: number): Badge[] {
  const health = recordHealth(record);
  const badges: Badge[] = [];
  const { backends, certificates, route } = health;

  if (route) {
    if (route.state === "problem") {
      const first = route.problems[0];
      if (first)
        badges.push({
          kind: "route",
          tone: "warn",
          text: `${first.type}: ${first.reason || first.status}`,
          detail: route.problems.map((c) => `${c.type} ${c.status} (${c.reason}) from ${c.parent}${c.message ? `: ${c.message}` : ""}`).join("; "),
        });
    } else if (route.state === "accepted") {
      badges.push({ kind: "route", tone: "ok", text: "Accepted", detail: "Accepted by its parent gateways, every reference resolved" });
    } else if (route.state === "pending") {
      badges.push({ kind: "route", tone: "info", text: "Pending", detail: "A parent gateway has not decided on this route yet" });
    } else {
      badges.push({ kind: "route", tone: "info", text: "No status", detail: "No gateway controller has reported on this route" });
    }
  }

  if (backends.worst) {
    const n = backends.problems.length;
    const text = BACKEND_BADGE_TEXT[backends.worst] ?? backends.worst;
    badges.push({
      kind: "backend",
      tone: backends.worst === "degraded" ? "warn" : "danger",
      text: n > 1 ? `${text} (${n})` : text,
      detail: `${n} backend${n > 1 ? "s" : ""} not ready: ${backends.problems.map((b) => describeBackendState(b, record.namespace)).join(", ")}`,
    });
  }

  const { earliest, earliestExpiry } = certificates;
  if (earliest && earliestExpiry !== null) {
    if (earliestExpiry <= now) {
      badges.push({
        kind: "certificate",
        tone: "danger",
        text: "Cert expired",
        detail: `Certificate ${earliest.secretName} expired ${formatRelative(earliestExpiry, now)} (${earliest.notAfter})`,
      });
    } else if (earliestExpiry - now <= warningDays * DAY_MS) {
      badges.push({
        kind: "certificate",
        tone: "warn",
        text: `Cert expires ${formatRelative(earliestExpiry, now)}`,
        detail: `Certificate ${earliest.secretName} expires ${formatRelative(earliestExpiry, now)} (${earliest.notAfter})`,
      });
    }
  }
  if (certificates.errors.length) {
    badges.push({
      kind: "certificate",
      tone: "danger",
      text: "Cert error",
      detail: certificates.errors.map((e) => `${e.secretName}: ${e.error}`).join("; "),
    });
  }
  if (certificates.missing.length) {
    const hosts = [...new Set(certificates.missing.flatMap((m) => m.hosts))];
    badges.push({
      kind: "hosts",
      tone: "warn",
      text: hosts.length > 1 ? `${hosts.length} hosts not covered` : "Host not covered",
      detail: certificates.missing.map((m) => `${m.hosts.join(", ")} not covered by the certificate in ${m.secretName}`).join("; "),
    });
  }
  // The worst first, so a narrow cell still shows it (the order within a tone stays).
  return badges.sort((a, b) => TONE_RANK[b.tone] - TONE_RANK[a.tone]);
}

const TONE_RANK: Record<BadgeTone, number> = { danger: 3, warn: 2, info: 1, ok: 0 };
