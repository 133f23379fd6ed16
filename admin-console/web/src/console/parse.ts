// The console's editor text as requests, Kibana Dev Tools style:
//
//   # a comment (or // a comment)
//   GET /logs-*/_search
//   { "query": { "match_all": {} } }
//
//   POST _bulk
//   { "index": { "_index": "logs" } }
//   { "message": "hello" }
//
// A request starts at a line `METHOD path` (method in any case) and runs until the next such
// line; the lines below it are its body. Comment lines (`#`, `//`) are left out anywhere.
// `_bulk` and `_msearch` bodies are NDJSON: each JSON document (one per line, or pretty-printed
// over several) is sent on one line.
import { HTTP_METHODS, type HttpMethod } from "./history";
import { contentTypeFor } from "./request";

export interface ParsedRequest {
  method: HttpMethod;
  /** As typed after the method, trimmed (query string included). */
  path: string;
  /** The body as typed, comment lines removed and trimmed; "" when there is none. */
  body: string;
  /** Zero-based line numbers: the method line and the request's last non-blank line. */
  startLine: number;
  endLine: number;
  /** Document offsets of the method line's start and the last line's end. */
  from: number;
  to: number;
}

export interface PreparedBody {
  /** What to send; undefined for no body. */
  text?: string;
  contentType?: string;
  /** Why the body cannot be sent as it is (the request is not run). */
  error?: string;
}

const METHOD_LINE = /^\s*([A-Za-z]+)\s+(\S.*?)\s*$/;
const METHOD_ONLY = /^\s*([A-Za-z]+)\s*$/;

export function isCommentLine(line: string): boolean {
  const t = line.trimStart();
  return t.startsWith("#") || t.startsWith("//");
}

/** The method of a line that starts a request (`GET /x`, `get x`, or a bare `GET`), else null. */
export function methodOfLine(line: string): { method: HttpMethod; path: string } | null {
  const m = METHOD_LINE.exec(line) ?? METHOD_ONLY.exec(line);
  if (!m) return null;
  const method = m[1].toUpperCase();
  if (!(HTTP_METHODS as readonly string[]).includes(method)) return null;
  return { method: method as HttpMethod, path: (m[2] ?? "").trim() };
}

/** Every request of the text, in order. */
export function parseRequests(text: string): ParsedRequest[] {
  const lines = text.split("\n");
  const requests: ParsedRequest[] = [];
  let offset = 0;
  let current: (ParsedRequest & { bodyLines: string[] }) | null = null;
  const finish = () => {
    if (!current) return;
    const { bodyLines, ...request } = current;
    request.body = bodyLines.join("\n").trim();
    requests.push(request);
    current = null;
  };
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    const lineEnd = offset + line.length;
    const head = isCommentLine(line) ? null : methodOfLine(line);
    if (head) {
      finish();
      current = { ...head, body: "", startLine: n, endLine: n, from: offset, to: lineEnd, bodyLines: [] };
    } else if (current && !isCommentLine(line)) {
      current.bodyLines.push(line);
      if (line.trim() !== "") {
        current.endLine = n;
        current.to = lineEnd;
      }
    }
    offset = lineEnd + 1;
  }
  finish();
  return requests;
}

/**
 * The request the cursor is in: the one whose lines hold `line`, else the nearest one above it
 * (a blank or comment line after a request belongs to it, as in Kibana), else the first below.
 */
export function requestAtLine(requests: ParsedRequest[], line: number): ParsedRequest | null {
  let found: ParsedRequest | null = null;
  for (const request of requests) {
    if (request.startLine <= line) found = request;
    else break;
  }
  return found ?? requests[0] ?? null;
}

/** The JSON values of an NDJSON body, each possibly spread over several lines. */
export function splitJsonDocuments(text: string): string[] {
  const docs: string[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (start < 0) {
      if (/\s/.test(c)) continue;
      start = i;
    }
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    // A document ends when its brackets close, or at the end of its line for a bare value.
    const lineEnd = c === "\n" || i === text.length - 1;
    if ((depth <= 0 && (c === "}" || c === "]")) || (depth === 0 && lineEnd)) {
      const doc = text.slice(start, i + 1).trim();
      if (doc) docs.push(doc);
      start = -1;
      depth = 0;
    }
  }
  if (start >= 0) {
    const rest = text.slice(start).trim();
    if (rest) docs.push(rest);
  }
  return docs;
}

/** The body as it goes to the cluster, with its content type, or why it cannot go. */
export function prepareBody(request: Pick<ParsedRequest, "method" | "path" | "body">): PreparedBody {
  const text = request.body.trim();
  if (text === "") return {};
  const contentType = contentTypeFor(request.path);
  if (contentType === "application/x-ndjson") {
    const lines: string[] = [];
    const docs = splitJsonDocuments(text);
    for (let i = 0; i < docs.length; i++) {
      try {
        lines.push(JSON.stringify(JSON.parse(docs[i])));
      } catch (e) {
        return { error: `Line ${i + 1} of the NDJSON body is not valid JSON: ${(e as Error).message}` };
      }
    }
    return { text: lines.join("\n") + "\n", contentType };
  }
  try {
    JSON.parse(text);
  } catch (e) {
    return { error: `The body is not valid JSON: ${(e as Error).message}` };
  }
  return { text, contentType };
}

/** The text of one request for the editor (history, "copy as console"). */
export function formatRequest(method: string, path: string, body?: string): string {
  const line = `${method} ${path.startsWith("/") || path === "" ? path : `/${path}`}`.trimEnd();
  return body && body.trim() !== "" ? `${line}\n${body.trim()}` : line;
}
