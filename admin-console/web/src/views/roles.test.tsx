// @vitest-environment jsdom
// The web app mirrors the caller's role (GET /api/whoami): the header says who is signed in,
// actions above the role are disabled with the reason, the console warns, and a call the
// server refuses anyway shows the server's message. Only `fetch` is replaced.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { EditorView } from "@codemirror/view";
import type { ReactNode } from "react";
import type { Allocation, ErrorBody, IndexPage, WhoAmI } from "../api/wire";
import { WhoAmIProvider } from "../lib/whoami";
import { SignedIn } from "../components/SignedIn";
import { IndicesView } from "./IndicesView";
import { AllocationLock } from "./AllocationLock";
import { drainState } from "./NodeDrain";
import { ConsolePanel } from "../console/ConsolePanel";
import { HistoryStore } from "../console/history";
import { memoryStorage } from "../lib/storage";
import { type FetchMock, json, mockFetch, notServed } from "../test/fetch";

let fetchMock: FetchMock;

beforeAll(() => {
  // jsdom has no layout; CodeMirror measures text ranges.
  const noRects = () => Object.assign([] as DOMRect[], { item: () => null }) as unknown as DOMRectList;
  Range.prototype.getClientRects ??= noRects;
  Range.prototype.getBoundingClientRect ??= () => new DOMRect(0, 0, 0, 0);
});

beforeEach(() => {
  // What a test does not serve is a 404 (the console also asks for its tabs when it mounts).
  fetchMock = mockFetch();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function who(role: "viewer" | "operator" | "admin", mode: WhoAmI["mode"] = "trusted_headers"): WhoAmI {
  return mode === "open"
    ? { mode, user: null, email: null, groups: [], roles: { prod: role } }
    : { mode, user: "vera", email: "vera@example.com", groups: ["staff", "search"], roles: { prod: role } };
}

function withRole(whoami: WhoAmI | undefined, node: ReactNode) {
  return render(<WhoAmIProvider value={whoami}>{node}</WhoAmIProvider>);
}

const PAGE: IndexPage = {
  total: 2,
  page: 1,
  size: 20,
  sort: "name",
  order: "asc",
  indices: [
    { name: "logs", health: "green", status: "open", primaries: 1, replicas: 0, docsCount: 3, storeSizeBytes: 100 },
    { name: "old", health: null, status: "close", primaries: 1, replicas: 0, docsCount: 0, storeSizeBytes: 0 },
  ],
};

/** The index list of `prod`; index actions (`/indices/_actions/…`) answer with `action`. */
function serveIndices(action: () => Response) {
  fetchMock.mockImplementation(async (input) => {
    const url = String(input);
    if (url.startsWith("/api/clusters/prod/indices/_actions/")) return action();
    if (url.startsWith("/api/clusters/prod/indices")) return json(200, PAGE);
    return notServed(url);
  });
}

describe("the header", () => {
  it("shows the signed-in user and their role on the current cluster", () => {
    withRole(who("viewer"), <SignedIn clusterId="prod" />);
    expect(screen.getByTestId("identity-user").textContent).toContain("vera");
    expect(screen.getByTestId("identity-user").getAttribute("title")).toBe("vera\nvera@example.com\nGroups: staff, search");
    expect(screen.getByTestId("identity-role").textContent).toBe("viewer");
  });

  it("says open access in open mode, and nothing before whoami answered", () => {
    const view = withRole(who("admin", "open"), <SignedIn clusterId="prod" />);
    expect(screen.getByTestId("identity").textContent).toBe("open access");
    view.unmount();
    withRole(undefined, <SignedIn clusterId="prod" />);
    expect(screen.queryByTestId("identity")).toBeNull();
  });
});

describe("index operations", () => {
  it("a viewer gets disabled close and open buttons that say why", async () => {
    serveIndices(() => json(500, {}));
    withRole(who("viewer"), <IndicesView clusterId="prod" search="" />);
    const close = (await screen.findByRole("button", { name: "Close index logs" })) as HTMLButtonElement;
    const open = screen.getByRole("button", { name: "Open index old" }) as HTMLButtonElement;
    for (const button of [close, open]) {
      expect(button.disabled).toBe(true);
      expect(button.title).toBe("Needs the operator role; you have viewer.");
      expect((button.parentElement as HTMLElement).title).toBe("Needs the operator role; you have viewer.");
    }
    fireEvent.click(close);
    expect(fetchMock.mock.calls.some(([url]) => String(url).includes("/_actions/"))).toBe(false);
  });

  it("an operator closes after confirming, through the typed index action", async () => {
    serveIndices(() => json(200, { action: "close", results: [{ index: "logs", ok: true, message: null }] }));
    withRole(who("operator"), <IndicesView clusterId="prod" search="" />);
    const close = (await screen.findByRole("button", { name: "Close index logs" })) as HTMLButtonElement;
    expect(close.disabled).toBe(false);
    fireEvent.click(close);
    expect(close.textContent).toBe("Confirm close");
    expect(fetchMock.mock.calls.some(([url]) => String(url).includes("/_actions/"))).toBe(false);
    fireEvent.click(close);
    expect((await screen.findByTestId("index-action-done")).textContent).toBe("Index logs closed.");
    const call = fetchMock.mock.calls.find(([url]) => String(url).includes("/_actions/"))!;
    expect(String(call[0])).toBe("/api/clusters/prod/indices/_actions/close");
    expect(call[1]?.method).toBe("POST");
    expect(JSON.parse(String(call[1]?.body))).toEqual({ indices: ["logs"] });
    expect((call[1]?.headers as Record<string, string>)["X-Requested-By"]).toBe("admin-console");
  });

  it("a refusal from the server shows the server's message", async () => {
    const refusal: ErrorBody = {
      error: { code: "forbidden", message: "This needs the operator role on cluster prod; you have viewer." },
    };
    serveIndices(() => json(403, refusal));
    // The web app believed the role was enough (e.g. it changed since whoami): the server decides.
    withRole(who("admin"), <IndicesView clusterId="prod" search="" />);
    fireEvent.click(await screen.findByRole("button", { name: "Open index old" }));
    expect((await screen.findByTestId("index-action-error")).textContent).toBe(
      "Could not open old: This needs the operator role on cluster prod; you have viewer.",
    );
  });
});

describe("the allocation lock", () => {
  const ALLOCATION: Allocation = { enable: "all", locked: false, excluded: { names: [], ips: [], hosts: [] } };

  it("is disabled for a viewer with the reason, and enabled for an operator", async () => {
    fetchMock.mockImplementation(async () => json(200, ALLOCATION));
    const view = withRole(who("viewer"), <AllocationLock clusterId="prod" />);
    const button = (await screen.findByTestId("allocation-lock")) as HTMLButtonElement;
    await waitFor(() => expect(button.title).toBe("Shard allocation: all. Needs the operator role; you have viewer."));
    expect(button.disabled).toBe(true);
    view.unmount();
    withRole(who("operator"), <AllocationLock clusterId="prod" />);
    const enabled = (await screen.findByTestId("allocation-lock")) as HTMLButtonElement;
    await waitFor(() => expect(enabled.disabled).toBe(false));
    expect(enabled.title).toBe("Shard allocation: all");
    expect(screen.queryByTestId("drain-badge")).toBeNull();
  });

  it("lists the drained nodes, each a link to its page, and the other filters", async () => {
    const drained: Allocation = { ...ALLOCATION, excluded: { names: ["node-1", "node-2"], ips: ["10.0.0.9"], hosts: [] } };
    fetchMock.mockImplementation(async () => json(200, drained));
    withRole(who("viewer"), <AllocationLock clusterId="prod" />);
    const badge = await screen.findByTestId("drain-badge");
    expect(badge.textContent).toBe("Draining: node-1, node-2, ip 10.0.0.9");
    const links = [...badge.querySelectorAll("a")].map((a) => a.getAttribute("href"));
    expect(links).toEqual(["/clusters/prod/nodes/node-1", "/clusters/prod/nodes/node-2"]);
  });
});

describe("draining a node", () => {
  it("says how many shards are left", () => {
    expect(drainState(2)).toBe("Draining: 2 shards still on this node");
    expect(drainState(1)).toBe("Draining: 1 shard still on this node");
    expect(drainState(0)).toBe("Drained: no shard left on this node");
  });
});

describe("the console", () => {
  /** Replaces the editor's text with one request (`METHOD /path` and its body), the cursor in it. */
  function typePath(method: string, path: string, body = "") {
    const host = screen.getByTestId("request-editor");
    const editor = EditorView.findFromDOM(host.querySelector(".cm-editor") as HTMLElement)!;
    const text = `${method} /${path}\n${body}`;
    act(() => {
      editor.dispatch({
        changes: { from: 0, to: editor.state.doc.length, insert: text },
        selection: { anchor: 1 },
        userEvent: "input.type",
      });
    });
  }

  it("warns on a cluster whoami does not list (role none), even for a read", () => {
    withRole(who("viewer"), <ConsolePanel clusterId="roles-test" store={new HistoryStore(memoryStorage())} />);
    // `roles-test` is not in whoami: the role there is none, so even reads are refused.
    expect(screen.getByTestId("role-notice").textContent).toBe(
      "Needs the viewer role; you have none. The admin console will refuse this request.",
    );
  });

  it("names the role a write needs, and says nothing for a read-only search", () => {
    const viewer = { ...who("viewer"), roles: { prod: "viewer" as const } };
    withRole(viewer, <ConsolePanel clusterId="prod" store={new HistoryStore(memoryStorage())} />);
    typePath("POST", "logs/_search", '{"query": {"match_all": {}}}');
    expect(screen.queryByTestId("role-notice")).toBeNull();
    typePath("PUT", "logs", "");
    expect(screen.getByTestId("role-notice").textContent).toBe(
      "Needs the admin role; you have viewer. The admin console will refuse this request.",
    );
    typePath("POST", "logs/_close", "");
    expect(screen.getByTestId("role-notice").textContent).toContain("Needs the operator role; you have viewer.");
    // The editor and Execute stay enabled: the server decides.
    const host = screen.getByTestId("request-editor");
    expect(host.querySelector(".cm-content")?.getAttribute("contenteditable")).toBe("true");
    expect((screen.getByRole("button", { name: /Execute/ }) as HTMLButtonElement).disabled).toBe(false);
  });
});
