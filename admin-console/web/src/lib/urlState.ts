// View state kept in the page URL so that a link reproduces what the user sees.
import {
  DEFAULT_PRESET,
  isPreset,
  parseUnixSeconds,
  validateRange,
  type RangeSelection,
} from "./range";
import type { Order, SortKey } from "../api/wire";

export interface RangeFromUrl {
  selection: RangeSelection;
  /** Why the URL's range was ignored, if it was. */
  error: string | null;
}

/** `?range=6h`, or `?start=<s>&end=<s>` for a custom range; 24 h otherwise. */
export function readRange(search: string): RangeFromUrl {
  const params = new URLSearchParams(search);
  const fallback: RangeSelection = { kind: "preset", preset: DEFAULT_PRESET };
  if (params.has("start") || params.has("end")) {
    const start = parseUnixSeconds(params.get("start"), "start");
    if (!start.ok) return { selection: fallback, error: start.error };
    const end = parseUnixSeconds(params.get("end"), "end");
    if (!end.ok) return { selection: fallback, error: end.error };
    const problem = validateRange(start.value, end.value);
    if (problem) return { selection: fallback, error: problem };
    return { selection: { kind: "custom", start: start.value, end: end.value }, error: null };
  }
  const range = params.get("range");
  if (range == null) return { selection: fallback, error: null };
  if (isPreset(range)) return { selection: { kind: "preset", preset: range }, error: null };
  return { selection: fallback, error: `Unknown range "${range}"` };
}

/** The search string with the range written in; other parameters are kept. */
export function writeRange(search: string, selection: RangeSelection): string {
  const params = new URLSearchParams(search);
  params.delete("range");
  params.delete("start");
  params.delete("end");
  if (selection.kind === "custom") {
    params.set("start", String(selection.start));
    params.set("end", String(selection.end));
  } else if (selection.preset !== DEFAULT_PRESET) {
    params.set("range", selection.preset);
  }
  return toSearch(params);
}

// Every sort key the API accepts, and only those: the compiler checks this against the
// generated SortKey, so a key added or renamed in Rust fails the type check here.
const SORT_KEYS: Record<SortKey, true> = {
  name: true,
  health: true,
  status: true,
  docsCount: true,
  storeSizeBytes: true,
  primaries: true,
  replicas: true,
};
export const INDEX_SORTS = Object.keys(SORT_KEYS) as readonly SortKey[];
export type IndexSort = SortKey;
export type SortOrder = Order;
export const PAGE_SIZES = [25, 50, 100, 250, 500] as const;

export interface IndicesQuery {
  page: number;
  size: number;
  sort: IndexSort;
  order: SortOrder;
  filter: string;
}

export const DEFAULT_INDICES_QUERY: IndicesQuery = {
  page: 1,
  size: 50,
  sort: "name",
  order: "asc",
  filter: "",
};

function positiveInt(text: string | null, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (text == null || !/^\d+$/.test(text)) return fallback;
  const n = Number(text);
  return n >= 1 && n <= max ? n : fallback;
}

export function readIndicesQuery(search: string): IndicesQuery {
  const params = new URLSearchParams(search);
  const sort = params.get("sort");
  const order = params.get("order");
  return {
    page: positiveInt(params.get("page"), DEFAULT_INDICES_QUERY.page),
    size: positiveInt(params.get("size"), DEFAULT_INDICES_QUERY.size, 500),
    sort: (INDEX_SORTS as readonly string[]).includes(sort ?? "")
      ? (sort as IndexSort)
      : DEFAULT_INDICES_QUERY.sort,
    order: order === "desc" ? "desc" : "asc",
    filter: params.get("filter") ?? "",
  };
}

/** Only what differs from the defaults goes into the URL. */
export function writeIndicesQuery(search: string, query: IndicesQuery): string {
  const params = new URLSearchParams(search);
  for (const key of ["page", "size", "sort", "order", "filter"] as const) {
    const value = query[key];
    if (value === DEFAULT_INDICES_QUERY[key]) params.delete(key);
    else params.set(key, String(value));
  }
  return toSearch(params);
}

/** The API query string for an indices page. */
export function indicesApiQuery(query: IndicesQuery): string {
  const params = new URLSearchParams({
    page: String(query.page),
    size: String(query.size),
    sort: query.sort,
    order: query.order,
  });
  if (query.filter.trim() !== "") params.set("filter", query.filter.trim());
  return params.toString();
}

function toSearch(params: URLSearchParams): string {
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}
