// Which records are Gateway API routes, shared by the table, the details panel and health.

import type { RecordKind } from "../api/wire";

/** A Gateway API route (HTTPRoute, GRPCRoute, TLSRoute); records without a kind are ingresses. */
export function isRouteKind(kind: RecordKind | undefined | null): boolean {
  return kind != null && kind !== "Ingress";
}
