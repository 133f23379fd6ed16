// What is wrong behind a record — its backends, certificates and route conditions — summarised
// once per record object, so the table's rows, filters and sorting only read numbers and short
// lists. Records are replaced, never mutated, so a WeakMap follows their lifetime.

import type { BackendState, BackendStatus, CertificateStatus, IngressRecord, RouteCondition } from "../api/wire";
import { isRouteKind } from "./kinds";

export const DAY_MS = 86_400_000;
/** The "expires within N days" default when the server does not say (`certificates.expiry_warning_days`). */
export const DEFAULT_EXPIRY_WARNING_DAYS = 14;

/** Worse states rank higher; `unknown` (cannot be read) is not a backend's fault. */
const BACKEND_RANK: Record<BackendState, number> = {
  ready: 0,
  unknown: 0,
  degraded: 1,
  no_ready_endpoints: 2,
  missing_service: 3,
};

export interface BackendSummary {
  /** Backends that are degraded, have no ready endpoint or whose Service is missing; worst first. */
  problems: BackendStatus[];
  /** The worst of `problems`' states. */
  worst: BackendState | null;
  /** Some backend has no ready endpoint (a missing Service included). */
  unready: boolean;
  /** Backends whose state cannot be read. */
  unknown: number;
}

export interface CertificateSummary {
  /** The earliest `notAfter` of the record's certificates (epoch ms); null when none is known. */
  earliestExpiry: number | null;
  /** The certificate that expires first. */
  earliest: CertificateStatus | null;
  /** Hosts some certificate should cover but does not, with the secret that misses them. */
  missing: { secretName: string; hosts: string[] }[];
  /** Certificates meant to be read whose reading failed (a missing Secret, a bad tls.crt). */
  errors: { secretName: string; error: string }[];
}

export type RouteState = "accepted" | "problem" | "pending" | "no_status";

export interface RouteSummary {
  state: RouteState;
  /** Negative conditions: Accepted or ResolvedRefs False, PartiallyInvalid True. */
  problems: RouteCondition[];
}

export interface RecordHealth {
  backends: BackendSummary;
  certificates: CertificateSummary;
  /** HTTPRoutes only. */
  route: RouteSummary | null;
  /** 0 (nothing wrong) to 3 (a backend Service is missing), for sorting; expiry is not in it (it moves with time). */
  severity: number;
}

const cache = new WeakMap<IngressRecord, RecordHealth>();

export function recordHealth(record: IngressRecord): RecordHealth {
  let health = cache.get(record);
  if (health === undefined) {
    health = computeHealth(record);
    cache.set(record, health);
  }
  return health;
}

function computeHealth(record: IngressRecord): RecordHealth {
  const backends = summariseBackends(record.backends ?? []);
  const certificates = summariseCertificates(record.certificates ?? []);
  const route = isRouteKind(record.kind) ? summariseRoute(record.route?.conditions ?? []) : null;
  const severity = Math.max(
    backends.worst ? BACKEND_RANK[backends.worst] : 0,
    route?.state === "problem" ? 2 : 0,
    certificates.missing.length || certificates.errors.length ? 1 : 0,
  );
  return { backends, certificates, route, severity };
}

export function summariseBackends(backends: readonly BackendStatus[]): BackendSummary {
  const problems = backends.filter((b) => BACKEND_RANK[b.state] > 0).sort((a, b) => BACKEND_RANK[b.state] - BACKEND_RANK[a.state]);
  return {
    problems,
    worst: problems[0]?.state ?? null,
    unready: problems.some((b) => b.state === "no_ready_endpoints" || b.state === "missing_service"),
    unknown: backends.filter((b) => b.state === "unknown").length,
  };
}

export function summariseCertificates(certificates: readonly CertificateStatus[]): CertificateSummary {
  let earliestExpiry: number | null = null;
  let earliest: CertificateStatus | null = null;
  const missing: CertificateSummary["missing"] = [];
  const errors: CertificateSummary["errors"] = [];
  for (const certificate of certificates) {
    const notAfter = certificate.notAfter ? Date.parse(certificate.notAfter) : NaN;
    if (!Number.isNaN(notAfter) && (earliestExpiry === null || notAfter < earliestExpiry)) {
      earliestExpiry = notAfter;
      earliest = certificate;
    }
    if (certificate.missingHosts.length) missing.push({ secretName: certificate.secretName, hosts: certificate.missingHosts });
    // Not reading Secrets is a setting, not a fault: its reason shows in the details panel.
    if (certificate.error && certificate.source !== "not_read") errors.push({ secretName: certificate.secretName, error: certificate.error });
  }
  return { earliestExpiry, earliest, missing, errors };
}

/**
 * An HTTPRoute's state from its parents' conditions (Gateway API: a controller MUST set
 * Accepted; ResolvedRefs False means a reference, such as a backend, cannot be resolved;
 * PartiallyInvalid True means some rules were dropped).
 */
export function summariseRoute(conditions: readonly RouteCondition[]): RouteSummary {
  if (conditions.length === 0) return { state: "no_status", problems: [] };
  const problems = conditions.filter(
    (c) => ((c.type === "Accepted" || c.type === "ResolvedRefs") && c.status === "False") || (c.type === "PartiallyInvalid" && c.status === "True"),
  );
  if (problems.length) return { state: "problem", problems };
  const accepted = conditions.some((c) => c.type === "Accepted" && c.status === "True");
  const pending = conditions.some((c) => c.status === "Unknown");
  return { state: accepted && !pending ? "accepted" : "pending", problems: [] };
}

/** Whether a known certificate of the record expires within `days` days of `now` (expired ones too). */
export function expiresWithin(record: IngressRecord, days: number, now: number): boolean {
  const { earliestExpiry } = recordHealth(record).certificates;
  return earliestExpiry !== null && earliestExpiry - now <= days * DAY_MS;
}
