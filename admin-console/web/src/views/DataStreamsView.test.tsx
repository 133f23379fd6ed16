// @vitest-environment jsdom
// The Data streams view mirrors the caller's role: a viewer reads, an operator also rolls
// over, an admin also creates and deletes (the server decides anyway). Only `fetch` is
// replaced.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import type { DataStreamList, WhoAmI } from "../api/wire";
import { WhoAmIProvider } from "../lib/whoami";
import { DataStreamsView } from "./DataStreamsView";
import { json, mockFetch } from "../test/fetch";

const LIST: DataStreamList = {
  dataStreams: [
    {
      name: "logs-web",
      generation: 2,
      backingIndices: [
        { name: ".ds-logs-web-000001", uuid: "a", ilmPolicy: null },
        { name: ".ds-logs-web-000002", uuid: "b", ilmPolicy: null },
      ],
      template: "logs",
      health: "yellow",
      timestampField: "@timestamp",
      ilmPolicy: "hot-warm",
      hidden: false,
      storeSizeBytes: 2048,
      maximumTimestamp: null,
    },
  ],
};

beforeEach(() => {
  mockFetch().mockImplementation(async () => json(200, LIST));
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const who = (role: "viewer" | "operator" | "admin"): WhoAmI => ({ mode: "trusted_headers", user: "u", email: null, groups: [], roles: { prod: role } });

describe("DataStreamsView", () => {
  it("lists a stream with its backing indices, generation, template, health and policy", async () => {
    render(
      <WhoAmIProvider value={who("admin")}>
        <DataStreamsView clusterId="prod" />
      </WhoAmIProvider>,
    );
    const row = await screen.findByTestId("data-stream-row");
    expect(row.textContent).toContain("logs-web");
    expect(screen.getByTestId("data-stream-generation").textContent).toBe("2");
    expect(screen.getByTestId("data-stream-backing").textContent).toBe(".ds-logs-web-000001, .ds-logs-web-000002 (write)");
    expect(row.textContent).toContain("yellow");
    expect(row.textContent).toContain("hot-warm");
    expect(row.textContent).toContain("logs");
  });

  it.each([
    ["viewer", { create: true, rollover: true, remove: true }],
    ["operator", { create: true, rollover: false, remove: true }],
    ["admin", { create: false, rollover: false, remove: false }],
  ] as const)("a %s gets what the role allows", async (role, disabled) => {
    render(
      <WhoAmIProvider value={who(role)}>
        <DataStreamsView clusterId="prod" />
      </WhoAmIProvider>,
    );
    await screen.findByTestId("data-stream-row");
    const button = (id: string) => screen.getByTestId(id) as HTMLButtonElement;
    expect(button("data-stream-new").disabled).toBe(disabled.create);
    expect(button("data-stream-rollover").disabled).toBe(disabled.rollover);
    expect(button("data-stream-delete").disabled).toBe(disabled.remove);
    if (disabled.remove) {
      expect(button("data-stream-delete").dataset.denied).toBe(`Needs the admin role; you have ${role}.`);
      // The hover text sits on the wrapper: a disabled button gets no pointer events.
      expect(button("data-stream-delete").parentElement?.title).toBe(`Needs the admin role; you have ${role}.`);
    }
  });
});
