import { vi } from "vitest";

/** A JSON answer as the server sends it. */
export function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

/** The server's 404 for what a test does not serve. */
export function notServed(url: string): Response {
  return jsonResponse({ error: { code: "not_found", message: url } }, 404);
}

/**
 * Stubs the global `fetch` with `answer` for each URL asked (nothing, or no answer: a 404);
 * returns the URLs asked, in order. `vi.mocked(fetch)` is the stub; `vi.unstubAllGlobals()`
 * puts the real one back.
 */
export function stubFetch(
  answer: (url: string) => Response | Promise<Response> | undefined = () => undefined,
): string[] {
  const calls: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string) => {
      calls.push(url);
      return (await answer(url)) ?? notServed(url);
    }),
  );
  return calls;
}
