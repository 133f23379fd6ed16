// @vitest-environment jsdom
// The REST console panel as the browser renders it (CodeMirror included); only `fetch`, the
// boundary to the admin console, is replaced.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { EditorView } from "@codemirror/view";
import { ConsolePanel } from "./ConsolePanel";
import { HistoryStore } from "./history";
import { memoryStorage } from "../lib/storage";
import type { ErrorBody } from "../api/wire";

type FetchArgs = [input: RequestInfo | URL, init?: RequestInit];
let fetchMock: ReturnType<typeof vi.fn<(...args: FetchArgs) => Promise<Response>>>;

// jsdom has no layout: CodeMirror measures text ranges, which report no boxes here.
beforeAll(() => {
  const noRects = () => Object.assign([] as DOMRect[], { item: () => null }) as unknown as DOMRectList;
  const emptyRect = () => new DOMRect(0, 0, 0, 0);
  Range.prototype.getClientRects ??= noRects;
  Range.prototype.getBoundingClientRect ??= emptyRect;
});

beforeEach(() => {
  fetchMock = vi.fn<(...args: FetchArgs) => Promise<Response>>();
  vi.stubGlobal("fetch", fetchMock);
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function answer(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

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

function headersOf(init: RequestInit | undefined): Headers {
  return new Headers(init?.headers);
}

describe("ConsolePanel", () => {
  it("sends the typed request through the relay with its method, path, body and the console header, and shows the answer", async () => {
    fetchMock.mockResolvedValue(
      answer(200, { took: 3, hits: { total: { value: 2 } } }, { "Server-Timing": "upstream;dur=12.5" }),
    );
    const { store } = renderPanel("prod");

    fireEvent.change(screen.getByLabelText("HTTP method"), { target: { value: "POST" } });
    fireEvent.change(screen.getByLabelText("Path"), { target: { value: "/logs-*/_search?size=5" } });
    const body = '{ "query": { "match_all": {} } }';
    typeInEditor("body-editor", body);
    fireEvent.click(screen.getByRole("button", { name: /Execute/ }));

    const status = await screen.findByTestId("response-status");
    expect(status.textContent).toBe("200 OK");
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/clusters/prod/proxy/logs-*/_search?size=5");
    expect(init?.method).toBe("POST");
    expect(init?.body).toBe(body);
    const headers = headersOf(init);
    expect(headers.get("X-Requested-By")).toBe("admin-console");
    expect(headers.get("Content-Type")).toBe("application/json");
    // The answer, pretty-printed, in the read-only editor; the cluster's own time in the title.
    expect(editorText("response-body")).toBe(JSON.stringify({ took: 3, hits: { total: { value: 2 } } }, null, 2));
    expect(screen.getByTestId("response-duration").getAttribute("title")).toBe("cluster: 13 ms");
    expect(screen.queryByTestId("console-error")).toBeNull();
    // The request went into the cluster's history with its status.
    const [entry] = store.list("prod");
    expect(entry).toMatchObject({ method: "POST", path: "/logs-*/_search?size=5", body, status: 200 });
  });

  it("sends no body with GET and keeps the header on a bodiless request", async () => {
    fetchMock.mockResolvedValue(answer(200, { status: "green" }));
    renderPanel("get-only");
    typeInEditor("body-editor", '{"ignored": true}');
    expect(screen.getByText(/Browsers send no body with GET/)).toBeTruthy();
    fireEvent.submit(screen.getByLabelText("Path").closest("form")!);

    await screen.findByTestId("response-status");
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/clusters/get-only/proxy/_cluster/health");
    expect(init?.method).toBe("GET");
    expect(init?.body).toBeUndefined();
    expect(headersOf(init).get("X-Requested-By")).toBe("admin-console");
    expect(headersOf(init).get("Content-Type")).toBeNull();
  });

  it("shows the message of the console's common error body when the relay refuses", async () => {
    const refusal: ErrorBody = {
      error: {
        code: "forbidden_path",
        message: "The console path is refused: it contains a . or .. segment. Give a path on the cluster, such as /_cluster/health.",
      },
    };
    fetchMock.mockResolvedValue(answer(403, refusal));
    renderPanel("refused");
    fireEvent.change(screen.getByLabelText("Path"), { target: { value: "a/../../etc" } });
    fireEvent.click(screen.getByRole("button", { name: /Execute/ }));

    expect((await screen.findByTestId("response-status")).textContent).toBe("403 Forbidden");
    expect(screen.getByRole("alert").textContent).toBe(refusal.error.message);
    // The raw body stays visible too.
    expect(editorText("response-body")).toContain('"code": "forbidden_path"');
  });

  it("shows a cluster's own error answer as it came, without the console's alert", async () => {
    fetchMock.mockResolvedValue(
      answer(404, { error: { type: "index_not_found_exception", reason: "no such index [x]" }, status: 404 }),
    );
    renderPanel("cluster-error");
    fireEvent.change(screen.getByLabelText("Path"), { target: { value: "x" } });
    fireEvent.click(screen.getByRole("button", { name: /Execute/ }));

    expect((await screen.findByTestId("response-status")).textContent).toBe("404 Not Found");
    expect(screen.queryByRole("alert")).toBeNull();
    expect(editorText("response-body")).toContain("index_not_found_exception");
  });

  it("says so when the admin console does not answer at all", async () => {
    fetchMock.mockRejectedValue(new TypeError("Failed to fetch"));
    renderPanel("down");
    fireEvent.click(screen.getByRole("button", { name: /Execute/ }));

    const response = screen.getByTestId("response");
    expect(await within(response).findByText(/The admin console did not answer/)).toBeTruthy();
    expect(screen.queryByTestId("response-status")).toBeNull();
  });
});
