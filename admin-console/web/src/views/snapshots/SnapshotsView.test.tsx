// @vitest-environment jsdom
// The Snapshots view against a replaced `fetch`: what each role may do, the restore request
// with its rename, the cluster's refusal shown as is, and a long list kept to a window of rows.
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { RepositoryList, SnapshotDetail, SnapshotList, SnapshotRow, WhoAmI } from "../../api/wire";
import { WhoAmIProvider } from "../../lib/whoami";
import { SnapshotsView } from "../SnapshotsView";
import { type FetchMock, json, mockFetch, notServed } from "../../test/fetch";

let fetchMock: FetchMock;

const who = (role: "viewer" | "operator" | "admin"): WhoAmI => ({
  mode: "trusted_headers",
  user: "vera",
  email: null,
  groups: [],
  roles: { prod: role },
});

const row = (name: string, patch: Partial<SnapshotRow> = {}): SnapshotRow => ({
  name,
  uuid: null,
  state: "SUCCESS",
  startMillis: 1_700_000_000_000,
  endMillis: 1_700_000_002_000,
  durationMillis: 2000,
  indexCount: 1,
  shardsTotal: 1,
  shardsFailed: 0,
  shardsSuccessful: 1,
  includeGlobalState: true,
  reason: null,
  version: "2.17.0",
  ...patch,
});

const REPOS: RepositoryList = { repositories: [{ name: "backups", type: "fs", settings: { location: "/tmp/backups" } }] };
const DETAIL: SnapshotDetail = {
  snapshot: row("nightly-1"),
  indices: ["books"],
  dataStreams: [],
  failures: [],
  progress: null,
  progressError: null,
};

function serve(snapshots: SnapshotList, restore: () => Response = () => json(200, { name: "nightly-1", accepted: true })) {
  fetchMock.mockImplementation(async (input, init) => {
    const url = String(input);
    if (url === "/api/clusters/prod/repositories") return json(200, REPOS);
    if (url === "/api/clusters/prod/repositories/backups/snapshots") return json(200, snapshots);
    if (url === "/api/clusters/prod/repositories/backups/snapshots/nightly-1") return json(200, DETAIL);
    if (url === "/api/clusters/prod/repositories/backups/snapshots/nightly-1?sizes=true")
      return json(200, {
        ...DETAIL,
        progress: {
          state: "SUCCESS", shardsDone: 1, shardsTotal: 1, shardsFailed: 0, shardsStarted: 0, shardsInitializing: 0,
          shardsFinalizing: 0, bytesDone: 2048, bytesTotal: 2048, filesDone: 3, filesTotal: 3, sizeInRepositoryBytes: 4096, timeMillis: 20,
        },
      });
    if (url.endsWith("/restore") && init?.method === "POST") return restore();
    return notServed(url);
  });
}

beforeEach(() => {
  fetchMock = mockFetch();
  window.history.replaceState(null, "", "/clusters/prod/snapshots");
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const view = (role: "viewer" | "operator" | "admin") =>
  render(
    <WhoAmIProvider value={who(role)}>
      <SnapshotsView clusterId="prod" />
    </WhoAmIProvider>,
  );

it("a viewer sees repositories and snapshots but may not change them, and is told why", async () => {
  serve({ snapshots: [row("nightly-1")] });
  view("viewer");
  await screen.findByTestId("snapshot-nightly-1");
  expect(screen.getByTestId("repository-backups").textContent).toContain("/tmp/backups");
  const take = screen.getByTestId("take-snapshot") as HTMLButtonElement;
  expect(take.disabled).toBe(true);
  expect(take.parentElement?.getAttribute("title")).toBe("Needs the operator role; you have viewer.");
  expect((screen.getByTestId("register-repository") as HTMLButtonElement).disabled).toBe(true);
  expect((screen.getByTestId("verify-repository") as HTMLButtonElement).disabled).toBe(true);
});

it("an operator may take a snapshot and verify, not restore or delete", async () => {
  serve({ snapshots: [row("nightly-1")] });
  view("operator");
  await screen.findByTestId("snapshot-nightly-1");
  expect((screen.getByTestId("take-snapshot") as HTMLButtonElement).disabled).toBe(false);
  expect((screen.getByTestId("verify-repository") as HTMLButtonElement).disabled).toBe(false);
  expect((screen.getByTestId("delete-repository") as HTMLButtonElement).disabled).toBe(true);
  fireEvent.click(screen.getByText("nightly-1"));
  await screen.findByTestId("restore-form");
  expect((screen.getByTestId("restore-submit") as HTMLButtonElement).disabled).toBe(true);
  expect((screen.getByTestId("delete-snapshot") as HTMLButtonElement).disabled).toBe(true);
});

it("a restore sends the rename and shows the cluster's refusal as is", async () => {
  const refusal = "The cluster \"prod\" answered 500 Internal Server Error: [backups:nightly-1/x] cannot restore index [books] because an open index with same name already exists in the cluster.";
  serve({ snapshots: [row("nightly-1")] }, () => json(502, { error: { code: "upstream_error", message: refusal } }));
  view("admin");
  fireEvent.click(await screen.findByText("nightly-1"));
  await screen.findByTestId("restore-form");
  expect(screen.getByTestId("rename-preview").textContent).toContain("restored-books");
  fireEvent.click(screen.getByTestId("restore-submit"));
  const result = await screen.findByTestId("restore-result");
  expect(result.textContent).toBe(refusal);
  const [, init] = fetchMock.mock.calls.find(([url]) => String(url).endsWith("/restore"))!;
  expect(JSON.parse(String(init?.body))).toEqual({ renamePattern: "(.+)", renameReplacement: "restored-$1", includeGlobalState: false });

  // Without a rename: none is sent.
  fireEvent.change(screen.getByLabelText("Rename pattern"), { target: { value: "" } });
  fireEvent.change(screen.getByLabelText("Rename replacement"), { target: { value: "" } });
  fireEvent.click(screen.getByTestId("restore-submit"));
  await waitFor(() => expect(fetchMock.mock.calls.filter(([url]) => String(url).endsWith("/restore")).length).toBe(2));
  const last = fetchMock.mock.calls.filter(([url]) => String(url).endsWith("/restore"))[1][1];
  expect(JSON.parse(String(last?.body))).toEqual({ includeGlobalState: false });
});

it("deleting a snapshot needs its name typed", async () => {
  serve({ snapshots: [row("nightly-1")] });
  view("admin");
  fireEvent.click(await screen.findByText("nightly-1"));
  fireEvent.click(await screen.findByTestId("delete-snapshot"));
  const confirm = screen.getByTestId("confirm-button") as HTMLButtonElement;
  expect(confirm.disabled).toBe(true);
  fireEvent.change(screen.getByTestId("confirm-typed"), { target: { value: "nightly-" } });
  expect(confirm.disabled).toBe(true);
  fireEvent.change(screen.getByTestId("confirm-typed"), { target: { value: "nightly-1" } });
  expect(confirm.disabled).toBe(false);
});

it("ten thousand snapshots render a bounded window of rows", async () => {
  serve({ snapshots: Array.from({ length: 10_000 }, (_, i) => row(`s-${i}`)) });
  view("viewer");
  await screen.findByTestId("snapshot-s-0");
  expect(screen.getByTestId("snapshots-table").getAttribute("data-rows")).toBe("10000");
  expect(document.querySelectorAll(".snap-row").length).toBeLessThan(40);
});

it("a finished snapshot's sizes are asked for only on request", async () => {
  serve({ snapshots: [row("nightly-1")] });
  view("viewer");
  fireEvent.click(await screen.findByText("nightly-1"));
  const progress = await screen.findByTestId("snapshot-progress");
  await waitFor(() => expect(progress.textContent).toContain("Shards 1 / 1 done"));
  expect(fetchMock.mock.calls.some(([url]) => String(url).includes("sizes=true"))).toBe(false);
  fireEvent.click(screen.getByTestId("snapshot-sizes"));
  await waitFor(() => expect(screen.getByTestId("snapshot-progress").textContent).toContain("2.0 KB of 2.0 KB copied"));
  expect(screen.getByTestId("snapshot-progress").textContent).toContain("4.0 KB in the repository");
});
