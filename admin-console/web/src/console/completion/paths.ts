// API path completion from the endpoint lists kept in ../api-paths (one per dialect, written
// from the official API specifications), plus index and alias names where a path takes them.
import elasticsearch8 from "../api-paths/elasticsearch-8.json";
import opensearch2 from "../api-paths/opensearch-2.json";

export interface Endpoint {
  path: string;
  methods: string[];
}

export interface EndpointList {
  dialect: string;
  source: string;
  endpoints: Endpoint[];
}

export type DialectName = "elasticsearch-8" | "opensearch-2";

/** What `GET /api/clusters/:id/dialect` answers. */
export interface DialectInfo {
  distribution: string;
  major: number;
}

const LISTS: Record<DialectName, EndpointList> = {
  "elasticsearch-8": elasticsearch8 as EndpointList,
  "opensearch-2": opensearch2 as EndpointList,
};

/** OpenSearch (any major) uses the OpenSearch 2 list; Elasticsearch, or an unknown dialect, the
 * Elasticsearch 8 one. */
export function dialectName(dialect: DialectInfo | null | undefined): DialectName {
  return dialect?.distribution === "opensearch" ? "opensearch-2" : "elasticsearch-8";
}

export function endpointsFor(name: DialectName): Endpoint[] {
  return LISTS[name].endpoints;
}

export interface Names {
  indices: string[];
  aliases: string[];
}

export interface PathOption {
  label: string;
  kind: "endpoint" | "index" | "alias";
  /** The templates this segment leads to, for the popup's detail. */
  detail?: string;
}

/** Placeholders that take an index, data stream or alias name. */
const INDEX_LIKE = new Set(["{index}", "{target}", "{new_index}", "{source}"]);

function isPlaceholder(segment: string): boolean {
  return segment.startsWith("{") && segment.endsWith("}");
}

function matches(template: string, typed: string): boolean {
  if (!isPlaceholder(template)) return template === typed;
  if (typed === "") return false;
  // Index names never start with `_` (`_all` aside); other placeholders take any value.
  if (INDEX_LIKE.has(template)) return !typed.startsWith("_") || typed === "_all";
  return true;
}

/**
 * The options for the path segment being typed. `typed` is the path from its start to the
 * cursor (a leading `/` allowed); completion stops at the query string. Options are the next
 * segment of every endpoint (for `method`, when given) whose earlier segments match.
 */
export function pathOptions(
  endpoints: Endpoint[],
  method: string | null,
  typed: string,
  names: Names,
): { options: PathOption[]; prefix: string } | null {
  if (typed.includes("?")) return null;
  const parts = typed.replace(/^\/+/, "").split("/");
  const prefix = parts[parts.length - 1];
  const previous = parts.slice(0, -1);
  const options = new Map<string, PathOption>();
  const add = (option: PathOption) => {
    const existing = options.get(option.label);
    if (!existing) options.set(option.label, option);
  };
  const details = new Map<string, Set<string>>();
  let wantsIndices = false;
  let wantsAliases = false;
  for (const endpoint of endpoints) {
    if (method && !endpoint.methods.includes(method)) continue;
    const template = endpoint.path.replace(/^\/+/, "").split("/").filter((s) => s !== "");
    if (template.length <= previous.length) continue;
    if (!previous.every((segment, i) => matches(template[i], segment))) continue;
    const next = template[previous.length];
    if (isPlaceholder(next)) {
      if (INDEX_LIKE.has(next)) {
        wantsIndices = true;
        wantsAliases = true;
      } else if (next === "{name}" && /^_alias(es)?$/.test(template[previous.length - 1] ?? "")) {
        wantsAliases = true;
      }
      continue;
    }
    const seen = details.get(next) ?? new Set<string>();
    seen.add(`${endpoint.methods.join(",")} ${endpoint.path}`);
    details.set(next, seen);
  }
  for (const [label, templates] of details) {
    const list = [...templates];
    add({
      label,
      kind: "endpoint",
      detail: list.length === 1 ? list[0] : `${list[0]} (+${list.length - 1})`,
    });
  }
  if (wantsIndices) for (const name of names.indices) add({ label: name, kind: "index" });
  if (wantsAliases) for (const name of names.aliases) add({ label: name, kind: "alias" });
  return { options: [...options.values()], prefix };
}
