// The JSON endpoints the page reads besides the stream, typed by the generated wire types.
import type { HealthBody, NamespaceList, WhoAmI } from "./wire";

/** `GET /api/namespaces`: the namespaces a client may ask for, or null when the call fails. */
export async function fetchNamespaces(signal: AbortSignal): Promise<string[] | null> {
  const response = await fetch("/api/namespaces", { signal });
  if (!response.ok) return null;
  const body = (await response.json()) as Partial<NamespaceList>;
  return Array.isArray(body.namespaces) ? body.namespaces.filter((n): n is string => typeof n === "string") : null;
}

/**
 * `GET /api/health`: its body when it answers 200 (healthy) or 503 (the Kubernetes API is
 * down), else null (the dashboard itself is unreachable or answered something else).
 */
export async function fetchHealth(signal: AbortSignal): Promise<HealthBody | null> {
  const response = await fetch("/api/health", { signal });
  if (response.status !== 200 && response.status !== 503) return null;
  return (await response.json()) as HealthBody;
}

/** `GET /api/whoami`: the signed-in caller and the namespaces it may see, or null when the call fails. */
export async function fetchWhoAmI(signal: AbortSignal): Promise<WhoAmI | null> {
  const response = await fetch("/api/whoami", { signal });
  if (!response.ok) return null;
  const body = (await response.json()) as Partial<WhoAmI>;
  const namespaces = body.namespaces as unknown;
  return typeof body.mode === "string" && Array.isArray(body.groups) && (namespaces === "*" || Array.isArray(namespaces))
    ? (body as WhoAmI)
    : null;
}
