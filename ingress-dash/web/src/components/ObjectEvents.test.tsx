// @vitest-environment jsdom
// The events section against a stubbed fetch (the server's answers in their wire shape).
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ObjectEvent } from "../api/objects";
import { jsonResponse, stubFetch } from "../test/fetch";
import { ObjectEvents } from "./ObjectEvents";

const NOW = Date.parse("2026-01-02T00:00:00Z");
const TARGET = { kind: "ingresses", namespace: "team-001", name: "app-00001" } as const;

function event(overrides: Partial<ObjectEvent> & { reason: string }): ObjectEvent {
  return {
    type: "Warning",
    message: `${overrides.reason} happened`,
    count: 1,
    firstTimestamp: "2026-01-01T00:00:00Z",
    lastTimestamp: "2026-01-01T23:59:20Z",
    source: "ingress-nginx-controller",
    ...overrides,
  };
}

const WARNINGS = [
  event({ reason: "NoReadyEndpoints", message: 'Service "team-001/app-00001" has no ready endpoints', count: 42 }),
  event({ reason: "UpstreamUnhealthy", lastTimestamp: "2026-01-01T23:58:25Z", count: 17 }),
];
const ALL = [...WARNINGS, event({ type: "Normal", reason: "Sync", lastTimestamp: "2026-01-01T22:00:00Z", count: 3 })];

let calls: string[];

beforeEach(() => {
  calls = stubFetch((url) => jsonResponse({ events: url.endsWith("?type=all") ? ALL : WARNINGS }));
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("ObjectEvents", () => {
  it("loads the Warning events when shown, newest first, with type, reason, message, count and age", async () => {
    render(<ObjectEvents target={TARGET} now={NOW} />);
    expect(screen.getByRole("status").textContent).toContain("Loading events");
    const rows = await screen.findAllByTestId("object-event");
    expect(calls).toEqual(["/api/objects/ingresses/team-001/app-00001/events"]);
    expect(rows.map((row) => within(row).getAllByRole("cell").map((cell) => cell.textContent))).toEqual([
      ["Warning", "NoReadyEndpoints", 'Service "team-001/app-00001" has no ready endpoints', "42", "40s"],
      ["Warning", "UpstreamUnhealthy", "UpstreamUnhealthy happened", "17", "95s"],
    ]);
    expect(rows[0]?.querySelector(".event-message")?.getAttribute("title")).toBe("Reported by ingress-nginx-controller");
  });

  it("the toggle asks for every type and back", async () => {
    render(<ObjectEvents target={TARGET} now={NOW} />);
    await screen.findAllByTestId("object-event");
    fireEvent.click(screen.getByLabelText("All types"));
    await vi.waitFor(() => expect(screen.getAllByTestId("object-event")).toHaveLength(3));
    expect(calls.at(-1)).toBe("/api/objects/ingresses/team-001/app-00001/events?type=all");
    expect(screen.getAllByTestId("object-event")[2]?.getAttribute("data-event-type")).toBe("Normal");
    fireEvent.click(screen.getByLabelText("All types"));
    await vi.waitFor(() => expect(screen.getAllByTestId("object-event")).toHaveLength(2));
  });

  it("says so when there are no warning events", async () => {
    stubFetch(() => jsonResponse({ events: [] }));
    render(<ObjectEvents target={{ kind: "httproutes", namespace: "team-000", name: "storefront" }} now={NOW} />);
    expect(await screen.findByText("No warning events")).toBeTruthy();
  });

  it("shows the server's message when the read fails, and reloads on request", async () => {
    const message = "The service account may not list events in team-001: grant it with a Role and RoleBinding in team-001.";
    stubFetch(() => jsonResponse({ error: { code: "kubernetes_forbidden", message } }, 403));
    render(<ObjectEvents target={TARGET} now={NOW} />);
    expect((await screen.findByRole("alert")).textContent).toBe(message);
    stubFetch(() => jsonResponse({ events: WARNINGS }));
    fireEvent.click(screen.getByRole("button", { name: "Reload" }));
    expect(await screen.findAllByTestId("object-event")).toHaveLength(2);
  });

  it("reads the events of the new object when the selection changes, ignoring the old answer", async () => {
    let release: (r: Response) => void = () => {};
    calls = stubFetch((url) =>
      url.includes("/slow/") ? new Promise<Response>((resolve) => (release = resolve)) : jsonResponse({ events: [] }),
    );
    const { rerender } = render(<ObjectEvents target={{ ...TARGET, name: "slow" }} now={NOW} />);
    rerender(<ObjectEvents target={TARGET} now={NOW} />);
    expect(await screen.findByText("No warning events")).toBeTruthy();
    await act(async () => release(jsonResponse({ events: WARNINGS })));
    expect(screen.queryAllByTestId("object-event")).toHaveLength(0);
  });

  it("asks nothing for a deleted object", () => {
    render(<ObjectEvents target={TARGET} now={NOW} deleted />);
    expect(calls).toEqual([]);
    expect(screen.getByText(/was deleted/)).toBeTruthy();
  });
});
