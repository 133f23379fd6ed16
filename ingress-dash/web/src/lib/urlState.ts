// Filters, sort order and the open ingress live in the query string, so a view can be
// bookmarked or pasted into an incident channel.

import {
  BACKEND_FILTERS,
  defaultSort,
  emptyFilters,
  KIND_FILTERS,
  MAX_EXPIRY_DAYS,
  SORT_KEYS,
  type Filters,
  type SortKey,
  type SortOrder,
  type TlsFilter,
} from "../state/filters";
import { OTHER_ROUTE_PREFIXES, ROUTE_KEY_PREFIX } from "../state/describe";

export interface ViewState {
  filters: Filters;
  sort: SortOrder;
  /** The record in the details panel, as `recordKey` (describe.ts) writes it. */
  selected: string | null;
}

const TLS_VALUES: readonly TlsFilter[] = ["any", "tls", "plain"];
/** Namespace names are DNS-1123 labels; anything else in a pasted URL is dropped. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function list(value: string | null): string[] {
  return value ? value.split(",").filter((v, i, all) => all.indexOf(v) === i) : [];
}

function oneOf<T extends string>(value: string | null, allowed: readonly T[], fallback: T): T {
  return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

/** `expires=7`: whole days from 0 to MAX_EXPIRY_DAYS; anything else leaves the filter off. */
function days(value: string | null): number | null {
  if (value === null || !/^\d{1,5}$/.test(value)) return null;
  const n = Number(value);
  return n <= MAX_EXPIRY_DAYS ? n : null;
}

export function parseViewState(search: string): ViewState {
  const q = new URLSearchParams(search);
  const sortParam = q.get("sort") ?? "";
  const descending = sortParam.startsWith("-");
  const key = (descending ? sortParam.slice(1) : sortParam) as SortKey;
  const tls = q.get("tls") as TlsFilter | null;
  return {
    filters: {
      search: q.get("q") ?? emptyFilters.search,
      namespaces: list(q.get("namespaces")).filter((n) => NAMESPACE.test(n)),
      // `class=` keeps the "no class" choice (empty string) apart from "all".
      classes: q.has("class") ? (q.get("class") ?? "").split(",") : [],
      tls: tls && TLS_VALUES.includes(tls) ? tls : "any",
      labels: q.get("labels") ?? "",
      kind: oneOf(q.get("kind"), KIND_FILTERS, emptyFilters.kind),
      backends: oneOf(q.get("backends"), BACKEND_FILTERS, emptyFilters.backends),
      expiresWithinDays: days(q.get("expires")),
    },
    sort: SORT_KEYS.includes(key) ? { key, descending } : defaultSort,
    // `ingress=ns/name` or `route=ns/name` (an HTTPRoute may share an ingress's name);
    // `route=grpcroute/ns/name`, `route=tlsroute/ns/name` for the other route kinds.
    selected: q.get("ingress") ?? (q.has("route") ? routeKey(q.get("route") ?? "") : null),
  };
}

/** The record key of a `route=` value: an HTTPRoute's `ns/name`, or another kind's whole key. */
function routeKey(value: string): string {
  return OTHER_ROUTE_PREFIXES.some(([prefix]) => value.startsWith(prefix)) ? value : `${ROUTE_KEY_PREFIX}${value}`;
}

export function formatViewState(view: ViewState): string {
  const q = new URLSearchParams();
  const { filters, sort } = view;
  if (filters.namespaces.length) q.set("namespaces", filters.namespaces.join(","));
  if (filters.search) q.set("q", filters.search);
  if (filters.classes.length) q.set("class", filters.classes.join(","));
  if (filters.tls !== "any") q.set("tls", filters.tls);
  if (filters.labels) q.set("labels", filters.labels);
  if (filters.kind !== "any") q.set("kind", filters.kind);
  if (filters.backends !== "any") q.set("backends", filters.backends);
  if (filters.expiresWithinDays !== null) q.set("expires", String(filters.expiresWithinDays));
  if (sort.key !== defaultSort.key || sort.descending !== defaultSort.descending)
    q.set("sort", `${sort.descending ? "-" : ""}${sort.key}`);
  if (view.selected?.startsWith(ROUTE_KEY_PREFIX)) q.set("route", view.selected.slice(ROUTE_KEY_PREFIX.length));
  else if (view.selected && OTHER_ROUTE_PREFIXES.some(([prefix]) => view.selected?.startsWith(prefix))) q.set("route", view.selected);
  else if (view.selected) q.set("ingress", view.selected);
  const text = q.toString().replace(/%2C/g, ",").replace(/%2F/g, "/");
  return text ? `?${text}` : "";
}
