import { describe, expect, it } from "vitest";
import { hostsUrl } from "../api/hosts";
import type { HostEntry, PathBackend } from "../api/wire";
import { daysLeft, describePathBackend, formatHostsView, hostFlags, kindsLabel, objectHref, objectLabel, parseHostsView, soonestExpiry } from "./hosts";

function entry(overrides: Partial<HostEntry>): HostEntry {
  return {
    host: "shop.example.com",
    objects: [],
    paths: [],
    tls: [],
    conflict: false,
    tlsOverlap: false,
    duplicate: false,
    conflicts: [],
    duplicates: [],
    ...overrides,
  };
}

function service(overrides: Partial<PathBackend>): PathBackend {
  return { kind: "Service", namespace: "shop", name: "web", port: 80, weight: null, state: "ready", readyEndpoints: 2, totalEndpoints: 2, ...overrides };
}

describe("the Hosts page's URL", () => {
  it("round-trips namespaces, search, the flagged filter and the open host", () => {
    const view = { namespaces: ["team-a", "team-b"], search: "shop", flaggedOnly: true, open: "*.example.com" };
    const text = formatHostsView(view);
    expect(text).toBe("?view=hosts&namespaces=team-a,team-b&q=shop&flagged=1&host=*.example.com");
    expect(parseHostsView(text)).toEqual(view);
  });

  it("drops namespaces that are no DNS labels", () => {
    expect(parseHostsView("?view=hosts&namespaces=ok,Bad!,ok").namespaces).toEqual(["ok"]);
  });

  it("asks the server with the same selection", () => {
    expect(hostsUrl({ namespaces: [], search: " ", flaggedOnly: false })).toBe("/api/hosts");
    expect(hostsUrl({ namespaces: ["a", "b"], search: "a&b", flaggedOnly: true })).toBe("/api/hosts?namespaces=a,b&search=a%26b&flagged=true");
  });
});

describe("a host in words", () => {
  it("lists its flags in a fixed order", () => {
    expect(hostFlags(entry({}))).toEqual([]);
    expect(hostFlags(entry({ duplicate: true, conflict: true, tlsOverlap: true }))).toEqual(["conflict", "tls_overlap", "duplicate"]);
  });

  it("links an object into the table's details panel of its namespace", () => {
    expect(objectHref({ kind: "Ingress", namespace: "shop", name: "web" })).toBe("./?namespaces=shop&ingress=shop/web");
    expect(objectHref({ kind: "HTTPRoute", namespace: "shop", name: "web" })).toBe("./?namespaces=shop&route=shop/web");
    expect(objectLabel("httproute/shop/web")).toBe("shop/web (HTTPRoute)");
    expect(objectLabel("shop/web")).toBe("shop/web");
  });

  it("links a GRPCRoute and a TLSRoute by their whole key and labels them with their kind", () => {
    expect(objectHref({ kind: "GRPCRoute", namespace: "shop", name: "cart" })).toBe("./?namespaces=shop&route=grpcroute/shop/cart");
    expect(objectHref({ kind: "TLSRoute", namespace: "data", name: "db" })).toBe("./?namespaces=data&route=tlsroute/data/db");
    expect(objectLabel("grpcroute/shop/cart")).toBe("shop/cart (GRPCRoute)");
    expect(objectLabel("tlsroute/data/db")).toBe("data/db (TLSRoute)");
  });

  it("names the kinds of a host's objects in a fixed order when there are several", () => {
    expect(kindsLabel([{ kind: "Ingress" }, { kind: "Ingress" }])).toBeNull();
    expect(kindsLabel([{ kind: "GRPCRoute" }, { kind: "HTTPRoute" }, { kind: "Ingress" }])).toBe("Ingress, HTTPRoute and GRPCRoute");
    expect(kindsLabel([{ kind: "TLSRoute" }, { kind: "Ingress" }])).toBe("Ingress and TLSRoute");
  });

  it("says each backend's endpoints or why they are unknown", () => {
    expect(describePathBackend(service({}))).toBe("web:80 2/2 ready");
    expect(describePathBackend(service({ state: "degraded", readyEndpoints: 1, totalEndpoints: 3, weight: 90 }))).toBe("web:80 weight 90 1/3 ready");
    expect(describePathBackend(service({ state: "missing_service", port: "http" }))).toBe("web:http Service missing");
    // The server leaves out what it does not know.
    expect(describePathBackend({ kind: "Service", namespace: "a", name: "x", readyEndpoints: 0, totalEndpoints: 0 } as unknown as PathBackend)).toBe("x state unknown");
    expect(describePathBackend(service({ kind: "StorageBucket", name: "assets" }))).toBe("StorageBucket assets");
  });

  it("gives the soonest certificate expiry in whole days", () => {
    const now = Date.parse("2026-11-28T00:00:00Z");
    expect(daysLeft("2026-12-03T12:00:00Z", now)).toBe(5);
    expect(daysLeft("not a date", now)).toBeNull();
    expect(daysLeft(undefined, now)).toBeNull();
    const tls = (notAfter: string | null) => ({ namespace: "a", secretName: "s", object: "a/x", source: "secret" as const, notAfter, certManagerReady: null, error: null, listener: null });
    expect(soonestExpiry(entry({ tls: [tls("2027-01-01T00:00:00Z"), tls("2026-11-20T00:00:00Z"), tls(null)] }), now)).toBe(-8);
    expect(soonestExpiry(entry({}), now)).toBeNull();
  });
});
