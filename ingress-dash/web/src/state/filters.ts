// The table's filters and sort order: pure functions over records, so they are unit-tested and
// the view only memoises their result.

import type { IngressRecord, RecordKind } from "../api/wire";
import { collator, compareSimple, compareText, isSimple } from "./collate";
import { parentsSummary, routes, tlsHostCount } from "./describe";
import { expiresWithin, recordHealth } from "./health";
import { matchesSelector, parseLabelSelector, type Requirement } from "./labelSelector";
import { isRouteKind } from "./kinds";

/** The class filter's value for ingresses without a class. */
export const NO_CLASS = "";

export type TlsFilter = "any" | "tls" | "plain";
export type KindFilter = "any" | RecordKind;
export const KIND_FILTERS: readonly KindFilter[] = ["any", "Ingress", "HTTPRoute", "GRPCRoute", "TLSRoute"];
/**
 * `no_ready_endpoints`: a backend has no ready endpoint, a missing Service included;
 * `not_fully_ready`: degraded backends (some endpoints not ready) too.
 */
export type BackendFilter = "any" | "no_ready_endpoints" | "not_fully_ready";
export const BACKEND_FILTERS: readonly BackendFilter[] = ["any", "no_ready_endpoints", "not_fully_ready"];
/** The largest "expires within N days" (ten years). */
export const MAX_EXPIRY_DAYS = 3650;

export interface Filters {
  /** Words matched against name, namespace, hosts and paths; all must match. */
  search: string;
  /** Namespaces the stream is asked for; empty means all. */
  namespaces: string[];
  /** Ingress classes to show (NO_CLASS for none); empty means all. */
  classes: string[];
  tls: TlsFilter;
  /** A Kubernetes label selector. */
  labels: string;
  /** Ingresses or HTTPRoutes only. */
  kind: KindFilter;
  backends: BackendFilter;
  /** Rows with a certificate that expires within this many days (or has expired); null: off. */
  expiresWithinDays: number | null;
}

export const emptyFilters: Filters = {
  search: "",
  namespaces: [],
  classes: [],
  tls: "any",
  labels: "",
  kind: "any",
  backends: "any",
  expiresWithinDays: null,
};

/** Whether any filter but the namespaces (which choose what the stream carries) is set. */
export function narrowsRows(filters: Filters): boolean {
  return (
    filters.search !== "" ||
    filters.classes.length > 0 ||
    filters.tls !== "any" ||
    filters.labels !== "" ||
    filters.kind !== "any" ||
    filters.backends !== "any" ||
    filters.expiresWithinDays !== null
  );
}

export type SortKey = "name" | "namespace" | "kind" | "class" | "hosts" | "paths" | "status" | "tls" | "address" | "age";
export const SORT_KEYS: readonly SortKey[] = ["name", "namespace", "kind", "class", "hosts", "paths", "status", "tls", "address", "age"];

export interface SortOrder {
  key: SortKey;
  descending: boolean;
}

export const defaultSort: SortOrder = { key: "name", descending: false };

/** A click on a column header: that column ascending, or the other way round if it already sorts. */
export function nextSort(sort: SortOrder, key: SortKey): SortOrder {
  return { key, descending: sort.key === key ? !sort.descending : false };
}

export interface CompiledFilter {
  test(record: IngressRecord): boolean;
  /** Set when the label selector does not parse; the other filters still apply. */
  labelError: string | null;
}

/** `now` matters only to the expiry filter. */
export function compileFilter(filters: Filters, now: number = Date.now()): CompiledFilter {
  const words = filters.search.toLowerCase().split(/\s+/).filter(Boolean);
  const namespaces = filters.namespaces.length ? new Set(filters.namespaces) : null;
  const classes = filters.classes.length ? new Set(filters.classes) : null;
  const selector = parseLabelSelector(filters.labels);
  const requirements: Requirement[] = selector.ok ? selector.requirements : [];

  return {
    labelError: selector.ok ? null : selector.error,
    test(record) {
      if (namespaces && !namespaces.has(record.namespace)) return false;
      if (filters.kind !== "any" && record.kind !== filters.kind) return false;
      if (filters.backends !== "any") {
        const backends = recordHealth(record).backends;
        if (filters.backends === "no_ready_endpoints" ? !backends.unready : backends.worst === null) return false;
      }
      if (filters.expiresWithinDays !== null && !expiresWithin(record, filters.expiresWithinDays, now)) return false;
      if (classes && !classes.has(record.ingressClassName ?? NO_CLASS)) return false;
      if (filters.tls !== "any" && record.tls.length > 0 !== (filters.tls === "tls")) return false;
      if (requirements.length && !matchesSelector(record.labels, requirements)) return false;
      return words.length === 0 || words.every((w) => searchText(record).includes(w));
    },
  };
}

// The lower-cased text search looks at, built once per record object (records are replaced,
// never mutated, so the cache follows their lifetime).
const searchTexts = new WeakMap<IngressRecord, string>();

function searchText(record: IngressRecord): string {
  let text = searchTexts.get(record);
  if (text === undefined) {
    const parts = [record.name, record.namespace, ...record.hosts];
    for (const rule of record.rules) for (const p of rule.paths) if (p.path) parts.push(p.path);
    text = parts.join("\n").toLowerCase();
    searchTexts.set(record, text);
  }
  return text;
}

type SortValue = string | number;

function sortValue(record: IngressRecord, key: SortKey): SortValue {
  switch (key) {
    case "name":
      return record.name;
    case "namespace":
      return record.namespace;
    case "kind":
      return record.kind;
    case "class":
      return isRouteKind(record.kind) ? parentsSummary(record) : (record.ingressClassName ?? "");
    case "hosts":
      return record.hosts[0] ?? "";
    case "paths":
      return routes(record)[0]?.path ?? "";
    case "status":
      // Ascending shows the worst first, as a triage list reads.
      return -recordHealth(record).severity;
    case "tls": {
      // The certificate that expires first leads; then TLS without a known expiry, then no TLS.
      const expiry = recordHealth(record).certificates.earliestExpiry;
      if (expiry !== null) return expiry;
      return Number.MAX_SAFE_INTEGER - (record.tls.length > 0 ? tlsHostCount(record) + 1 : 0);
    }
    case "address":
      return record.addresses[0] ?? "";
    case "age":
      // Youngest first when ascending, as `age` grows the other way from createdAt.
      return -(Date.parse(record.createdAt) || 0);
  }
}

/**
 * Filters and sorts; ties break on namespace then name so the order is stable as events arrive.
 * Strings compare in the collator's order (collate.ts), through its fast path when both are
 * simple; that is decided once per row, not once per comparison.
 */
export function filterAndSort(items: Iterable<IngressRecord>, filter: CompiledFilter, sort: SortOrder): IngressRecord[] {
  const rows: { record: IngressRecord; value: SortValue; simple: boolean }[] = [];
  for (const record of items) {
    if (!filter.test(record)) continue;
    const value = sortValue(record, sort.key);
    rows.push({ record, value, simple: typeof value === "string" && isSimple(value) });
  }
  const sign = sort.descending ? -1 : 1;
  rows.sort((a, b) => {
    let order: number;
    if (typeof a.value === "number" && typeof b.value === "number") order = a.value - b.value;
    else if (a.simple && b.simple) order = compareSimple(a.value as string, b.value as string);
    else order = collator.compare(String(a.value), String(b.value));
    return sign * order || compareText(a.record.namespace, b.record.namespace) || compareText(a.record.name, b.record.name);
  });
  const sorted = new Array<IngressRecord>(rows.length);
  for (let i = 0; i < rows.length; i++) sorted[i] = rows[i]!.record;
  return sorted;
}

/** Distinct ingress classes present, sorted, NO_CLASS last (HTTPRoutes have gateways, not classes). */
export function distinctClasses(items: Iterable<IngressRecord>): string[] {
  const seen = new Set<string>();
  for (const record of items) if (!isRouteKind(record.kind)) seen.add(record.ingressClassName ?? NO_CLASS);
  const named = [...seen].filter((c) => c !== NO_CLASS).sort(collator.compare);
  return seen.has(NO_CLASS) ? [...named, NO_CLASS] : named;
}
