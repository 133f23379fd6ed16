// @vitest-environment jsdom
// The templates, tasks and cluster settings views against a replaced `fetch`: what each role
// may do is enabled or disabled with the reason, and the calls made carry what the server
// expects; a refusal shows the server's message.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import type { ClusterSettings, Task, TaskList, TemplateList, WhoAmI } from "../api/wire";
import { WhoAmIProvider } from "../lib/whoami";
import { TasksView } from "./TasksView";
import { TemplatesView } from "./TemplatesView";
import { SettingsView } from "./SettingsView";
import { type FetchMock, json, mockFetch } from "../test/fetch";

let fetchMock: FetchMock;

beforeEach(() => {
  fetchMock = mockFetch();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const who = (role: "viewer" | "operator" | "admin"): WhoAmI => ({ mode: "trusted_headers", user: "vera", email: null, groups: [], roles: { prod: role } });
const withRole = (role: "viewer" | "operator" | "admin", node: ReactNode) => render(<WhoAmIProvider value={who(role)}>{node}</WhoAmIProvider>);
const calls = (method: string) => fetchMock.mock.calls.filter(([, init]) => (init?.method ?? "GET") === method);

const task = (id: string, action: string, cancellable: boolean, parentTaskId: string | null = null): Task => ({
  id,
  node: "n1",
  nodeName: "node-1",
  action,
  type: "transport",
  description: `${action} description`,
  startTimeMillis: 1,
  runningTimeNanos: 5e9,
  cancellable,
  cancelled: false,
  parentTaskId,
  headers: {},
  status: null,
});
const TASKS: TaskList = {
  tasks: [task("n1:1", "indices:data/write/reindex", true), task("n1:2", "indices:data/write/bulk", false), task("n1:3", "indices:data/write/bulk[s]", false, "n1:1")],
  nodeFailures: [],
};

describe("tasks", () => {
  it("a viewer sees the tree and disabled cancel buttons that say why", async () => {
    fetchMock.mockImplementation(async () => json(200, TASKS));
    withRole("viewer", <TasksView clusterId="prod" search="" />);
    const rows = await screen.findAllByTestId("task-row");
    expect(rows.map((r) => r.getAttribute("data-task-id"))).toEqual(["n1:1", "n1:3", "n1:2"]);
    const cancel = screen.getAllByTestId("task-cancel")[0] as HTMLButtonElement;
    expect(cancel.disabled).toBe(true);
    expect(cancel.title).toBe("Needs the operator role; you have viewer.");
    expect(String(fetchMock.mock.calls[0][0])).toBe("/api/clusters/prod/tasks");
  });

  it("the detail of a task that has ended says so", async () => {
    const other = task("n1:8", "indices:data/write/bulk", false);
    let listed = [task("n1:9", "indices:data/write/reindex", true), other];
    fetchMock.mockImplementation(async (input) =>
      String(input).endsWith("/tasks/n1%3A9")
        ? json(404, { error: { code: "rejected_by_cluster", message: "task [n1:9] isn't running" } })
        : json(200, { tasks: listed, nodeFailures: [] }),
    );
    withRole("viewer", <TasksView clusterId="prod" search="" />);
    const rows = await screen.findAllByTestId("task-row");
    fireEvent.click(rows.find((r) => r.getAttribute("data-task-id") === "n1:9")!);
    expect((await screen.findByTestId("task-detail")).textContent).toContain("reindex description");
    listed = [other];
    fireEvent.click(screen.getByRole("button", { name: "Refresh" }));
    await waitFor(() => expect(screen.getByTestId("task-detail").textContent).toContain("This task has ended"));
  });

  it("starts from the filters in the URL and writes changes back to it", async () => {
    fetchMock.mockImplementation(async () => json(200, TASKS));
    withRole("viewer", <TasksView clusterId="prod" search="?actions=*reindex&running=2m&group=node" />);
    await screen.findByTestId("task-node-row");
    expect(String(fetchMock.mock.calls[0][0])).toBe("/api/clusters/prod/tasks?actions=*reindex&minRunningMs=120000");
    fireEvent.click(screen.getByTestId("tasks-cancellable"));
    await waitFor(() => expect(window.location.search).toBe("?actions=*reindex&running=2m&group=node&cancellable=true"));
    window.history.replaceState(null, "", "/");
  });

  it("groups by node on request, each node under a heading", async () => {
    fetchMock.mockImplementation(async () => json(200, TASKS));
    withRole("viewer", <TasksView clusterId="prod" search="" />);
    await screen.findAllByTestId("task-row");
    fireEvent.click(screen.getByTestId("tasks-group-node"));
    const heading = await screen.findByTestId("task-node-row");
    expect(heading.textContent).toBe("node-1 3 tasks, 1 cancellable");
    expect(screen.getAllByTestId("task-row").map((r) => r.getAttribute("data-task-id"))).toEqual(["n1:1", "n1:2", "n1:3"]);
  });

  it("an operator's cancel of a task the cluster refuses shows the cluster's reason", async () => {
    const reason = "The cluster did not cancel task n1:2: task [n1:2] doesn't support this operation";
    fetchMock.mockImplementation(async (_input, init) =>
      init?.method === "POST" ? json(409, { error: { code: "rejected_by_cluster", message: reason } }) : json(200, TASKS),
    );
    withRole("operator", <TasksView clusterId="prod" search="" />);
    await screen.findAllByTestId("task-row");
    fireEvent.click(screen.getAllByTestId("task-cancel")[2]);
    expect(screen.getByTestId("task-cancel-dialog").textContent).toContain("not cancellable");
    fireEvent.click(screen.getByTestId("confirm-button"));
    expect((await screen.findByTestId("confirm-error")).textContent).toBe(reason);
    const [url, init] = calls("POST")[0];
    expect(String(url)).toBe("/api/clusters/prod/tasks/n1%3A2/cancel");
    expect((init?.headers as Record<string, string>)["X-Requested-By"]).toBe("admin-console");
  });

  it("refreshes every 3 s while the tab is visible, and not while it is hidden", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      fetchMock.mockImplementation(async () => json(200, TASKS));
      withRole("viewer", <TasksView clusterId="prod" search="" />);
      await screen.findAllByTestId("task-row");
      const lists = () => fetchMock.mock.calls.filter(([url]) => String(url).startsWith("/api/clusters/prod/tasks")).length;
      const first = lists();
      await act(async () => {
        await vi.advanceTimersByTimeAsync(3100);
      });
      expect(lists()).toBe(first + 1);
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
      await act(async () => {
        await vi.advanceTimersByTimeAsync(9300);
      });
      expect(lists()).toBe(first + 1);
    } finally {
      Reflect.deleteProperty(document, "visibilityState");
      vi.useRealTimers();
    }
  });

  it("filters become the list's query", async () => {
    fetchMock.mockImplementation(async () => json(200, TASKS));
    withRole("viewer", <TasksView clusterId="prod" search="" />);
    await screen.findAllByTestId("task-row");
    fireEvent.change(screen.getByTestId("tasks-actions"), { target: { value: "*reindex" } });
    fireEvent.change(screen.getByTestId("tasks-min-running"), { target: { value: "2m" } });
    fireEvent.click(screen.getByTestId("tasks-cancellable"));
    await waitFor(() =>
      expect(fetchMock.mock.calls.map(([url]) => String(url))).toContain("/api/clusters/prod/tasks?actions=*reindex&cancellable=true&minRunningMs=120000"),
    );
  });
});

const TEMPLATES: TemplateList = {
  index: [{ name: "logs", indexPatterns: ["logs-*"], priority: 10, composedOf: [], version: null, dataStream: false }],
  component: [],
  legacy: [{ name: "old", indexPatterns: ["old-*"], order: 0, version: null }],
  errors: [],
};

describe("templates", () => {
  it("an operator may read but not write templates", async () => {
    fetchMock.mockImplementation(async () => json(200, TEMPLATES));
    withRole("operator", <TemplatesView clusterId="prod" />);
    await screen.findAllByTestId("template-row");
    expect(screen.getByText("legacy").className).toContain("ops-kind-legacy");
    for (const button of [screen.getByTestId("template-new"), ...screen.getAllByTestId("template-delete")]) {
      expect((button as HTMLButtonElement).disabled).toBe(true);
      expect(button.getAttribute("data-denied")).toBe("Needs the admin role; you have operator.");
    }
  });

  it("an admin deletes after typing the name", async () => {
    fetchMock.mockImplementation(async (_input, init) => json(200, init?.method === "DELETE" ? { kind: "index", name: "logs" } : TEMPLATES));
    withRole("admin", <TemplatesView clusterId="prod" />);
    await screen.findAllByTestId("template-row");
    fireEvent.click(screen.getAllByTestId("template-delete")[0]);
    const confirm = screen.getByTestId("confirm-button") as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    fireEvent.change(screen.getByTestId("confirm-typed"), { target: { value: "logs" } });
    expect(confirm.disabled).toBe(false);
    fireEvent.click(confirm);
    await screen.findByText("Index template logs deleted.");
    expect(String(calls("DELETE")[0][0])).toBe("/api/clusters/prod/templates/index/logs?confirm=logs");
  });
});

const SETTINGS: ClusterSettings = { persistent: { "cluster.routing.allocation.enable": "primaries" }, transient: {}, defaults: null };

describe("cluster settings", () => {
  it("an admin sets one setting: plain text becomes a string, the scope and key as chosen", async () => {
    fetchMock.mockImplementation(async () => json(200, SETTINGS));
    withRole("admin", <SettingsView clusterId="prod" />);
    await screen.findAllByTestId("setting-row");
    fireEvent.click(screen.getByTestId("setting-edit"));
    expect(screen.getByTestId("setting-editor").textContent).toContain("allocation lock");
    fireEvent.change(screen.getByTestId("setting-value"), { target: { value: "all" } });
    fireEvent.click(screen.getByTestId("setting-save"));
    await screen.findByTestId("settings-notice");
    const [url, init] = calls("PUT")[0];
    expect(String(url)).toBe("/api/clusters/prod/settings");
    expect(JSON.parse(String(init?.body))).toEqual({ scope: "persistent", key: "cluster.routing.allocation.enable", value: "all" });
  });

  it("a viewer's edit buttons are disabled with the reason", async () => {
    fetchMock.mockImplementation(async () => json(200, SETTINGS));
    withRole("viewer", <SettingsView clusterId="prod" />);
    await screen.findAllByTestId("setting-row");
    expect((screen.getByTestId("setting-edit") as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId("setting-add").getAttribute("data-denied")).toBe("Needs the admin role; you have viewer.");
  });
});
