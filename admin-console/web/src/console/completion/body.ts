// Body key completion: where the cursor is in a (possibly unfinished) JSON body, and the keys
// that fit there (query DSL, aggregations, index creation, mappings, aliases, bulk actions…).

export interface KeyContext {
  /** Offset (in the text given) where the key being typed starts, its quote included. */
  from: number;
  /** The key typed so far, without its quote. */
  prefix: string;
  /** Whether the user opened a quote (the option then completes the quoted key). */
  quoted: boolean;
  /** The keys of the enclosing objects and arrays, outermost first. */
  parents: string[];
}

interface Frame {
  kind: "object" | "array";
  /** The key this container is the value of (arrays pass theirs to their elements). */
  key: string | null;
  expectingKey: boolean;
  lastKey: string | null;
}

/**
 * Scans `text` (a JSON body up to the cursor) and answers where a key is being typed, or null
 * when the cursor is in a value, a string value, or outside any object.
 */
export function keyContext(text: string): KeyContext | null {
  const stack: Frame[] = [];
  let i = 0;
  const top = () => stack[stack.length - 1];
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      let value = "";
      let closed = false;
      while (j < text.length) {
        if (text[j] === "\\") {
          value += text[j + 1] ?? "";
          j += 2;
          continue;
        }
        if (text[j] === '"') {
          closed = true;
          break;
        }
        if (text[j] === "\n") break;
        value += text[j];
        j++;
      }
      const frame = top();
      if (!closed) {
        if (j >= text.length && frame?.kind === "object" && frame.expectingKey) {
          return { from: i, prefix: value, quoted: true, parents: parentsOf(stack) };
        }
        return null;
      }
      if (frame?.kind === "object" && frame.expectingKey) {
        frame.lastKey = value;
        frame.expectingKey = false;
      }
      i = j + 1;
      continue;
    }
    if (c === "{" || c === "[") {
      const frame = top();
      const key = frame ? (frame.kind === "object" ? frame.lastKey : frame.key) : null;
      stack.push({ kind: c === "{" ? "object" : "array", key, expectingKey: c === "{", lastKey: null });
    } else if (c === "}" || c === "]") {
      stack.pop();
    } else if (c === ",") {
      const frame = top();
      if (frame?.kind === "object") frame.expectingKey = true;
    } else if (c === ":") {
      const frame = top();
      if (frame?.kind === "object") frame.expectingKey = false;
    } else if (/[A-Za-z_]/.test(c)) {
      // A bare word: a key typed without quotes (when a key is expected) or a literal value.
      let j = i;
      while (j < text.length && /[A-Za-z0-9_.]/.test(text[j])) j++;
      const frame = top();
      if (j >= text.length && frame?.kind === "object" && frame.expectingKey) {
        return { from: i, prefix: text.slice(i, j), quoted: false, parents: parentsOf(stack) };
      }
      i = j;
      continue;
    }
    i++;
  }
  const frame = top();
  if (frame?.kind === "object" && frame.expectingKey) {
    return { from: text.length, prefix: "", quoted: false, parents: parentsOf(stack) };
  }
  return null;
}

function parentsOf(stack: Frame[]): string[] {
  // Each object's key, outermost first; an array's elements carry the array's key, so the
  // array itself adds nothing.
  return stack.filter((frame) => frame.kind === "object" && frame.key !== null).map((frame) => frame.key!);
}

const QUERIES = [
  "bool", "match", "match_all", "match_none", "match_phrase", "match_phrase_prefix", "match_bool_prefix",
  "multi_match", "query_string", "simple_query_string", "combined_fields", "term", "terms", "terms_set",
  "range", "exists", "prefix", "wildcard", "regexp", "fuzzy", "ids", "nested", "has_child", "has_parent",
  "constant_score", "function_score", "dis_max", "boosting", "script", "script_score", "more_like_this",
  "geo_distance", "geo_bounding_box", "geo_shape", "intervals", "knn",
];
const BOOL = ["must", "filter", "should", "must_not", "minimum_should_match", "boost", "_name"];
const SEARCH_ROOT = [
  "query", "aggs", "aggregations", "size", "from", "sort", "_source", "fields", "track_total_hits",
  "timeout", "highlight", "post_filter", "search_after", "collapse", "explain", "min_score", "profile",
  "runtime_mappings", "script_fields", "stored_fields", "docvalue_fields", "suggest", "pit", "rescore",
  "version", "seq_no_primary_term", "terminate_after", "indices_boost", "track_scores",
];
const AGGREGATIONS = [
  "terms", "avg", "sum", "min", "max", "value_count", "cardinality", "stats", "extended_stats",
  "percentiles", "percentile_ranks", "histogram", "date_histogram", "range", "date_range", "filter",
  "filters", "top_hits", "nested", "reverse_nested", "composite", "significant_terms", "missing",
  "global", "geo_bounds", "bucket_sort", "bucket_script", "aggs", "aggregations", "meta",
];
const AGG_PARAMS: Record<string, string[]> = {
  terms: ["field", "size", "order", "min_doc_count", "missing", "include", "exclude", "shard_size", "script"],
  date_histogram: ["field", "calendar_interval", "fixed_interval", "format", "time_zone", "min_doc_count", "extended_bounds", "offset", "order"],
  histogram: ["field", "interval", "min_doc_count", "extended_bounds", "offset", "order"],
  range: ["field", "ranges", "keyed", "script"],
  date_range: ["field", "ranges", "format", "time_zone", "keyed"],
  top_hits: ["size", "from", "sort", "_source", "highlight"],
  composite: ["sources", "size", "after"],
  percentiles: ["field", "percents", "keyed"],
  cardinality: ["field", "precision_threshold"],
  nested: ["path"],
};
const METRIC_PARAMS = ["field", "missing", "script", "format"];
const RANGE_PARAMS = ["gte", "gt", "lte", "lt", "format", "time_zone", "boost", "relation"];
const MATCH_PARAMS = ["query", "operator", "fuzziness", "analyzer", "minimum_should_match", "zero_terms_query", "boost", "lenient"];
const QUERY_CONTAINERS = new Set(["query", "must", "filter", "should", "must_not", "post_filter", "positive", "negative", "queries"]);
const INDEX_CREATE = ["settings", "mappings", "aliases"];
const SETTINGS = ["number_of_shards", "number_of_replicas", "refresh_interval", "index", "analysis", "max_result_window", "codec", "routing"];
const MAPPINGS = ["properties", "dynamic", "_source", "runtime", "_routing", "dynamic_templates", "_meta"];
const FIELD_MAPPING = ["type", "fields", "analyzer", "search_analyzer", "format", "index", "doc_values", "ignore_above", "null_value", "copy_to", "properties", "store", "norms"];
const ALIAS_PROPS = ["filter", "routing", "index_routing", "search_routing", "is_write_index", "is_hidden"];
const ALIAS_ACTION = ["index", "indices", "alias", "aliases", "filter", "routing", "index_routing", "search_routing", "is_write_index", "must_exist"];
const BULK_ACTIONS = ["index", "create", "update", "delete"];
const BULK_META = ["_index", "_id", "routing", "if_seq_no", "if_primary_term", "pipeline", "require_alias", "version", "version_type"];

/** The kind of body a request takes, from its method and path (the root keys differ). */
export type BodyKind =
  | "search" | "msearch" | "bulk" | "index-create" | "mapping" | "settings" | "aliases" | "update"
  | "reindex" | "by-query" | "template" | "cluster-settings" | "other";

export function bodyKind(method: string, path: string): BodyKind {
  const parts = path.split("?")[0].replace(/^\/+|\/+$/g, "").split("/").filter(Boolean);
  const last = parts[parts.length - 1] ?? "";
  const has = (s: string) => parts.includes(s);
  if (has("_msearch")) return "msearch";
  if (has("_bulk")) return "bulk";
  if (["_search", "_count", "_validate", "_explain", "_async_search", "_knn_search"].some(has)) return "search";
  if (last === "_delete_by_query" || last === "_update_by_query") return "by-query";
  if (has("_mapping") || has("_mappings")) return "mapping";
  if (has("_cluster") && last === "settings") return "cluster-settings";
  if (has("_settings")) return "settings";
  if (last === "_aliases") return "aliases";
  if (has("_update")) return "update";
  if (last === "_reindex") return "reindex";
  if (has("_index_template") || has("_component_template") || has("_template")) return "template";
  if (method === "PUT" && parts.length === 1 && !parts[0].startsWith("_")) return "index-create";
  return "other";
}

function rootKeys(kind: BodyKind): string[] {
  switch (kind) {
    case "search":
      return SEARCH_ROOT;
    case "msearch":
      return [...SEARCH_ROOT, "index", "preference", "routing", "search_type"];
    case "bulk":
      return [...BULK_ACTIONS, "doc", "doc_as_upsert", "upsert", "script"];
    case "index-create":
      return INDEX_CREATE;
    case "mapping":
      return MAPPINGS;
    case "settings":
      return ["index", ...SETTINGS];
    case "aliases":
      return ["actions"];
    case "update":
      return ["doc", "script", "upsert", "doc_as_upsert", "scripted_upsert", "detect_noop"];
    case "reindex":
      return ["source", "dest", "script", "conflicts", "max_docs"];
    case "by-query":
      return ["query", "script", "max_docs", "conflicts", "slice"];
    case "template":
      return ["index_patterns", "template", "composed_of", "priority", "version", "_meta", "data_stream", "settings", "mappings", "aliases", "order"];
    case "cluster-settings":
      return ["persistent", "transient"];
    default:
      return ["query", ...INDEX_CREATE];
  }
}

/** The keys that fit at a position whose enclosing keys are `parents`, in a body of `kind`. */
export function keysFor(kind: BodyKind, parents: string[]): string[] {
  if (parents.length === 0) return rootKeys(kind);
  const last = parents[parents.length - 1];
  const before = parents[parents.length - 2];
  const third = parents[parents.length - 3];
  if (kind === "bulk" && BULK_ACTIONS.includes(last) && parents.length === 1) return BULK_META;
  if (last === "bool") return BOOL;
  if (QUERY_CONTAINERS.has(last)) return QUERIES;
  if (before === "range" && third !== "aggs" && third !== "aggregations") return RANGE_PARAMS;
  if (before && ["match", "match_phrase", "match_phrase_prefix", "match_bool_prefix"].includes(before)) return MATCH_PARAMS;
  if (["multi_match"].includes(last)) return ["query", "fields", "type", "operator", "fuzziness", "minimum_should_match", "tie_breaker"];
  if (["constant_score", "function_score", "nested", "has_child", "has_parent", "boosting", "dis_max", "script_score"].includes(last)) {
    return ["query", "filter", "boost", "path", "type", "score_mode", "functions", "positive", "negative", "negative_boost", "queries", "script"];
  }
  if (last === "aggs" || last === "aggregations") return [];
  if (before === "aggs" || before === "aggregations") return AGGREGATIONS;
  if (third === "aggs" || third === "aggregations") return AGG_PARAMS[last] ?? METRIC_PARAMS;
  if (last === "highlight") return ["fields", "pre_tags", "post_tags", "fragment_size", "number_of_fragments", "type", "require_field_match"];
  if (last === "collapse") return ["field", "inner_hits", "max_concurrent_group_searches"];
  if (last === "settings" || (last === "index" && before === "settings")) return SETTINGS;
  if (last === "mappings") return MAPPINGS;
  if (last === "properties") return [];
  if (before === "properties") return FIELD_MAPPING;
  if (before === "aliases" && kind !== "aliases") return ALIAS_PROPS;
  if (last === "actions") return ["add", "remove", "remove_index"];
  if (["add", "remove", "remove_index"].includes(last) && before === "actions") return ALIAS_ACTION;
  if (last === "source" && kind === "reindex") return ["index", "query", "size", "_source", "remote", "slice"];
  if (last === "dest" && kind === "reindex") return ["index", "op_type", "pipeline", "version_type"];
  if (last === "template" && kind === "template") return INDEX_CREATE;
  if (last === "script") return ["source", "lang", "params", "id"];
  if (last === "_source") return ["includes", "excludes"];
  return [];
}
