// The caller's role, as `GET /api/whoami` tells it, and the role each action needs: the web app
// mirrors the server's decision (docs/access-control.md, "admin-console: who may do what") to
// disable what would be refused. The server decides on every request; these rules only say
// what to show, and a call refused anyway shows the server's message.
import type { WhoAmI } from "../api/wire";

export type Role = WhoAmI["roles"][string];

const RANK: Record<Role, number> = { none: 0, viewer: 1, operator: 2, admin: 3 };

/** The caller's role on `clusterId`; a cluster whoami does not list is hidden (`none`). */
export function roleOn(whoami: WhoAmI, clusterId: string): Role {
  return Object.prototype.hasOwnProperty.call(whoami.roles, clusterId) ? whoami.roles[clusterId] : "none";
}

export function allows(have: Role, need: Role): boolean {
  return RANK[have] >= RANK[need];
}

/** Why `have` may not do what needs `need` ("Needs the operator role; you have viewer."), or
 * null when it may. */
export function denial(have: Role, need: Role): string | null {
  return allows(have, need) ? null : `Needs the ${need} role; you have ${have}.`;
}

/** Operations the views offer, and the role each needs. */
export const ACTION_ROLES = {
  closeIndex: "operator",
  openIndex: "operator",
  /** Refresh, flush, force merge, clear cache. */
  indexMaintenance: "operator",
  createIndex: "admin",
  deleteIndex: "admin",
  indexWriteBlock: "admin",
  editIndexSettings: "admin",
  changeAliases: "admin",
  createDataStream: "admin",
  /** A new write index; nothing is lost. */
  rolloverDataStream: "operator",
  deleteDataStream: "admin",
  allocationLock: "operator",
  /** Draining a node and undoing it (the allocation filter on its name). */
  drainNode: "operator",
  registerRepository: "admin",
  deleteRepository: "admin",
  verifyRepository: "operator",
  createSnapshot: "operator",
  restoreSnapshot: "admin",
  deleteSnapshot: "admin",
  /** Templates, tasks and cluster settings. */
  cancelTask: "operator",
  editTemplate: "admin",
  deleteTemplate: "admin",
  editClusterSetting: "admin",
  /** Shards: move a copy, retry failed allocations. */
  moveShard: "operator",
  retryShardAllocation: "operator",
  /** The cluster's own users, roles and role mappings: reading them too. */
  manageSecurity: "admin",
} as const satisfies Record<string, Role>;

const READ_ONLY_ENDPOINTS = ["_search", "_msearch", "_count", "_mget", "_field_caps"];
const SQL_PREFIXES = [["_sql"], ["_plugins", "_sql"], ["_opendistro", "_sql"]];
const SQL_QUERY_PARAMS = ["format", "pretty", "delimiter", "sanitize", "error_trace", "filter_path", "human"];

function decode(raw: string): string {
  let text = raw;
  for (let i = 0; i < 8; i++) {
    let once: string;
    try {
      once = decodeURIComponent(text);
    } catch {
      return text;
    }
    if (once === text) return text;
    text = once;
  }
  return text;
}

/** The path's segments, each percent-decoded; null for a path the server never treats as
 * read-only (empty, `.` or `..` segments, an encoded `/` or `\`, a control character). */
export function segments(path: string): string[] | null {
  let bare = path.trim().split("?")[0].replace(/^\/+/, "");
  if (bare === "") return [];
  if (bare.endsWith("/")) bare = bare.slice(0, -1);
  const parts: string[] = [];
  for (const raw of bare.split("/")) {
    const segment = decode(raw);
    // eslint-disable-next-line no-control-regex
    if (segment === "" || segment === "." || segment === ".." || /[/\\\u0000-\u001f\u007f]/.test(segment)) return null;
    parts.push(segment);
  }
  return parts;
}

const isIndex = (segment: string) => segment === "_all" || !segment.startsWith("_");

function isOperatorEndpoint(parts: string[]): boolean {
  const [first, second, third] = parts;
  if (parts.length === 1) return ["_refresh", "_flush", "_forcemerge"].includes(first);
  if (parts.length === 2) {
    if (first === "_cache" && second === "clear") return true;
    return isIndex(first) && ["_open", "_close", "_refresh", "_flush", "_forcemerge"].includes(second);
  }
  return parts.length === 3 && isIndex(first) && second === "_cache" && third === "clear";
}

function isReadOnlyPost(parts: string[]): boolean {
  const [first, second, third] = parts;
  switch (parts.length) {
    case 1:
      return READ_ONLY_ENDPOINTS.includes(first);
    case 2:
      if (first === "_validate" && second === "query") return true;
      if (first === "_search" && second === "scroll") return true;
      return isIndex(first) && (READ_ONLY_ENDPOINTS.includes(second) || second === "_pit");
    case 3:
      if (first === "_search" && second === "scroll") return true;
      return (
        isIndex(first) &&
        ((second === "_validate" && third === "query") || second === "_explain" || (second === "_search" && third === "point_in_time"))
      );
    default:
      return false;
  }
}

function isReadContextRelease(parts: string[]): boolean {
  const joined = parts.join("/");
  const release = joined === "_search/scroll" || joined === "_pit" || joined === "_search/point_in_time" ||
    (parts.length === 3 && parts[0] === "_search" && parts[1] === "scroll");
  return release && parts[parts.length - 1] !== "_all";
}

function sqlCall(parts: string[]): "statement" | "close" | null {
  for (const prefix of SQL_PREFIXES) {
    if (parts.length < prefix.length || !prefix.every((p, i) => parts[i] === p)) continue;
    const rest = parts.slice(prefix.length);
    if (rest.length === 0) return "statement";
    if (rest.length === 1 && rest[0] === "close") return "close";
  }
  return null;
}

function sqlQueryIsPlain(path: string): boolean {
  const query = path.split("?").slice(1).join("?");
  return query.split("&").every((pair) => {
    const name = decode(pair.split("=")[0]);
    return name === "" || SQL_QUERY_PARAMS.includes(name);
  });
}

function skipComments(text: string): string {
  for (;;) {
    text = text.trimStart();
    if (text.startsWith("--")) {
      const end = text.indexOf("\n");
      text = end < 0 ? "" : text.slice(end + 1);
    } else if (text.startsWith("/*")) {
      const end = text.indexOf("*/");
      text = end < 0 ? "" : text.slice(end + 2);
    } else {
      return text;
    }
  }
}

/** One SELECT, SHOW or DESCRIBE statement (the server's rule). */
export function isReadOnlyStatement(query: string): boolean {
  const text = skipComments(query).replace(/^[(\s]+/, "");
  const keyword = (/^[A-Za-z]*/.exec(text)?.[0] ?? "").toLowerCase();
  if (!["select", "show", "describe", "desc"].includes(keyword)) return false;
  const rest = text.slice(keyword.length);
  if (rest !== "" && !/^[\s*(]/.test(rest)) return false;
  return !text.trimEnd().replace(/;+$/, "").includes(";");
}

function isReadOnlySqlBody(body: string): boolean {
  if (body.length > 64 * 1024) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return false;
  }
  if (typeof parsed !== "object" || parsed === null) return false;
  const { query, cursor } = parsed as { query?: unknown; cursor?: unknown };
  if (typeof query === "string") return isReadOnlyStatement(query);
  return query === undefined && typeof cursor === "string";
}

/** The role a console request needs: `GET`/`HEAD` and the read-only `POST`s are viewer; index
 * operations operator; everything else admin. */
export function relayNeeds(method: string, path: string, body = ""): Role {
  const parts = segments(path);
  if (parts === null) return "admin";
  const verb = method.toUpperCase();
  if (isOperatorEndpoint(parts)) return ["GET", "HEAD", "POST"].includes(verb) ? "operator" : "admin";
  const sql = sqlCall(parts);
  if (sql) {
    if (verb === "HEAD") return "viewer";
    if (verb !== "GET" && verb !== "POST") return "admin";
    if (sql === "close") return "viewer";
    return sqlQueryIsPlain(path) && isReadOnlySqlBody(body) ? "viewer" : "admin";
  }
  if (verb === "GET" || verb === "HEAD") return "viewer";
  if (verb === "POST" && isReadOnlyPost(parts)) return "viewer";
  if (verb === "DELETE" && isReadContextRelease(parts)) return "viewer";
  return "admin";
}
