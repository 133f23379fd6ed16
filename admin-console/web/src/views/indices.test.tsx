// @vitest-environment jsdom
// The index list's selection, bulk actions with their confirmations, the create dialog and the
// Aliases view's batch, with only `fetch` replaced.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import type { ReactNode } from "react";
import type { AliasList, IndexPage, WhoAmI } from "../api/wire";
import { WhoAmIProvider } from "../lib/whoami";
import { IndicesView } from "./IndicesView";
import { AliasesView } from "./AliasesView";
import { type FetchMock, json, mockFetch, notServed } from "../test/fetch";

let fetchMock: FetchMock;

beforeEach(() => {
  fetchMock = mockFetch();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const who = (role: "viewer" | "operator" | "admin"): WhoAmI => ({ mode: "trusted_headers", user: "u", email: null, groups: [], roles: { prod: role } });

const withRole = (role: "viewer" | "operator" | "admin", node: ReactNode) => render(<WhoAmIProvider value={who(role)}>{node}</WhoAmIProvider>);

const PAGE: IndexPage = {
  total: 3,
  page: 1,
  size: 50,
  sort: "name",
  order: "asc",
  indices: ["a-1", "a-2", "b-1"].map((name) => ({ name, health: "green", status: "open", primaries: 1, replicas: 0, docsCount: 1, storeSizeBytes: 10 })),
};

/** Answers the list, the dialect, and every call in `routes` (method + path prefix). */
function serve(routes: Record<string, (init?: RequestInit) => Response>) {
  fetchMock.mockImplementation(async (input, init) => {
    const url = String(input);
    const method = init?.method ?? "GET";
    for (const [key, answer] of Object.entries(routes)) {
      const [m, prefix] = key.split(" ");
      if (m === method && url.startsWith(prefix)) return answer(init);
    }
    if (url.startsWith("/api/clusters/prod/dialect")) return json(200, { distribution: "opensearch", major: 2 });
    if (method === "GET" && url.startsWith("/api/clusters/prod/indices?")) return json(200, PAGE);
    return notServed(`${method} ${url}`);
  });
}

const calls = (method: string, prefix: string) => fetchMock.mock.calls.filter(([url, init]) => (init?.method ?? "GET") === method && String(url).startsWith(prefix));

describe("the index list", () => {
  it("deletes a selection after the typed confirmation and shows each index's result", async () => {
    serve({
      "POST /api/clusters/prod/indices/_actions/delete": () =>
        json(200, { action: "delete", results: [{ index: "a-1", ok: true, message: null }, { index: "a-2", ok: false, message: "no such index [a-2]" }] }),
    });
    withRole("admin", <IndicesView clusterId="prod" search="" />);
    for (const name of ["a-1", "a-2"]) fireEvent.click(await screen.findByRole("checkbox", { name: `Select ${name}` }));
    expect(screen.getByTestId("selection-count").textContent).toBe("2 selected");
    fireEvent.click(screen.getByTestId("bulk-delete"));
    const dialog = screen.getByTestId("index-action-dialog");
    expect(within(dialog).getByText("Delete 2 indices?")).toBeTruthy();
    const confirm = within(dialog).getByTestId("confirm-button") as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    fireEvent.change(within(dialog).getByTestId("confirm-typed"), { target: { value: "delete 2 indice" } });
    expect(confirm.disabled).toBe(true);
    fireEvent.click(confirm);
    expect(calls("POST", "/api/clusters/prod/indices/_actions/delete")).toHaveLength(0);
    fireEvent.change(within(dialog).getByTestId("confirm-typed"), { target: { value: "delete 2 indices" } });
    fireEvent.click(confirm);
    await screen.findByTestId("action-results");
    const [call] = calls("POST", "/api/clusters/prod/indices/_actions/delete");
    expect(JSON.parse(String(call[1]?.body))).toEqual({ indices: ["a-1", "a-2"], confirm: "delete 2 indices" });
    expect(screen.getByTestId("action-summary").textContent).toBe("Delete: 1 done, 1 failed.");
    const failed = screen.getAllByTestId("action-result").find((li) => li.dataset.index === "a-2")!;
    expect(failed.dataset.ok).toBe("false");
    expect(failed.textContent).toContain("no such index [a-2]");
  });

  it("runs a refresh on the selection at once, and a force merge with its segment count", async () => {
    serve({
      "POST /api/clusters/prod/indices/_actions/refresh": () => json(200, { action: "refresh", results: [{ index: "b-1", ok: true, message: null }] }),
      "POST /api/clusters/prod/indices/_actions/forcemerge": () => json(200, { action: "forcemerge", results: [{ index: "b-1", ok: true, message: null }] }),
    });
    withRole("operator", <IndicesView clusterId="prod" search="" />);
    fireEvent.click(await screen.findByRole("checkbox", { name: "Select b-1" }));
    fireEvent.click(screen.getByTestId("bulk-refresh"));
    expect((await screen.findByTestId("action-summary")).textContent).toBe("Refresh: done on 1 index.");
    fireEvent.click(screen.getByTestId("bulk-forcemerge"));
    fireEvent.change(screen.getByTestId("max-segments"), { target: { value: "2" } });
    fireEvent.click(screen.getByTestId("confirm-button"));
    await waitFor(() => expect(calls("POST", "/api/clusters/prod/indices/_actions/forcemerge")).toHaveLength(1));
    expect(JSON.parse(String(calls("POST", "/api/clusters/prod/indices/_actions/forcemerge")[0][1]?.body))).toEqual({ indices: ["b-1"], maxNumSegments: 2 });
    // An operator may not delete or block: disabled, with the reason.
    for (const id of ["bulk-delete", "bulk-block_write"]) {
      const button = screen.getByTestId(id) as HTMLButtonElement;
      expect(button.disabled).toBe(true);
      expect(button.title).toBe("Needs the admin role; you have operator.");
    }
  });

  it("creates an index from a checked form", async () => {
    serve({ "POST /api/clusters/prod/indices": () => json(200, { index: "c-1", acknowledged: true, shardsAcknowledged: true }) });
    withRole("admin", <IndicesView clusterId="prod" search="" />);
    fireEvent.click(await screen.findByTestId("create-index"));
    const submit = screen.getByTestId("create-submit") as HTMLButtonElement;
    fireEvent.change(screen.getByTestId("create-name"), { target: { value: "C-1" } });
    expect(submit.disabled).toBe(true);
    expect(screen.getByTestId("create-errors").textContent).toContain("must be lowercase");
    fireEvent.change(screen.getByTestId("create-name"), { target: { value: "c-1" } });
    fireEvent.change(screen.getByTestId("create-mappings"), { target: { value: '{"properties": {' } });
    expect(screen.getByTestId("create-mappings-error").textContent).toMatch(/^Mappings is not valid JSON/);
    expect(submit.disabled).toBe(true);
    fireEvent.change(screen.getByTestId("create-mappings"), { target: { value: '{"properties": {"t": {"type": "text"}}}' } });
    fireEvent.change(screen.getByTestId("create-replicas"), { target: { value: "0" } });
    expect(submit.disabled).toBe(false);
    fireEvent.click(submit);
    expect((await screen.findByTestId("index-action-done")).textContent).toBe("Index c-1 created.");
    const [call] = calls("POST", "/api/clusters/prod/indices");
    expect(JSON.parse(String(call[1]?.body))).toEqual({ name: "c-1", shards: 1, replicas: 0, mappings: { properties: { t: { type: "text" } } } });
  });

  it("keeps a 500-row page's DOM bounded (windowed rows)", async () => {
    const big: IndexPage = {
      ...PAGE,
      total: 500,
      size: 500,
      indices: Array.from({ length: 500 }, (_, n) => ({ ...PAGE.indices[0], name: `i-${String(n).padStart(3, "0")}` })),
    };
    fetchMock.mockImplementation(async (input) =>
      String(input).includes("/dialect") ? json(200, { distribution: "opensearch", major: 2 }) : json(200, big),
    );
    withRole("admin", <IndicesView clusterId="prod" search="" />);
    await screen.findByRole("checkbox", { name: "Select i-000" });
    const rendered = screen.getByTestId("indices-table").querySelectorAll("tbody tr[data-index]");
    expect(rendered.length).toBeGreaterThan(0);
    expect(rendered.length).toBeLessThanOrEqual(60);
    // "Select all" still means every row of the page, rendered or not.
    fireEvent.click(screen.getByTestId("select-all"));
    expect(screen.getByTestId("selection-count").textContent).toBe("500 selected");
  });

  it("shows a viewer the create button disabled with the reason", async () => {
    serve({});
    withRole("viewer", <IndicesView clusterId="prod" search="" />);
    const create = (await screen.findByTestId("create-index")) as HTMLButtonElement;
    await screen.findByRole("checkbox", { name: "Select a-1" });
    expect(create.disabled).toBe(true);
    expect(create.title).toBe("Needs the admin role; you have viewer.");
  });
});

describe("the aliases view", () => {
  const LIST: AliasList = {
    aliases: [{ alias: "logs", index: "a-1", filter: { term: { a: "x" } }, indexRouting: null, searchRouting: "1", isWriteIndex: true, isHidden: null }],
  };

  it("collects changes and applies them in one call", async () => {
    serve({
      "GET /api/clusters/prod/aliases": () => json(200, LIST),
      "POST /api/clusters/prod/aliases": () => json(200, { acknowledged: true, applied: 2 }),
    });
    withRole("admin", <AliasesView clusterId="prod" />);
    fireEvent.click(await screen.findByRole("button", { name: "Remove alias logs from a-1" }));
    fireEvent.click(screen.getByTestId("add-alias"));
    fireEvent.change(screen.getByTestId("alias-index"), { target: { value: "a-2" } });
    fireEvent.change(screen.getByTestId("alias-name"), { target: { value: "logs" } });
    fireEvent.change(screen.getByTestId("alias-write-index"), { target: { value: "true" } });
    fireEvent.click(screen.getByTestId("alias-add-pending"));
    expect(screen.getAllByTestId("pending-change").map((li) => li.textContent)).toEqual(["remove logs from a-1Drop", "add logs to a-2 (write index)Drop"]);
    expect(calls("POST", "/api/clusters/prod/aliases")).toHaveLength(0);
    fireEvent.click(screen.getByTestId("apply-changes"));
    expect((await screen.findByTestId("aliases-message")).textContent).toBe("Applied 2 changes in one call.");
    const posted = calls("POST", "/api/clusters/prod/aliases");
    expect(posted).toHaveLength(1);
    expect(JSON.parse(String(posted[0][1]?.body))).toEqual({
      actions: [{ remove: { index: "a-1", alias: "logs" } }, { add: { index: "a-2", alias: "logs", isWriteIndex: true } }],
    });
  });

  it("edits an alias by adding it again with the new properties", async () => {
    serve({ "GET /api/clusters/prod/aliases": () => json(200, LIST) });
    withRole("admin", <AliasesView clusterId="prod" />);
    fireEvent.click(await screen.findByRole("button", { name: "Edit alias logs on a-1" }));
    expect((screen.getByTestId("alias-index") as HTMLInputElement).value).toBe("a-1");
    expect((screen.getByTestId("alias-search-routing") as HTMLInputElement).value).toBe("1");
    expect((screen.getByTestId("alias-filter") as HTMLTextAreaElement).value).toContain('"term"');
    fireEvent.change(screen.getByTestId("alias-write-index"), { target: { value: "false" } });
    fireEvent.click(screen.getByTestId("alias-add-pending"));
    expect(screen.getByTestId("pending-change").textContent).toBe("add logs to a-1 (not the write index, filtered, search routing 1)Drop");
  });

  it("disables changes for an operator with the reason", async () => {
    serve({ "GET /api/clusters/prod/aliases": () => json(200, LIST) });
    withRole("operator", <AliasesView clusterId="prod" />);
    const remove = (await screen.findByRole("button", { name: "Remove alias logs from a-1" })) as HTMLButtonElement;
    expect(remove.disabled).toBe(true);
    expect((screen.getByTestId("add-alias") as HTMLButtonElement).title).toBe("Needs the admin role; you have operator.");
  });
});
