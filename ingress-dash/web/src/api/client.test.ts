import { afterEach, describe, expect, it, vi } from "vitest";
import { jsonResponse, stubFetch } from "../test/fetch";
import { fetchWhoAmI } from "./client";

const answer = (body: unknown) => stubFetch(() => jsonResponse(body));

describe("fetchWhoAmI", () => {
  afterEach(() => vi.unstubAllGlobals());
  const signal = new AbortController().signal;

  it("accepts the documented shape", async () => {
    const body = { mode: "trusted_headers", user: "ana", email: null, groups: ["sre"], namespaces: ["team-a"] };
    answer(body);
    expect(await fetchWhoAmI(signal)).toEqual(body);
    answer({ ...body, namespaces: "*" });
    expect((await fetchWhoAmI(signal))?.namespaces).toBe("*");
  });

  it("refuses a body whose namespaces the page could not read", async () => {
    for (const namespaces of [undefined, null, 3, "team-a", { a: 1 }]) {
      answer({ mode: "open", user: null, email: null, groups: [], namespaces });
      expect(await fetchWhoAmI(signal)).toBeNull();
    }
  });
});
