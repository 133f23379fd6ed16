// The REST console itself: request line, JSON body, response, and the History tab.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { HTTP_METHODS, HistoryStore, type HistoryEntry, type HttpMethod } from "./history";
import {
  contentTypeFor,
  prettyBody,
  relayUrl,
  requestBody,
  statusClass,
  statusLine,
  toCurl,
  upstreamDuration,
} from "./request";
import { formatDuration, formatLocalTime } from "../lib/format";
import { CONSOLE_HEADERS, isErrorBody } from "../api/client";
import { CodeEditor } from "./CodeEditor";
import { relayNeeds } from "../lib/access";
import { useClusterAccess } from "../lib/whoami";
import { CopyIcon, PlayIcon, TrashIcon } from "../components/icons";

interface Draft {
  method: HttpMethod;
  path: string;
  body: string;
}

interface ConsoleResult {
  status: number;
  statusText: string;
  durationMs: number;
  upstreamMs: number | null;
  body: string;
  json: boolean;
  contentType: string;
  /** The admin console's own refusal (the common error body), as opposed to the cluster's answer. */
  consoleError: string | null;
}

// Drafts and the last response per cluster, kept while the page lives so that closing the
// console or switching views loses nothing.
const drafts = new Map<string, { draft: Draft; result: ConsoleResult | null }>();
const DEFAULT_DRAFT: Draft = { method: "GET", path: "_cluster/health", body: "" };

interface Props {
  clusterId: string;
  store: HistoryStore;
}

export function ConsolePanel({ clusterId, store }: Props) {
  const saved = drafts.get(clusterId);
  const [draft, setDraft] = useState<Draft>(saved?.draft ?? DEFAULT_DRAFT);
  const [result, setResult] = useState<ConsoleResult | null>(saved?.result ?? null);
  const [failure, setFailure] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [tab, setTab] = useState<"request" | "history">("request");
  const [entries, setEntries] = useState<HistoryEntry[]>(() => store.list(clusterId));
  const [notice, setNotice] = useState<string | null>(null);
  const pathInput = useRef<HTMLInputElement>(null);
  const inFlight = useRef<AbortController | null>(null);

  useEffect(() => {
    drafts.set(clusterId, { draft, result });
  }, [clusterId, draft, result]);

  useEffect(() => () => inFlight.current?.abort(), []);

  const flash = useCallback((text: string) => {
    setNotice(text);
    window.setTimeout(() => setNotice((n) => (n === text ? null : n)), 2500);
  }, []);

  const draftRef = useRef(draft);
  draftRef.current = draft;

  const execute = useCallback(async () => {
    const { method, path, body } = draftRef.current;
    inFlight.current?.abort();
    const controller = new AbortController();
    inFlight.current = controller;
    setRunning(true);
    setFailure(null);
    setTab("request");
    const sent = requestBody(method, body);
    const started = performance.now();
    let outcome: ConsoleResult | null = null;
    try {
      const response = await fetch(relayUrl(clusterId, path), {
        method,
        body: sent,
        headers: sent !== undefined ? { "Content-Type": contentTypeFor(path), ...CONSOLE_HEADERS } : CONSOLE_HEADERS,
        signal: controller.signal,
      });
      const text = await response.text();
      const durationMs = performance.now() - started;
      const pretty = prettyBody(text);
      const consoleError = !response.ok && pretty.json ? consoleErrorMessage(text) : null;
      outcome = {
        status: response.status,
        statusText: response.statusText,
        durationMs,
        upstreamMs: upstreamDuration(response.headers.get("Server-Timing")),
        body: pretty.text,
        json: pretty.json,
        contentType: response.headers.get("Content-Type") ?? "",
        consoleError,
      };
      setResult(outcome);
    } catch (e) {
      if ((e as Error).name === "AbortError") return;
      setResult(null);
      setFailure("The admin console did not answer; the request may not have reached the cluster.");
    } finally {
      if (inFlight.current === controller) {
        inFlight.current = null;
        setRunning(false);
      }
    }
    const entry: HistoryEntry = {
      method,
      path: path.trim(),
      ...(body.trim() !== "" ? { body } : {}),
      executedAt: Date.now(),
      ...(outcome ? { status: outcome.status, durationMs: Math.round(outcome.durationMs) } : {}),
    };
    const { entries: next, persisted } = store.add(clusterId, entry);
    setEntries(next);
    if (!persisted) flash("Browser storage is full: history is kept for this tab only");
  }, [clusterId, store, flash]);

  const onKeyDown = (e: React.KeyboardEvent) => {
    // CodeMirror handles its own Ctrl+Enter; everything else in the panel lands here.
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.defaultPrevented) {
      e.preventDefault();
      void execute();
    }
  };

  const loadEntry = (entry: HistoryEntry) => {
    setDraft({ method: entry.method, path: entry.path, body: entry.body ?? "" });
    setTab("request");
    requestAnimationFrame(() => pathInput.current?.focus());
  };

  const clearHistory = () => {
    store.clear(clusterId);
    setEntries([]);
  };

  const copy = async (text: string, what: string) => {
    try {
      await navigator.clipboard.writeText(text);
      flash(`${what} copied`);
    } catch {
      flash(`Could not copy: the browser refused clipboard access`);
    }
  };

  // The editor stays usable whatever the role (a request can be drafted, copied as cURL, or
  // run by someone else); a request above the caller's role gets a notice instead.
  const access = useClusterAccess(clusterId);
  const roleNotice = access.denied(relayNeeds(draft.method, draft.path, draft.body));

  const bodyProblem = useMemo(() => {
    const text = draft.body.trim();
    if (text === "") return null;
    if (draft.method === "GET") return "Browsers send no body with GET: use POST (search APIs accept it).";
    if (contentTypeFor(draft.path) !== "application/json") return null;
    try {
      JSON.parse(text);
      return null;
    } catch (e) {
      return `Not valid JSON: ${(e as Error).message}`;
    }
  }, [draft.body, draft.method, draft.path]);

  return (
    <div className="console-panel" onKeyDown={onKeyDown}>
      <form
        className="request-line"
        onSubmit={(e) => {
          e.preventDefault();
          void execute();
        }}
      >
        <select
          aria-label="HTTP method"
          className={`method method-${draft.method.toLowerCase()}`}
          value={draft.method}
          onChange={(e) => setDraft({ ...draft, method: e.target.value as HttpMethod })}
        >
          {HTTP_METHODS.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        <input
          ref={pathInput}
          aria-label="Path"
          className="path-input"
          spellCheck={false}
          autoComplete="off"
          placeholder="_cluster/health"
          value={draft.path}
          onChange={(e) => setDraft({ ...draft, path: e.target.value })}
        />
        <button type="submit" className="btn btn-primary" disabled={running} title="Execute (Ctrl+Enter)">
          <PlayIcon /> {running ? "Running…" : "Execute"}
        </button>
      </form>

      {roleNotice && (
        <div className="hint hint-warn" role="note" data-testid="role-notice">
          {roleNotice} The admin console will refuse this request.
        </div>
      )}

      <div className="console-tabs" role="tablist">
        <button role="tab" aria-selected={tab === "request"} onClick={() => setTab("request")}>
          Request
        </button>
        <button role="tab" aria-selected={tab === "history"} onClick={() => setTab("history")}>
          History <span className="count">{entries.length}</span>
        </button>
        <span className="spacer" />
        {notice && (
          <span className="notice" role="status">
            {notice}
          </span>
        )}
        <button
          className="btn btn-ghost btn-small"
          title="Copy as cURL (through this console, without credentials)"
          onClick={() => copy(toCurl(window.location.origin, clusterId, draft.method, draft.path, draft.body), "cURL command")}
        >
          <CopyIcon /> cURL
        </button>
      </div>

      {tab === "request" ? (
        <div className="request-pane">
          <div className="body-editor">
            <CodeEditor
              ariaLabel="Request body"
              testId="body-editor"
              value={draft.body}
              onChange={(body) => setDraft((d) => ({ ...d, body }))}
              onSubmit={() => void execute()}
              placeholder={'Request body (JSON), for POST and PUT\n{\n  "query": { "match_all": {} }\n}'}
            />
            {bodyProblem && <div className="hint hint-warn">{bodyProblem}</div>}
          </div>
          <div className="response" data-testid="response">
            <div className="response-meta">
              {result ? (
                <>
                  <span className={`status status-${statusClass(result.status)}`} data-testid="response-status">
                    {statusLine(result.status, result.statusText)}
                  </span>
                  <span
                    className="duration"
                    data-testid="response-duration"
                    title={result.upstreamMs != null ? `cluster: ${formatDuration(result.upstreamMs)}` : undefined}
                  >
                    {formatDuration(result.durationMs)}
                  </span>
                  <span className="spacer" />
                  <button className="btn btn-ghost btn-small" onClick={() => copy(result.body, "Response")}>
                    <CopyIcon /> Copy
                  </button>
                </>
              ) : (
                <span className="muted">
                  {running ? "Waiting for the cluster…" : "Press Execute or Ctrl+Enter to send the request."}
                </span>
              )}
            </div>
            {failure && <div className="hint hint-error">{failure}</div>}
            {result?.consoleError && (
              <div className="hint hint-error" role="alert" data-testid="console-error">
                {result.consoleError}
              </div>
            )}
            {result && (
              <CodeEditor
                ariaLabel="Response body"
                testId="response-body"
                readOnly
                language={result.json ? "json" : "text"}
                value={result.body === "" ? "(empty body)" : result.body}
              />
            )}
          </div>
        </div>
      ) : (
        <HistoryList entries={entries} onChoose={loadEntry} onClear={clearHistory} />
      )}
    </div>
  );
}

/** The message of the common error body `{"error": {"code", "message"}}`, which the relay answers
 * with when it refuses a request or cannot reach the cluster. */
function consoleErrorMessage(text: string): string | null {
  try {
    const body: unknown = JSON.parse(text);
    return isErrorBody(body) ? body.error.message : null;
  } catch {
    return null;
  }
}

function HistoryList({
  entries,
  onChoose,
  onClear,
}: {
  entries: HistoryEntry[];
  onChoose: (e: HistoryEntry) => void;
  onClear: () => void;
}) {
  return (
    <div className="history" data-testid="history">
      <div className="history-toolbar">
        <span className="muted">
          {entries.length === 0
            ? "No requests yet for this cluster."
            : `${entries.length} request${entries.length === 1 ? "" : "s"}, newest first. Choose one to load it.`}
        </span>
        <button
          className="btn btn-ghost btn-icon"
          aria-label="Clear history"
          title="Clear history"
          disabled={entries.length === 0}
          onClick={onClear}
        >
          <TrashIcon />
        </button>
      </div>
      <ul className="history-list">
        {entries.map((entry) => (
          <li key={`${entry.executedAt}-${entry.method}-${entry.path}`}>
            <button className="history-entry" onClick={() => onChoose(entry)}>
              <span className={`method-tag method-${entry.method.toLowerCase()}`}>{entry.method}</span>
              <span className="history-path">{entry.path || "/"}</span>
              {entry.body && <span className="history-body muted">{entry.body.replace(/\s+/g, " ").slice(0, 80)}</span>}
              <span className="history-meta muted">
                {entry.status != null && (
                  <span className={`status-text status-${statusClass(entry.status)}`}>{entry.status}</span>
                )}
                {formatLocalTime(entry.executedAt)}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
