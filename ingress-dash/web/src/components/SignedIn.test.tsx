// @vitest-environment jsdom
// The header's identity against a stubbed `GET /api/whoami` (the server's answers in their wire shape).
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { WhoAmI } from "../api/wire";
import { jsonResponse, stubFetch } from "../test/fetch";
import { SignedIn } from "./SignedIn";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function serve(status: number, body: unknown) {
  stubFetch(() => jsonResponse(body, status));
  return vi.mocked(fetch);
}

const ANN: WhoAmI = {
  mode: "trusted_headers",
  user: "ann",
  email: "ann@example.com",
  groups: ["shop", "pay"],
  namespaces: ["payments", "shop-*"],
};

describe("SignedIn", () => {
  it("shows the signed-in user, with its groups and visible namespaces in the tooltip", async () => {
    const fetch = serve(200, ANN);
    render(<SignedIn />);
    expect((await screen.findByTestId("identity-user")).textContent).toBe("ann");
    expect(fetch.mock.calls[0]?.[0]).toBe("/api/whoami");
    expect(screen.getByTestId("identity-scope").textContent).toBe("2 namespaces");
    expect(screen.getByTestId("identity").getAttribute("title")).toBe(
      "ann\nann@example.com\nGroups: shop, pay\nNamespaces: payments, shop-*",
    );
  });

  it("names one namespace, says none, and shows no scope when the user sees everything", async () => {
    serve(200, { ...ANN, namespaces: ["shop-eu"] });
    render(<SignedIn />);
    expect((await screen.findByTestId("identity-scope")).textContent).toBe("shop-eu");
    cleanup();

    serve(200, { ...ANN, groups: [], namespaces: [] });
    render(<SignedIn />);
    expect((await screen.findByTestId("identity-scope")).textContent).toBe("0 namespaces");
    expect(screen.getByTestId("identity").getAttribute("title")).toContain("No groups\nNamespaces: none");
    cleanup();

    serve(200, { ...ANN, user: "sam", namespaces: "*" });
    render(<SignedIn />);
    expect((await screen.findByTestId("identity-user")).textContent).toBe("sam");
    expect(screen.queryByTestId("identity-scope")).toBeNull();
    expect(screen.getByTestId("identity").getAttribute("title")).toContain("Namespaces: all watched");
  });

  it("shows nothing in open mode or when the call fails", async () => {
    // The user is set in the open answer too: only the mode hides it.
    for (const [status, body] of [
      [200, { ...ANN, mode: "open", namespaces: "*" }],
      [401, { error: { code: "unauthenticated", message: "Sign in first." } }],
    ] as const) {
      const fetch = serve(status, body);
      const { container } = render(<SignedIn />);
      await vi.waitFor(() => expect(fetch.mock.results[0]?.value).toBeDefined());
      const response = (await fetch.mock.results[0]?.value) as Response;
      await vi.waitFor(() => expect(response.bodyUsed || !response.ok).toBe(true));
      // One turn of the event loop: the parsed answer reaches the state and renders.
      await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
      expect(container.innerHTML).toBe("");
      cleanup();
    }
  });
});
