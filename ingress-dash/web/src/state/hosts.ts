// The Hosts page's logic: its URL (`?view=hosts&namespaces=…&q=…&flagged=1&host=…`), the
// words of a host's flags, backends and Gateway listeners, and the deep link of an object into the table's details
// panel.

import type { HostsQuery } from "../api/hosts";
import type { AttachedListener, Attachment, HostEntry, PathBackend, RecordKind, ServingObject } from "../api/wire";
import { OTHER_ROUTE_PREFIXES, ROUTE_KEY_PREFIX, recordKey } from "./describe";

/** Namespace names are DNS-1123 labels; anything else in a pasted URL is dropped. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export interface HostsView extends HostsQuery {
  /** The expanded host. */
  open: string | null;
}

export function parseHostsView(search: string): HostsView {
  const q = new URLSearchParams(search);
  const namespaces = q.get("namespaces");
  return {
    namespaces: namespaces ? [...new Set(namespaces.split(","))].filter((n) => NAMESPACE.test(n)) : [],
    search: q.get("q") ?? "",
    flaggedOnly: q.get("flagged") === "1",
    open: q.get("host"),
  };
}

export function formatHostsView(view: HostsView): string {
  const q = new URLSearchParams({ view: "hosts" });
  if (view.namespaces.length > 0) q.set("namespaces", view.namespaces.join(","));
  if (view.search) q.set("q", view.search);
  if (view.flaggedOnly) q.set("flagged", "1");
  if (view.open) q.set("host", view.open);
  return `?${q.toString().replace(/%2C/g, ",").replace(/%2F/g, "/")}`;
}

export type HostFlag = "conflict" | "tls_overlap" | "duplicate";

export const FLAG_LABELS: Record<HostFlag, string> = {
  conflict: "Conflict",
  tls_overlap: "TLS overlap",
  duplicate: "Duplicate rule",
};

export function hostFlags(entry: HostEntry): HostFlag[] {
  const flags: HostFlag[] = [];
  if (entry.conflict) flags.push("conflict");
  if (entry.tlsOverlap) flags.push("tls_overlap");
  if (entry.duplicate) flags.push("duplicate");
  return flags;
}

/** `shop/web` for an Ingress, `shop/web (HTTPRoute)`, `shop/cart (GRPCRoute)` for a route. */
export function objectLabel(key: string): string {
  if (key.startsWith(ROUTE_KEY_PREFIX)) return `${key.slice(ROUTE_KEY_PREFIX.length)} (HTTPRoute)`;
  const other = OTHER_ROUTE_PREFIXES.find(([prefix]) => key.startsWith(prefix));
  return other ? `${key.slice(other[0].length)} (${other[1]})` : key;
}

/** The table's page with the object's details panel open, limited to its namespace. */
export function objectHref(object: Pick<ServingObject, "kind" | "namespace" | "name">): string {
  const q = new URLSearchParams({ namespaces: object.namespace });
  const key = recordKey(object);
  if (object.kind === "Ingress") q.set("ingress", key);
  else q.set("route", object.kind === "HTTPRoute" ? key.slice(ROUTE_KEY_PREFIX.length) : key);
  return `./?${q.toString().replace(/%2F/g, "/")}`;
}

/** `web:80 3/3 ready`, `web:80 missing`, `StorageBucket assets`. */
export function describePathBackend(backend: PathBackend): string {
  if (backend.kind !== "Service") return `${backend.kind} ${backend.name}`;
  const port = backend.port === null || backend.port === undefined ? "" : `:${backend.port}`;
  const weight = backend.weight === null || backend.weight === undefined ? "" : ` weight ${backend.weight}`;
  const name = `${backend.name}${port}${weight}`;
  switch (backend.state) {
    case "ready":
    case "degraded":
    case "no_ready_endpoints":
      return `${name} ${backend.readyEndpoints}/${backend.totalEndpoints} ready`;
    case "missing_service":
      return `${name} Service missing`;
    default:
      return `${name} state unknown`;
  }
}

/** Whole days from `now` to `notAfter` (RFC 3339), or null when unknown or unreadable. */
export function daysLeft(notAfter: string | null | undefined, now: number): number | null {
  if (!notAfter) return null;
  const at = Date.parse(notAfter);
  return Number.isNaN(at) ? null : Math.floor((at - now) / 86_400_000);
}

/** The soonest certificate expiry of the host's TLS Secrets, in days. */
export function soonestExpiry(entry: HostEntry, now: number): number | null {
  const days = entry.tls.map((tls) => daysLeft(tls.notAfter, now)).filter((d): d is number => d !== null);
  return days.length ? Math.min(...days) : null;
}

/** `listener`'s words: `https HTTPS :443 *.example.com TLS Terminate (infra/wildcard-tls)`. */
function describeListener(listener: AttachedListener): string {
  const words = [listener.name, listener.protocol, `:${listener.port}`];
  if (listener.hostname) words.push(listener.hostname);
  if (listener.tlsMode) words.push(`TLS ${listener.tlsMode}`);
  if (listener.certificateRefs.length) words.push(`(${listener.certificateRefs.join(", ")})`);
  if (listener.note) words.push(`[${listener.note}]`);
  return words.join(" ");
}

/** A route's parentRef and the listeners it attaches to, or why none, in words: `via listener
 * infra/public/https: https HTTPS :443 …`. */
export function describeAttachment(attachment: Attachment): string {
  const parent = `${attachment.gatewayNamespace}/${attachment.gateway}${attachment.sectionName ? `/${attachment.sectionName}` : ""}${attachment.port != null ? `:${attachment.port}` : ""}`;
  if (attachment.problem) return `via listener ${parent}: ${attachment.problem}`;
  if (!attachment.listeners.length) return `via listener ${parent}`;
  return `via listener ${parent}: ${attachment.listeners.map(describeListener).join("; ")}`;
}

const KIND_ORDER: readonly RecordKind[] = ["Ingress", "HTTPRoute", "GRPCRoute", "TLSRoute"];

/** The distinct kinds of a host's objects in words, when more than one: `Ingress, HTTPRoute and GRPCRoute`. */
export function kindsLabel(objects: readonly Pick<ServingObject, "kind">[]): string | null {
  const kinds = KIND_ORDER.filter((kind) => objects.some((o) => o.kind === kind));
  if (kinds.length < 2) return null;
  return `${kinds.slice(0, -1).join(", ")} and ${kinds[kinds.length - 1]}`;
}
