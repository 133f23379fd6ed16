// @vitest-environment jsdom
// The REST console panel as the browser renders it (CodeMirror included); only `fetch`, the
// boundary to the admin console, is replaced.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { EditorView } from "@codemirror/view";
import { ConsolePanel } from "./ConsolePanel";
import { HistoryStore } from "./history";
import { memoryStorage } from "../lib/storage";
import type { ErrorBody } from "../api/wire";
import { type FetchArgs, type FetchMock, json, mockFetch } from "../test/fetch";

let fetchMock: FetchMock;

// jsdom has no layout: CodeMirror measures text ranges, which report no boxes here.
beforeAll(() => {
  const noRects = () => Object.assign([] as DOMRect[], { item: () => null }) as unknown as DOMRectList;
  const emptyRect = () => new DOMRect(0, 0, 0, 0);
  Range.prototype.getClientRects ??= noRects;
  Range.prototype.getBoundingClientRect ??= emptyRect;
});

beforeEach(() => {
  fetchMock = mockFetch();
});

/** Every call to the relay, leaving out the completion's own look-ups (dialect, names). */
function relayCalls(): FetchArgs[] {
  return fetchMock.mock.calls.filter(([url]) => String(url).includes("/proxy/") && !String(url).includes("_cat/aliases"));
}

/** Answers `dialect` and the name look-ups, and `relay` for everything else. */
function serve(relay: () => Response | Promise<Response>) {
  fetchMock.mockImplementation(async (input) => {
    const url = String(input);
    if (url.endsWith("/dialect")) return json(200, { distribution: "opensearch", major: 2 });
    if (url.includes("/indices?")) return json(200, { total: 1, page: 1, size: 500, sort: "name", order: "asc", indices: [] });
    if (url.includes("_cat/aliases")) return json(200, []);
    return relay();
  });
}

function editorOf(testId: string): EditorView {
  const host = screen.getByTestId(testId);
  return EditorView.findFromDOM(host.querySelector(".cm-editor") as HTMLElement)!;
}

/** Puts the cursor at the first occurrence of `marker` in the request editor. */
function cursorAt(marker: string) {
  const editor = editorOf("request-editor");
  const at = editor.state.doc.toString().indexOf(marker);
  expect(at, marker).toBeGreaterThanOrEqual(0);
  act(() => editor.dispatch({ selection: { anchor: at } }));
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderPanel(clusterId: string) {
  const store = new HistoryStore(memoryStorage());
  const view = render(<ConsolePanel clusterId={clusterId} store={store} />);
  return { store, view };
}

/** Types into a CodeMirror editor the way a keystroke does: a user input transaction. */
function typeInEditor(testId: string, text: string) {
  const host = screen.getByTestId(testId);
  const editor = EditorView.findFromDOM(host.querySelector(".cm-editor") as HTMLElement);
  expect(editor, `${testId} is a CodeMirror editor`).not.toBeNull();
  act(() => {
    editor!.dispatch({
      changes: { from: 0, to: editor!.state.doc.length, insert: text },
      userEvent: "input.type",
    });
  });
}

function editorText(testId: string): string {
  const host = screen.getByTestId(testId);
  return EditorView.findFromDOM(host.querySelector(".cm-editor") as HTMLElement)!.state.doc.toString();
}

/** The response editor's text once it is mounted (it mounts after the status line, which a
 * loaded machine shows first). */
async function responseText(): Promise<string> {
  let text = "";
  await waitFor(() => {
    const editor = screen.getByTestId("response-body").querySelector(".cm-editor");
    expect(editor).not.toBeNull();
    text = EditorView.findFromDOM(editor as HTMLElement)!.state.doc.toString();
  });
  return text;
}

function headersOf(init: RequestInit | undefined): Headers {
  return new Headers(init?.headers);
}

describe("ConsolePanel", () => {
  it("runs only the request under the cursor, with its method, path, body and the console header, and shows the answer", async () => {
    serve(() => json(200, { took: 3, hits: { total: { value: 2 } } }, { "Server-Timing": "upstream;dur=12.5" }));
    const { store } = renderPanel("prod");
    const body = '{ "query": { "match_all": {} } }';
    typeInEditor("request-editor", `GET /_cluster/health\n\n# search\nPOST /logs-*/_search?size=5\n${body}\n`);
    cursorAt("match_all");
    fireEvent.click(screen.getByTestId("run-request"));

    const status = await screen.findByTestId("response-status");
    expect(status.textContent).toBe("200 OK");
    expect(relayCalls()).toHaveLength(1);
    const [url, init] = relayCalls()[0]!;
    expect(url).toBe("/api/clusters/prod/proxy/logs-*/_search?size=5");
    expect(init?.method).toBe("POST");
    expect(init?.body).toBe(body);
    const headers = headersOf(init);
    expect(headers.get("X-Requested-By")).toBe("admin-console");
    expect(headers.get("Content-Type")).toBe("application/json");
    expect(headers.get("X-Console-Method")).toBeNull();
    expect(screen.getByTestId("response-request").textContent).toBe("POST /logs-*/_search?size=5");
    // The answer, pretty-printed, in the read-only editor; the cluster's own time in the title.
    expect(await responseText()).toBe(JSON.stringify({ took: 3, hits: { total: { value: 2 } } }, null, 2));
    expect(screen.getByTestId("response-duration").getAttribute("title")).toBe("cluster: 13 ms");
    expect(screen.queryByTestId("console-error")).toBeNull();
    // The request went into the cluster's history with its status.
    const [entry] = store.list("prod");
    expect(entry).toMatchObject({ method: "POST", path: "/logs-*/_search?size=5", body, status: 200 });
  });

  it("runs the request under the cursor on Ctrl+Enter (Cmd+Enter on a Mac) inside the editor", async () => {
    serve(() => json(200, {}));
    renderPanel("keys");
    typeInEditor("request-editor", "PUT /first-not-run\n\nGET /_cat/indices\n");
    cursorAt("_cat/indices");
    const content = editorOf("request-editor").contentDOM;
    act(() => {
      content.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", code: "Enter", ctrlKey: true, bubbles: true, cancelable: true }));
    });
    await screen.findByTestId("response-status");
    expect(relayCalls().map(([url, init]) => `${init?.method} ${url}`)).toEqual(["GET /api/clusters/keys/proxy/_cat/indices"]);
  });

  it("sends a GET with a body as POST with X-Console-Method: GET, and a bodiless GET as GET", async () => {
    serve(() => json(200, { hits: { hits: [] } }));
    renderPanel("get-body");
    typeInEditor("request-editor", 'GET /logs/_search\n{ "query": { "term": { "n": 1 } } }\n\nGET /_cat/health');
    cursorAt("term");
    fireEvent.click(screen.getByTestId("run-request"));
    await screen.findByTestId("response-status");
    let [url, init] = relayCalls()[0]!;
    expect(url).toBe("/api/clusters/get-body/proxy/logs/_search");
    expect(init?.method).toBe("POST");
    expect(headersOf(init).get("X-Console-Method")).toBe("GET");
    expect(JSON.parse(String(init?.body))).toEqual({ query: { term: { n: 1 } } });

    cursorAt("_cat/health");
    fireEvent.click(screen.getByTestId("run-request"));
    await vi.waitFor(() => expect(relayCalls()).toHaveLength(2));
    [url, init] = relayCalls()[1]!;
    expect(url).toBe("/api/clusters/get-body/proxy/_cat/health");
    expect(init?.method).toBe("GET");
    expect(init?.body).toBeUndefined();
    expect(headersOf(init).get("X-Console-Method")).toBeNull();
    expect(headersOf(init).get("Content-Type")).toBeNull();
  });

  it("sends NDJSON for _bulk, one document a line", async () => {
    serve(() => json(200, { errors: false, items: [] }));
    renderPanel("bulk");
    typeInEditor("request-editor", 'POST /_bulk\n{ "index": { "_index": "logs" } }\n{\n  "message": "hi"\n}\n');
    cursorAt("_bulk");
    fireEvent.click(screen.getByTestId("run-request"));
    await screen.findByTestId("response-status");
    const [, init] = relayCalls()[0]!;
    expect(headersOf(init).get("Content-Type")).toBe("application/x-ndjson");
    expect(init?.body).toBe('{"index":{"_index":"logs"}}\n{"message":"hi"}\n');
  });

  it("does not send a body that is not JSON, and says why", async () => {
    serve(() => json(200, {}));
    renderPanel("bad-body");
    typeInEditor("request-editor", "POST /x/_search\n{ nope\n");
    fireEvent.click(screen.getByTestId("run-request"));
    expect((await screen.findByTestId("console-failure")).textContent).toMatch(/^POST \/x\/_search: The body is not valid JSON/);
    expect(relayCalls()).toHaveLength(0);
  });

  it("shows the message of the console's common error body when the relay refuses", async () => {
    const refusal: ErrorBody = {
      error: {
        code: "forbidden_path",
        message: "The console path is refused: it contains a . or .. segment. Give a path on the cluster, such as /_cluster/health.",
      },
    };
    serve(() => json(403, refusal));
    renderPanel("refused");
    typeInEditor("request-editor", "GET a/../../etc");
    fireEvent.click(screen.getByTestId("run-request"));

    expect((await screen.findByTestId("response-status")).textContent).toBe("403 Forbidden");
    expect(screen.getByTestId("console-error").textContent).toBe(refusal.error.message);
    // The raw body stays visible too.
    expect(await responseText()).toContain('"code": "forbidden_path"');
  });

  it("shows a cluster's own error answer as it came, without the console's alert", async () => {
    serve(() => json(404, { error: { type: "index_not_found_exception", reason: "no such index [x]" }, status: 404 }));
    renderPanel("cluster-error");
    typeInEditor("request-editor", "GET x");
    fireEvent.click(screen.getByTestId("run-request"));

    expect((await screen.findByTestId("response-status")).textContent).toBe("404 Not Found");
    expect(screen.queryByRole("alert")).toBeNull();
    expect(await responseText()).toContain("index_not_found_exception");
  });

  it("says so when the admin console does not answer at all", async () => {
    serve(() => Promise.reject(new TypeError("Failed to fetch")));
    renderPanel("down");
    fireEvent.click(screen.getByTestId("run-request"));

    const response = screen.getByTestId("response");
    expect(await within(response).findByText(/The admin console did not answer/)).toBeTruthy();
    expect(screen.queryByTestId("response-status")).toBeNull();
  });

  it("adds a history entry to the editor and imports a history file, refusing a bad one with a message", async () => {
    serve(() => json(200, {}));
    const { store } = renderPanel("hist");
    store.add("hist", { method: "POST", path: "/books/_search", body: '{"size":0}', executedAt: 1 });
    cleanup();
    render(<ConsolePanel clusterId="hist" store={store} />);
    fireEvent.click(screen.getByRole("tab", { name: /History/ }));
    fireEvent.click(screen.getByText("/books/_search"));
    expect(editorText("request-editor")).toMatch(/\n\nPOST \/books\/_search\n\{"size":0\}\n$/);

    fireEvent.click(screen.getByRole("tab", { name: /History/ }));
    const input = screen.getByTestId("history-import-file") as HTMLInputElement;
    const bad = new File(["{ not json"], "h.json", { type: "application/json" });
    fireEvent.change(input, { target: { files: [bad] } });
    expect((await screen.findByTestId("history-import-problem")).textContent).toMatch(/^The file is not JSON/);

    const good = new File(
      [JSON.stringify({ format: "admin-console-history", version: 1, cluster: "x", exportedAt: "", entries: [{ method: "GET", path: "/_nodes", executedAt: 5 }] })],
      "h.json",
      { type: "application/json" },
    );
    fireEvent.change(input, { target: { files: [good] } });
    await vi.waitFor(() => expect(store.list("hist").map((e) => e.path)).toEqual(["/_nodes", "/books/_search"]));
    expect(screen.queryByTestId("history-import-problem")).toBeNull();
  });
});
