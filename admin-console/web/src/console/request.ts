// Pure helpers of the REST console: the relay URL, the body's content type, the
// "copy as cURL" text and the status line.
import type { HttpMethod } from "./history";

/** `_cluster/health`, `/_cluster/health` and ` GET /x` typos all become `_cluster/health`. */
export function normalizePath(path: string): string {
  return path.trim().replace(/^\/+/, "");
}

/** Where the browser sends a console request: the admin-console relay for the cluster. */
export function relayUrl(clusterId: string, path: string): string {
  return `/api/clusters/${encodeURIComponent(clusterId)}/proxy/${normalizePath(path)}`;
}

/** `_bulk` and `_msearch` take NDJSON; everything else JSON. */
export function contentTypeFor(path: string): string {
  const bare = normalizePath(path).split("?")[0];
  return /(^|\/)(_bulk|_msearch|_msearch\/template)$/.test(bare)
    ? "application/x-ndjson"
    : "application/json";
}

/** The body to send, or undefined when there is none. */
export function requestBody(_method: HttpMethod, body: string): string | undefined {
  if (body.trim() === "") return undefined;
  return body;
}

/** The header that turns the relay's POST into the GET with a body the browser cannot send
 * (docs/api/admin-console.md, "Console: GET with a body"). */
export const METHOD_HEADER = "X-Console-Method";

/**
 * How the browser sends a console request: as typed, except a GET with a body, which goes as
 * POST with `X-Console-Method: GET` (the relay sends the cluster a GET with the body).
 */
export function fetchMethod(method: HttpMethod, hasBody: boolean): { method: string; headers: Record<string, string> } {
  if (method === "GET" && hasBody) return { method: "POST", headers: { [METHOD_HEADER]: "GET" } };
  return { method, headers: {} };
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A cURL command for the request through this console's relay: it runs as is wherever the
 * console is reachable, and carries no credentials (the relay adds the cluster's own), only
 * the header the console requires of scripts.
 */
export function toCurl(origin: string, clusterId: string, method: HttpMethod, path: string, body: string): string {
  const parts = ["curl", "-X", method, shellQuote(origin + relayUrl(clusterId, path))];
  // The console refuses relayed requests that do not show they come from it (see api/client.ts).
  parts.push("-H", shellQuote("X-Requested-By: admin-console"));
  const sent = requestBody(method, body);
  if (sent !== undefined) {
    let data = sent;
    const ctype = contentTypeFor(path);
    if (ctype === "application/x-ndjson" && !data.endsWith("\n")) data += "\n";
    parts.push("-H", shellQuote(`Content-Type: ${ctype}`), "--data-binary", shellQuote(data));
  }
  return parts.join(" ");
}

const REASONS: Record<number, string> = {
  100: "Continue", 200: "OK", 201: "Created", 202: "Accepted", 204: "No Content",
  206: "Partial Content", 301: "Moved Permanently", 302: "Found", 304: "Not Modified",
  400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
  405: "Method Not Allowed", 406: "Not Acceptable", 408: "Request Timeout", 409: "Conflict",
  410: "Gone", 412: "Precondition Failed", 413: "Payload Too Large", 415: "Unsupported Media Type",
  422: "Unprocessable Entity", 429: "Too Many Requests", 500: "Internal Server Error",
  501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
};

/** "404 Not Found"; the server's own reason phrase wins when it sent one. */
export function statusLine(status: number, statusText = ""): string {
  const reason = statusText.trim() || REASONS[status] || "";
  return reason ? `${status} ${reason}` : String(status);
}

export function statusClass(status: number): "ok" | "redirect" | "client-error" | "server-error" {
  if (status >= 500) return "server-error";
  if (status >= 400) return "client-error";
  if (status >= 300) return "redirect";
  return "ok";
}

/** Pretty-prints JSON; anything else (e.g. `_cat` text) is shown as it came. */
export function prettyBody(text: string): { text: string; json: boolean } {
  if (text.trim() === "") return { text: "", json: false };
  try {
    return { text: JSON.stringify(JSON.parse(text), null, 2), json: true };
  } catch {
    return { text, json: false };
  }
}

/** The upstream duration the relay reports in `Server-Timing: upstream;dur=<ms>`. */
export function upstreamDuration(serverTiming: string | null): number | null {
  if (!serverTiming) return null;
  for (const metric of serverTiming.split(",")) {
    const [name, ...params] = metric.trim().split(";");
    if (name.trim() !== "upstream") continue;
    for (const p of params) {
      const [k, v] = p.trim().split("=");
      if (k === "dur" && v !== undefined && Number.isFinite(Number(v))) return Number(v);
    }
  }
  return null;
}
