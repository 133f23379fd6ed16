// The one `fetch` replacement of the web unit tests: the admin console as a mock whose calls a
// test reads, a JSON answer as the server writes it, and a 404 for whatever a test does not serve.
import { vi, type Mock } from "vitest";

export type FetchArgs = [input: RequestInfo | URL, init?: RequestInit];
export type FetchMock = Mock<(...args: FetchArgs) => Promise<Response>>;

/** A JSON answer as the admin console sends it. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

/** The admin console's 404 for what a test does not serve (`what`: the URL, or method and URL). */
export function notServed(what: string): Response {
  return json(404, { error: { code: "not_found", message: what } });
}

/**
 * Replaces the global `fetch` with a mock that answers every call with a 404 until the test
 * says what it serves (`mockImplementation`, which can end in {@link notServed}); returns the
 * mock. `vi.unstubAllGlobals()` puts the real `fetch` back.
 */
export function mockFetch(): FetchMock {
  const mock = vi.fn<(...args: FetchArgs) => Promise<Response>>(async (input) => notServed(String(input)));
  vi.stubGlobal("fetch", mock);
  return mock;
}
