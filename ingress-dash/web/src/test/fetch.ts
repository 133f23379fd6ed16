import { vi } from "vitest";

/** A JSON answer as the server sends it. */
export function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

/**
 * Stubs the global `fetch` with `answer` for each URL asked; returns the URLs asked, in order.
 * `vi.unstubAllGlobals()` puts the real one back.
 */
export function stubFetch(answer: (url: string) => Response): string[] {
  const calls: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string) => {
      calls.push(url);
      return answer(url);
    }),
  );
  return calls;
}
