// @vitest-environment jsdom
// The Security view: admin only (a viewer sees why and nothing is fetched), the three tables,
// reserved entries read-only, a new user's password sent write-only, a delete by its typed
// name, and the server's message for a cluster without security. Only `fetch` is replaced.
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { SecurityOverview, WhoAmI } from "../api/wire";
import { WhoAmIProvider } from "../lib/whoami";
import { SecurityView } from "./SecurityView";
import { json, mockFetch, notServed } from "../test/fetch";

const OVERVIEW: SecurityOverview = {
  distribution: "opensearch",
  users: [
    { name: "admin", roles: [], backendRoles: ["admin"], fullName: null, email: null, enabled: true, attributes: {}, reserved: true },
    { name: "alice", roles: ["readall"], backendRoles: ["ops"], fullName: null, email: null, enabled: true, attributes: { team: "search" }, reserved: false },
  ],
  roles: [{ name: "readall", description: null, clusterPermissions: ["cluster_monitor"], indexPermissions: [{ indexPatterns: ["*"], actions: ["read"] }], reserved: false }],
  roleMappings: [{ name: "readall", roles: ["readall"], users: ["alice"], backendRoles: [], enabled: true, otherRules: false, reserved: false }],
};

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const who = (role: "viewer" | "operator" | "admin"): WhoAmI => ({ mode: "trusted_headers", user: "u", email: null, groups: [], roles: { prod: role } });

function show(role: "viewer" | "operator" | "admin") {
  render(
    <WhoAmIProvider value={who(role)}>
      <SecurityView clusterId="prod" />
    </WhoAmIProvider>,
  );
}

describe("SecurityView", () => {
  it.each(["viewer", "operator"] as const)("tells a %s it is for admins and fetches nothing", async (role) => {
    const fetch = mockFetch();
    show(role);
    expect(screen.getByTestId("security-view").textContent).toContain(`Needs the admin role; you have ${role}.`);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("lists users with reserved ones read-only, then roles and mappings", async () => {
    mockFetch().mockImplementation(async (input) => (String(input) === "/api/clusters/prod/security" ? json(200, OVERVIEW) : notServed(String(input))));
    show("admin");
    const rows = await screen.findAllByTestId("security-row");
    expect(rows.map((row) => row.dataset.name)).toEqual(["admin", "alice"]);
    expect(rows[0].textContent).toContain("reserved");
    expect(rows[0].querySelector("[data-testid=security-edit]")).toBeNull();
    expect(rows[1].textContent).toContain("readall");
    fireEvent.click(screen.getByTestId("security-tab-roles"));
    expect(screen.getByTestId("security-table-roles").textContent).toContain("* : read");
    fireEvent.click(screen.getByTestId("security-tab-role_mappings"));
    expect(screen.getByTestId("security-table-role_mappings").textContent).toContain("alice");
  });

  it("creates a user with a write-only password, and deletes one by its typed name", async () => {
    const fetch = mockFetch().mockImplementation(async (input, init) => {
      const url = String(input);
      if (url === "/api/clusters/prod/security") return json(200, OVERVIEW);
      if (init?.method === "PUT") return json(200, { kind: "users", name: "bob", created: true, deleted: false });
      if (init?.method === "DELETE") return json(200, { kind: "users", name: "alice", created: false, deleted: true });
      return notServed(url);
    });
    show("admin");
    await screen.findAllByTestId("security-row");
    fireEvent.click(screen.getByTestId("security-new"));
    fireEvent.change(screen.getByTestId("security-name"), { target: { value: "bob" } });
    fireEvent.change(screen.getByTestId("security-password"), { target: { value: "Vq7#pLm2!Tz9&wKe" } });
    fireEvent.change(screen.getByTestId("security-roles"), { target: { value: "readall, kibana_user" } });
    expect((screen.getByTestId("security-password") as HTMLInputElement).type).toBe("password");
    fireEvent.click(screen.getByRole("button", { name: "Create user" }));
    await screen.findByTestId("security-notice");
    const put = fetch.mock.calls.find(([, init]) => init?.method === "PUT");
    expect(String(put?.[0])).toBe("/api/clusters/prod/security/users/bob?create=true");
    expect(JSON.parse(String(put?.[1]?.body))).toEqual({ roles: ["readall", "kibana_user"], attributes: {}, password: "Vq7#pLm2!Tz9&wKe", backendRoles: [] });

    const alice = (await screen.findAllByTestId("security-row"))[1];
    fireEvent.click(alice.querySelector("[data-testid=security-delete]") as HTMLElement);
    const dialog = screen.getByTestId("security-delete-dialog");
    const confirm = dialog.querySelector("[data-testid=confirm-button]") as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    fireEvent.change(dialog.querySelector("input") as HTMLInputElement, { target: { value: "alice" } });
    expect(confirm.disabled).toBe(false);
    fireEvent.click(confirm);
    await waitFor(() => expect(fetch.mock.calls.some(([, init]) => init?.method === "DELETE")).toBe(true));
    const remove = fetch.mock.calls.find(([, init]) => init?.method === "DELETE");
    expect(String(remove?.[0])).toBe("/api/clusters/prod/security/users/alice?confirm=alice");
  });

  it("shows the server's words for a cluster without security", async () => {
    const message = "Security is not enabled on this cluster: it has no security plugin (_plugins/_security).";
    mockFetch().mockImplementation(async () => json(404, { error: { code: "not_found", message } }));
    show("admin");
    await waitFor(() => expect(screen.getByTestId("security-view").textContent).toContain("Security is not enabled"));
  });
});
