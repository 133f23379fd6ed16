import { afterEach, describe, expect, it, vi } from "vitest";
import { pendingReasonHeaders, reasonHeaders, reasonProblem, runWithReason, setReasonPrompter } from "./changeReason";
import { request } from "../api/client";
import { json, mockFetch } from "../test/fetch";

afterEach(() => {
  vi.unstubAllGlobals();
  setReasonPrompter(null);
});

describe("the change reason", () => {
  it("follows the server's rules", () => {
    expect(reasonProblem("  ")).toMatch(/Say why/);
    expect(reasonProblem("INC-1 disk full")).toBeNull();
    expect(reasonProblem("two\nlines")).toMatch(/one line/);
    expect(reasonProblem("hidden\u202Eend")).toMatch(/invisible/);
    expect(reasonProblem("é".repeat(500))).toBeNull();
    expect(reasonProblem("é".repeat(501))).toMatch(/501 now/);
  });

  it("is sent trimmed and percent-encoded, on changes only, while the action runs", async () => {
    expect(reasonHeaders(" Jörg: 100% ")).toEqual({ "X-Change-Reason": "J%C3%B6rg%3A%20100%25" });
    const seen = await runWithReason("why", async () => [pendingReasonHeaders("DELETE"), pendingReasonHeaders("GET"), pendingReasonHeaders(undefined)]);
    expect(seen).toEqual([{ "X-Change-Reason": "why" }, {}, {}]);
    expect(pendingReasonHeaders("DELETE")).toEqual({});
  });

  it("is asked for when the server refuses a change without one, then the call is sent again", async () => {
    const fetch = mockFetch()
      .mockResolvedValueOnce(json(428, { error: { code: "change_reason_required", message: "prod is a production cluster" } }))
      .mockResolvedValueOnce(json(200, { enable: "all" }));
    const asked: string[] = [];
    setReasonPrompter(async (message) => (asked.push(message), "INC-9 rebalance"));
    await expect(request("/api/clusters/prod/allocation", { method: "PUT" })).resolves.toEqual({ enable: "all" });
    expect(asked).toEqual(["prod is a production cluster"]);
    expect(new Headers(fetch.mock.calls[0][1]?.headers).get("X-Change-Reason")).toBeNull();
    expect(new Headers(fetch.mock.calls[1][1]?.headers).get("X-Change-Reason")).toBe("INC-9%20rebalance");
  });

  it("cancelling the prompt leaves the refusal as the error", async () => {
    mockFetch().mockResolvedValue(json(428, { error: { code: "change_reason_required", message: "say why" } }));
    setReasonPrompter(async () => null);
    await expect(request("/api/clusters/prod/allocation", { method: "PUT" })).rejects.toMatchObject({ status: 428, code: "change_reason_required" });
  });
});
