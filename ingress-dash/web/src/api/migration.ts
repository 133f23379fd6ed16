// Migration readiness (GET /api/migration) and the annotation explainer
// (GET /api/objects/ingresses/{namespace}/{name}/annotations). The answer types are generated
// from the server's (wire.ts).

import { failure } from "./objects";
import type { IngressAnnotations, MigrationReport, Support } from "./wire";

/** `/api/migration` for `namespaces` (none: every visible one) in `format`. */
export function migrationUrl(namespaces: readonly string[], format: "json" | "csv"): string {
  const query = new URLSearchParams();
  if (namespaces.length > 0) query.set("namespaces", namespaces.join(","));
  if (format === "csv") query.set("format", "csv");
  const text = query.toString();
  return `/api/migration${text ? `?${text}` : ""}`;
}

export async function fetchMigrationReport(namespaces: readonly string[], signal?: AbortSignal): Promise<MigrationReport> {
  const response = await fetch(migrationUrl(namespaces, "json"), { signal, headers: { Accept: "application/json" } });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as MigrationReport;
}

export async function fetchIngressAnnotations(namespace: string, name: string, signal?: AbortSignal): Promise<IngressAnnotations> {
  const path = `/api/objects/ingresses/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/annotations`;
  const response = await fetch(path, { signal, headers: { Accept: "application/json" } });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as IngressAnnotations;
}

/** How each classification reads in the interface. */
export const SUPPORT_LABELS: Record<Support, string> = {
  gateway_api: "Gateway API field",
  implementation_specific: "Implementation policy",
  no_equivalent: "No equivalent",
  unknown: "Unknown key",
};
