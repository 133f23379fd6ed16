// @vitest-environment jsdom
// The Saved tab as rendered; only `fetch` (the admin console) and `confirm` are replaced.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { SavedPanel } from "./SavedPanel";
import type { SavedQuery } from "../api/savedQueries";
import { type FetchMock, json, mockFetch } from "../test/fetch";

const STORED: SavedQuery = {
  id: "q1",
  name: "Unassigned shards",
  tags: ["runbook"],
  text: "GET /_cat/shards?v",
  cluster: "prod",
  visibility: "group:staff",
  owner: "otto",
  version: 2,
  updated_at: "2026-11-28T12:00:00Z",
};

let fetchMock: FetchMock;
beforeEach(() => {
  fetchMock = mockFetch();
  fetchMock.mockImplementation(async (input, init) => {
    const url = String(input);
    if (init?.method === "PUT") {
      return json(409, { error: { code: "version_conflict", message: "changed" }, current: { ...STORED, version: 3 } });
    }
    if (url.startsWith("/api/saved-queries/q1")) return json(200, { ...STORED, version: 3, owner: "vic" });
    return json(200, { queries: [STORED] });
  });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function panel(text: string, replaceText = vi.fn()) {
  render(<SavedPanel clusterId="prod" text={text} defaultText="GET /_cluster/health" replaceText={replaceText} />);
  return replaceText;
}

describe("SavedPanel", () => {
  it("asks before loading over unsaved text, and keeps it when told no", async () => {
    const replaceText = panel("GET /_cat/nodes?v");
    const entry = await screen.findByText("Unassigned shards");
    const confirm = vi.fn(() => false);
    vi.stubGlobal("confirm", confirm);
    fireEvent.click(entry);
    expect(confirm).toHaveBeenCalledOnce();
    expect(replaceText).not.toHaveBeenCalled();
    confirm.mockReturnValue(true);
    fireEvent.click(entry);
    expect(replaceText).toHaveBeenCalledWith("GET /_cat/shards?v");
  });

  it("loads at once when the editor holds only the starting text", async () => {
    const confirm = vi.fn(() => false);
    vi.stubGlobal("confirm", confirm);
    const replaceText = panel("GET /_cluster/health");
    fireEvent.click(await screen.findByText("Unassigned shards"));
    expect(confirm).not.toHaveBeenCalled();
    expect(replaceText).toHaveBeenCalledOnce();
  });

  it("searches this cluster's queries as you type", async () => {
    panel("");
    fireEvent.change(screen.getByTestId("saved-search"), { target: { value: "runbook" } });
    await waitFor(() =>
      expect(fetchMock.mock.calls.map(([url]) => String(url))).toContain("/api/saved-queries?cluster=prod&q=runbook"),
    );
  });

  it("an edit over a newer version names whose version won", async () => {
    panel("GET /_cat/shards?v&h=index");
    fireEvent.click(await screen.findByTestId("saved-edit"));
    fireEvent.click(screen.getByTestId("saved-save"));
    const conflict = await screen.findByTestId("saved-conflict");
    expect(conflict.textContent).toMatch(/vic's version 3 of "Unassigned shards"/);
  });
});
