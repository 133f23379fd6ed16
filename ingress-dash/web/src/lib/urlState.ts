// Filters, sort order and the open ingress live in the query string, so a view can be
// bookmarked or pasted into an incident channel.

import { defaultSort, emptyFilters, SORT_KEYS, type Filters, type SortKey, type SortOrder, type TlsFilter } from "../state/filters";

export interface ViewState {
  filters: Filters;
  sort: SortOrder;
  /** `namespace/name` of the ingress in the details panel. */
  selected: string | null;
}

const TLS_VALUES: readonly TlsFilter[] = ["any", "tls", "plain"];
/** Namespace names are DNS-1123 labels; anything else in a pasted URL is dropped. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function list(value: string | null): string[] {
  return value ? value.split(",").filter((v, i, all) => all.indexOf(v) === i) : [];
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
    },
    sort: SORT_KEYS.includes(key) ? { key, descending } : defaultSort,
    selected: q.get("ingress"),
  };
}

export function formatViewState(view: ViewState): string {
  const q = new URLSearchParams();
  const { filters, sort } = view;
  if (filters.namespaces.length) q.set("namespaces", filters.namespaces.join(","));
  if (filters.search) q.set("q", filters.search);
  if (filters.classes.length) q.set("class", filters.classes.join(","));
  if (filters.tls !== "any") q.set("tls", filters.tls);
  if (filters.labels) q.set("labels", filters.labels);
  if (sort.key !== defaultSort.key || sort.descending !== defaultSort.descending)
    q.set("sort", `${sort.descending ? "-" : ""}${sort.key}`);
  if (view.selected) q.set("ingress", view.selected);
  const text = q.toString().replace(/%2C/g, ",").replace(/%2F/g, "/");
  return text ? `?${text}` : "";
}
