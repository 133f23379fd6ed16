// The REST console itself, Kibana Dev Tools style: several requests in one editor
// (`GET /path` and a JSON or NDJSON body below), Ctrl/Cmd+Enter or the gutter's ▶ runs the
// request under the cursor, the response pane shows its status, time and body; the History tab
// lists what ran, and exports and imports it as a JSON file; the Saved tab keeps named queries
// on the server (SavedPanel).
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { autocompletion } from "@codemirror/autocomplete";
import { EditorView } from "@codemirror/view";
import type { Extension } from "@codemirror/state";
import {
  HistoryStore,
  MAX_IMPORT_BYTES,
  exportFileName,
  exportHistory,
  parseHistoryImport,
  type HistoryEntry,
} from "./history";
import {
  fetchMethod,
  prettyBody,
  relayUrl,
  statusClass,
  statusLine,
  toCurl,
  upstreamDuration,
} from "./request";
import { formatRequest, prepareBody, type ParsedRequest } from "./parse";
import { requestAtCursor, requestEditorExtensions } from "./editor";
import { consoleCompletion } from "./completion/source";
import { dialectName, endpointsFor, type DialectName } from "./completion/paths";
import { sessionLoader } from "./completion/names";
import { formatDuration, formatLocalTime } from "../lib/format";
import { CONSOLE_HEADERS, isErrorBody } from "../api/client";
import { CodeEditor } from "./CodeEditor";
import { SavedPanel } from "./SavedPanel";
import { ConsoleTabStrip } from "./ConsoleTabStrip";
import { useServerTabs } from "./useServerTabs";
import {
  OPEN_EVENT,
  activeTab,
  initialTabs,
  loadTabs,
  setActiveText,
  storeTabs,
  takePending,
  withRequests,
  type ConsoleTabs,
} from "./tabs";
import { browserStorage, type KeyValueStorage } from "../lib/storage";
import { relayNeeds } from "../lib/access";
import { useClusterAccess } from "../lib/whoami";
import { askReason, reasonHeaders, useIsProduction } from "../lib/changeReason";
import { CopyIcon, PlayIcon, TrashIcon } from "../components/icons";
import "../styles/console.css";

interface ConsoleResult {
  /** The request line that ran, e.g. `GET /logs/_search`. */
  request: string;
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

// The last response per cluster, kept while the page lives so that closing the console or
// switching views loses nothing (the texts are in the tabs, kept in the browser's storage).
const drafts = new Map<string, { result: ConsoleResult | null }>();
export const DEFAULT_TEXT = "# Ctrl+Enter (Cmd+Enter) runs the request under the cursor\nGET /_cluster/health\n";

interface Props {
  clusterId: string;
  /** For the reason prompt of a production cluster. */
  clusterName?: string;
  store: HistoryStore;
  /** Where the tabs are kept (default: the browser's localStorage). */
  tabStorage?: KeyValueStorage;
}

/** A request that changes something: not a read (`GET`, `HEAD`) nor one of the read-only calls. */
export function isWrite(method: string, path: string, body: string): boolean {
  return !["GET", "HEAD"].includes(method.toUpperCase()) && relayNeeds(method, path, body) !== "viewer";
}

export function ConsolePanel({ clusterId, clusterName = clusterId, store, tabStorage }: Props) {
  const production = useIsProduction(clusterId);
  const saved = drafts.get(clusterId);
  const tabsStorage = useMemo(() => tabStorage ?? browserStorage(), [tabStorage]);
  const [tabs, setTabs] = useState<ConsoleTabs>(() => loadTabs(tabsStorage, clusterId) ?? initialTabs(DEFAULT_TEXT));
  const text = activeTab(tabs).text;
  const setText = useCallback((next: string) => setTabs((state) => setActiveText(state, next)), []);
  const [result, setResult] = useState<ConsoleResult | null>(saved?.result ?? null);
  const [failure, setFailure] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [tab, setTab] = useState<"request" | "history" | "saved">("request");
  const [entries, setEntries] = useState<HistoryEntry[]>(() => store.list(clusterId));
  const [notice, setNotice] = useState<string | null>(null);
  const [importProblem, setImportProblem] = useState<string | null>(null);
  const [current, setCurrent] = useState<ParsedRequest | null>(null);
  const [dialect, setDialect] = useState<DialectName>("elasticsearch-8");
  const inFlight = useRef<AbortController | null>(null);
  const editorView = useRef<EditorView | null>(null);
  const pendingCursor = useRef<number | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  // Names and dialect for completion: fetched once per console session.
  const loader = useMemo(() => sessionLoader(clusterId), [clusterId]);
  const dialectRef = useRef(dialect);
  dialectRef.current = dialect;
  useEffect(() => {
    let live = true;
    void loader.dialect().then((found) => live && setDialect(dialectName(found)));
    return () => {
      live = false;
    };
  }, [loader]);

  useEffect(() => {
    drafts.set(clusterId, { result });
  }, [clusterId, result]);

  const [tabsNotice, setTabsNotice] = useState<string | null>(null);
  useEffect(() => {
    setTabsNotice(
      storeTabs(tabsStorage, clusterId, tabs) ? null : "The browser refused to keep the tabs; they last until this page closes.",
    );
  }, [tabsStorage, clusterId, tabs]);

  // "Open in console" from a view: each waiting request in a new tab, now and while mounted.
  const openedHere = useMemo(() => new Set<string>(), []);
  useEffect(() => {
    const drain = () => {
      const requests = takePending();
      if (requests.length === 0) return;
      setTabs((state) => {
        const next = withRequests(state, requests);
        for (const tab of next.tabs.slice(-requests.length)) openedHere.add(tab.id);
        return next;
      });
      setTab("request");
    };
    drain();
    window.addEventListener(OPEN_EVENT, drain);
    return () => window.removeEventListener(OPEN_EVENT, drain);
  }, [openedHere]);
  const serverNotice = useServerTabs(clusterId, tabs, setTabs, openedHere);

  useEffect(() => () => inFlight.current?.abort(), []);

  const flash = useCallback((message: string) => {
    setNotice(message);
    window.setTimeout(() => setNotice((n) => (n === message ? null : n)), 2500);
  }, []);

  const execute = useCallback(
    async (request: ParsedRequest) => {
      const { method, path, body } = request;
      const label = `${method} ${path || "/"}`;
      setTab("request");
      setFailure(null);
      const prepared = prepareBody(request);
      if (prepared.error) {
        setResult(null);
        setFailure(`${label}: ${prepared.error}`);
        return;
      }
      inFlight.current?.abort();
      const controller = new AbortController();
      inFlight.current = controller;
      setRunning(true);
      const sent = prepared.text;
      const how = fetchMethod(method, sent !== undefined);
      let started = performance.now();
      let outcome: ConsoleResult | null = null;
      const send = (extra: Record<string, string>) =>
        fetch(relayUrl(clusterId, path), {
          method: how.method,
          body: sent,
          headers: {
            ...(sent !== undefined ? { "Content-Type": prepared.contentType! } : {}),
            ...how.headers,
            ...extra,
            ...CONSOLE_HEADERS,
          },
          signal: controller.signal,
        });
      try {
        // A write to a production cluster says why (the server refuses it otherwise).
        let reason: Record<string, string> = {};
        if (production && isWrite(method, path, body)) {
          const given = await askReason(`${clusterName} is a production cluster: say why you send ${label}.`);
          if (given === null) {
            setFailure(`${label} was not sent: a change to a production cluster needs a reason.`);
            return;
          }
          reason = reasonHeaders(given);
          started = performance.now();
        }
        let response = await send(reason);
        if (response.status === 428 && Object.keys(reason).length === 0) {
          const refusal = await response
            .clone()
            .json()
            .catch(() => null);
          if (isErrorBody(refusal) && refusal.error.code === "change_reason_required") {
            const given = await askReason(refusal.error.message);
            if (given !== null) {
              started = performance.now();
              response = await send(reasonHeaders(given));
            }
          }
        }
        const answer = await response.text();
        const durationMs = performance.now() - started;
        const pretty = prettyBody(answer);
        const consoleError = !response.ok && pretty.json ? consoleErrorMessage(answer) : null;
        outcome = {
          request: label,
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
        path,
        ...(body !== "" ? { body } : {}),
        executedAt: Date.now(),
        ...(outcome ? { status: outcome.status, durationMs: Math.round(outcome.durationMs) } : {}),
      };
      const { entries: next, persisted } = store.add(clusterId, entry);
      setEntries(next);
      if (!persisted) flash("Browser storage is full: history is kept for this tab only");
    },
    [clusterId, clusterName, production, store, flash],
  );

  const executeRef = useRef(execute);
  executeRef.current = execute;

  const extensions = useMemo<Extension[]>(
    () => [
      ...requestEditorExtensions((request) => void executeRef.current(request)),
      autocompletion({
        override: [
          consoleCompletion({
            endpoints: () => endpointsFor(dialectRef.current),
            names: () => loader.names(),
          }),
        ],
        icons: false,
      }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged || update.selectionSet) setCurrent(requestAtCursor(update.state));
      }),
    ],
    [loader],
  );

  const onView = useCallback((view: EditorView | null) => {
    editorView.current = view;
    if (view) setCurrent(requestAtCursor(view.state));
  }, []);

  // After the text is replaced from outside (a history entry), put the cursor where asked.
  useEffect(() => {
    const view = editorView.current;
    const at = pendingCursor.current;
    if (view && at !== null && view.state.doc.toString() === text) {
      pendingCursor.current = null;
      view.dispatch({ selection: { anchor: Math.min(at, view.state.doc.length) }, scrollIntoView: true });
      view.focus();
    }
  }, [text]);

  const runCurrent = () => {
    const view = editorView.current;
    const request = view ? requestAtCursor(view.state) : current;
    if (request) void execute(request);
  };

  const loadEntry = (entry: HistoryEntry) => {
    const addition = formatRequest(entry.method, entry.path, entry.body);
    const base = text.replace(/\s*$/, "");
    const next = base === "" ? `${addition}\n` : `${base}\n\n${addition}\n`;
    pendingCursor.current = base === "" ? 0 : base.length + 2;
    setText(next);
    setTab("request");
  };

  const clearHistory = () => {
    store.clear(clusterId);
    setEntries([]);
  };

  const exportEntries = () => {
    const data = JSON.stringify(exportHistory(clusterId, entries), null, 2);
    const url = URL.createObjectURL(new Blob([data], { type: "application/json" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = exportFileName(clusterId);
    document.body.appendChild(link);
    link.click();
    link.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  const importFile = async (file: File) => {
    setImportProblem(null);
    if (file.size > MAX_IMPORT_BYTES) {
      const refused = parseHistoryImport("", file.size);
      if (!refused.ok) setImportProblem(refused.message);
      return;
    }
    let content: string;
    try {
      content = await file.text();
    } catch {
      setImportProblem("The file could not be read.");
      return;
    }
    const parsed = parseHistoryImport(content, file.size);
    if (!parsed.ok) {
      setImportProblem(parsed.message);
      return;
    }
    const before = entries.length;
    const { entries: next, persisted } = store.merge(clusterId, parsed.entries);
    setEntries(next);
    const added = Math.max(0, next.length - before);
    const skipped = parsed.skipped ? `, ${parsed.skipped} skipped (not requests)` : "";
    flash(`Imported ${parsed.entries.length} request${parsed.entries.length === 1 ? "" : "s"} (${added} new${skipped})`);
    if (!persisted) setImportProblem("Browser storage is full: the merged history is kept for this tab only.");
  };

  const copy = async (value: string, what: string) => {
    try {
      await navigator.clipboard.writeText(value);
      flash(`${what} copied`);
    } catch {
      flash(`Could not copy: the browser refused clipboard access`);
    }
  };

  // The editor stays usable whatever the role (a request can be drafted, copied as cURL, or
  // run by someone else); a request above the caller's role gets a notice instead.
  const access = useClusterAccess(clusterId);
  const roleNotice = current ? access.denied(relayNeeds(current.method, current.path, current.body)) : null;
  const bodyProblem = current ? prepareBody(current).error ?? null : null;

  return (
    <div className="console-panel">
      <div className="console-tabs" role="tablist">
        <button role="tab" aria-selected={tab === "request"} onClick={() => setTab("request")}>
          Requests
        </button>
        <button role="tab" aria-selected={tab === "history"} onClick={() => setTab("history")}>
          History <span className="count">{entries.length}</span>
        </button>
        <button role="tab" aria-selected={tab === "saved"} data-testid="saved-tab" onClick={() => setTab("saved")}>
          Saved
        </button>
        <span className="spacer" />
        {notice && (
          <span className="notice" role="status">
            {notice}
          </span>
        )}
        <button
          className="btn btn-ghost btn-small"
          title="Copy the request under the cursor as cURL (through this console, without credentials)"
          disabled={!current}
          onClick={() => current && copy(toCurl(window.location.origin, clusterId, current.method, current.path, prepareBody(current).text ?? ""), "cURL command")}
        >
          <CopyIcon /> cURL
        </button>
        <button
          className="btn btn-primary btn-small"
          data-testid="run-request"
          disabled={running || !current}
          title="Execute the request under the cursor (Ctrl+Enter)"
          onClick={runCurrent}
        >
          <PlayIcon /> {running ? "Running…" : "Execute"}
        </button>
      </div>

      {production && !roleNotice && tab === "request" && current && isWrite(current.method, current.path, current.body) && (
        <div className="hint hint-warn" role="note" data-testid="production-notice">
          {clusterName} is a production cluster: you will be asked why before this request is sent.
        </div>
      )}
      {roleNotice && tab === "request" && (
        <div className="hint hint-warn" role="note" data-testid="role-notice">
          {roleNotice} The admin console will refuse this request.
        </div>
      )}

      {tab === "request" ? (
        <div className="request-pane">
          <ConsoleTabStrip tabs={tabs} onChange={setTabs} defaultText={DEFAULT_TEXT} />
          {(serverNotice ?? tabsNotice) && (
            <div className="hint hint-warn" role="note" data-testid="tabs-notice">
              {serverNotice ?? tabsNotice}
            </div>
          )}
          <div className="body-editor">
            <CodeEditor
              ariaLabel="Console requests"
              testId="request-editor"
              language="text"
              value={text}
              onChange={setText}
              extensions={extensions}
              onView={onView}
            />
            {bodyProblem && <div className="hint hint-warn">{bodyProblem}</div>}
          </div>
          <div className="response" data-testid="response">
            <div className="response-meta">
              {result ? (
                <>
                  <span className="response-request" data-testid="response-request" title={result.request}>
                    {result.request}
                  </span>
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
                  {running ? "Waiting for the cluster…" : "Ctrl+Enter (Cmd+Enter) or ▶ runs the request under the cursor."}
                </span>
              )}
            </div>
            {failure && (
              <div className="hint hint-error" role="alert" data-testid="console-failure">
                {failure}
              </div>
            )}
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
      ) : tab === "saved" ? (
        <SavedPanel
          clusterId={clusterId}
          text={text}
          defaultText={DEFAULT_TEXT}
          replaceText={(next) => {
            pendingCursor.current = 0;
            setText(next);
            setTab("request");
          }}
        />
      ) : (
        <HistoryList
          entries={entries}
          onChoose={loadEntry}
          onClear={clearHistory}
          onExport={exportEntries}
          onImport={() => fileInput.current?.click()}
          problem={importProblem}
        />
      )}
      <input
        ref={fileInput}
        type="file"
        accept="application/json,.json"
        hidden
        data-testid="history-import-file"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = "";
          if (file) void importFile(file);
        }}
      />
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
  onExport,
  onImport,
  problem,
}: {
  entries: HistoryEntry[];
  onChoose: (e: HistoryEntry) => void;
  onClear: () => void;
  onExport: () => void;
  onImport: () => void;
  problem: string | null;
}) {
  return (
    <div className="history" data-testid="history">
      <div className="history-toolbar">
        <span className="muted">
          {entries.length === 0
            ? "No requests yet for this cluster."
            : `${entries.length} request${entries.length === 1 ? "" : "s"}, newest first. Choose one to add it to the editor.`}
        </span>
        <span className="spacer" />
        <button className="btn btn-ghost btn-small" onClick={onExport} disabled={entries.length === 0} data-testid="history-export">
          Export
        </button>
        <button className="btn btn-ghost btn-small" onClick={onImport} data-testid="history-import">
          Import
        </button>
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
      {problem && (
        <div className="hint hint-error" role="alert" data-testid="history-import-problem">
          {problem}
        </div>
      )}
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
