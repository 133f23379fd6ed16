import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../api/events";
import { backend, ingress, snapshot } from "../test/fixtures";
import { BULK_CHANGE_ROWS, HIGHLIGHT_MS, applyEvents, ingressReducer, initialIngressState, knownNamespaces, type IngressState } from "./ingressStore";

const T0 = 1_700_000_000_000;

function apply(state: IngressState, now: number, ...events: StreamEvent[]): IngressState {
  return applyEvents(state, events, now);
}

const web = ingress({ name: "web", namespace: "shop" });
const api = ingress({ name: "api", namespace: "shop" });
const admin = ingress({ name: "admin", namespace: "ops" });

function snapshotted(): IngressState {
  return apply(initialIngressState, T0, { type: "snapshot", data: snapshot([web, api]) });
}

describe("event reducer", () => {
  it("a first snapshot fills the table without highlights", () => {
    const state = snapshotted();
    expect([...state.items.keys()]).toEqual([web.uid, api.uid]);
    expect(state.hasSnapshot).toBe(true);
    expect(state.changes.size).toBe(0);
  });

  it("added, modified and deleted apply in place by uid", () => {
    let state = snapshotted();
    state = apply(state, T0 + 1, { type: "added", data: admin });
    expect(state.items.get(admin.uid)).toBe(admin);
    expect(state.changes.get(admin.uid)).toEqual({ kind: "added", at: T0 + 1 });

    const renamedHost = { ...web, hosts: ["new.example.com"], resourceVersion: "2" };
    state = apply(state, T0 + 2, { type: "modified", data: renamedHost });
    expect(state.items.get(web.uid)?.hosts).toEqual(["new.example.com"]);
    expect(state.items.size).toBe(3);
    expect(state.changes.get(web.uid)?.kind).toBe("modified");

    state = apply(state, T0 + 3, { type: "deleted", data: api });
    expect(state.items.has(api.uid)).toBe(false);
    expect(state.deleted.get(api.uid)?.record).toBe(api);
    expect(state.changes.has(api.uid)).toBe(false);
  });

  it("keeps the last known state of a deleted ingress, not the possibly thinner deleted payload", () => {
    const state = apply(snapshotted(), T0 + 1, { type: "deleted", data: { ...web, labels: {} } });
    expect(state.deleted.get(web.uid)?.record).toBe(web);
  });

  it("a whole batch is one new state and the input state is left untouched", () => {
    const before = snapshotted();
    const items = before.items;
    const after = apply(
      before,
      T0 + 1,
      { type: "added", data: admin },
      { type: "modified", data: { ...admin, resourceVersion: "2" } },
      { type: "deleted", data: web },
    );
    expect(before.items).toBe(items);
    expect(before.items.size).toBe(2);
    expect([...after.items.keys()].sort()).toEqual([api.uid, admin.uid].sort());
    expect(after.changes.get(admin.uid)?.kind).toBe("added");
  });

  it("an event that repeats the resourceVersion the page has is not highlighted", () => {
    const state = apply(snapshotted(), T0 + 1, { type: "modified", data: { ...web } });
    expect(state.changes.size).toBe(0);
  });

  it("a modified event for an unknown uid adds the ingress", () => {
    const state = apply(snapshotted(), T0 + 1, { type: "modified", data: admin });
    expect(state.items.get(admin.uid)).toBe(admin);
    expect(state.changes.get(admin.uid)?.kind).toBe("added");
  });

  it("an error event marks only its namespace; others keep updating", () => {
    let state = snapshotted();
    state = apply(state, T0 + 1, { type: "error", data: { namespace: "ops", code: "forbidden", message: "403" } });
    expect([...state.errors.keys()]).toEqual(["ops"]);
    state = apply(state, T0 + 2, { type: "added", data: ingress({ name: "cart", namespace: "shop" }) });
    expect(state.errors.has("ops")).toBe(true);
    expect(state.items.size).toBe(3);
  });

  it("an event from a failing namespace clears its error", () => {
    let state = snapshotted();
    state = apply(state, T0 + 1, { type: "error", data: { namespace: "ops", code: "unavailable", message: "503" } });
    state = apply(state, T0 + 2, { type: "added", data: admin });
    expect(state.errors.size).toBe(0);
  });

  it("a recovered event clears only its namespace's error, with no change to the rows", () => {
    let state = snapshotted();
    state = apply(state, T0 + 1, { type: "error", data: { namespace: "ops", code: "forbidden", message: "403" } });
    state = apply(state, T0 + 2, { type: "error", data: { namespace: "shop", code: "forbidden", message: "403" } });
    state = apply(state, T0 + 3, { type: "recovered", data: { namespace: "ops" } });
    expect([...state.errors.keys()]).toEqual(["shop"]);
    expect(state.items.size).toBe(2);
  });

  it("an error of the cluster-wide watcher clears with any event", () => {
    let state = snapshotted();
    state = apply(state, T0 + 1, { type: "error", data: { namespace: "*", code: "kubernetes_unavailable", message: "503" } });
    expect(knownNamespaces(state.items, state.errors, [])).not.toContain("*");
    state = apply(state, T0 + 2, { type: "modified", data: { ...web, resourceVersion: "5" } });
    expect(state.errors.size).toBe(0);
  });

  it("a snapshot replaces the errors with its own", () => {
    let state = apply(snapshotted(), T0 + 1, { type: "error", data: { namespace: "ops", code: "forbidden", message: "403" } });
    state = apply(state, T0 + 2, {
      type: "snapshot",
      data: snapshot([web], { errors: [{ namespace: "kube-system", code: "forbidden", message: "403" }] }),
    });
    expect([...state.errors.keys()]).toEqual(["kube-system"]);
  });

  it("a snapshot after resync replaces the list and highlights what differs", () => {
    let state = snapshotted();
    state = apply(state, T0 + 1, { type: "resync", data: { reason: "replay buffer overrun" } });
    expect(state.lastResync).toEqual({ reason: "replay buffer overrun", at: T0 + 1 });
    const changedWeb = { ...web, resourceVersion: "9" };
    state = apply(state, T0 + 2, { type: "snapshot", data: snapshot([changedWeb, admin]) });
    expect([...state.items.keys()]).toEqual([web.uid, admin.uid]);
    expect(state.changes.get(web.uid)?.kind).toBe("modified");
    expect(state.changes.get(admin.uid)?.kind).toBe("added");
    expect(state.deleted.has(api.uid)).toBe(true);
  });

  it("a snapshot onto an empty page (still loading) highlights nothing", () => {
    let state = apply(initialIngressState, T0, { type: "snapshot", data: snapshot([]) });
    state = apply(state, T0 + 1, { type: "snapshot", data: snapshot([web, api]) });
    expect(state.items.size).toBe(2);
    expect(state.changes.size).toBe(0);
  });

  it("after a rescope the next snapshot is a first one again (no highlights)", () => {
    let state = ingressReducer(snapshotted(), { type: "rescope" });
    expect(state.hasSnapshot).toBe(false);
    state = apply(state, T0 + 1, { type: "snapshot", data: snapshot([admin]) });
    expect([...state.items.keys()]).toEqual([admin.uid]);
    expect(state.changes.size).toBe(0);
  });

  it("highlights expire", () => {
    let state = apply(snapshotted(), T0, { type: "added", data: admin });
    state = ingressReducer(state, { type: "expire", now: T0 + HIGHLIGHT_MS - 1 });
    expect(state.changes.size).toBe(1);
    state = ingressReducer(state, { type: "expire", now: T0 + HIGHLIGHT_MS });
    expect(state.changes.size).toBe(0);
  });

  it("expire without anything to expire returns the same state", () => {
    const state = snapshotted();
    expect(ingressReducer(state, { type: "expire", now: T0 + 1 })).toBe(state);
  });

  it("an empty batch changes nothing", () => {
    const state = snapshotted();
    expect(applyEvents(state, [], T0)).toBe(state);
  });

  // Timing belongs to bench/; this checks a big batch is applied completely in one state.
  it("applies a burst of 1,000 events onto 10,000 records", () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ingress({ name: `ing-${i}`, namespace: `ns-${i % 50}` }));
    let state = apply(initialIngressState, T0, { type: "snapshot", data: snapshot(items) });
    const burst: StreamEvent[] = items.slice(0, 1_000).map((r) => ({ type: "modified", data: { ...r, resourceVersion: "2" } }));
    state = applyEvents(state, burst, T0 + 1);
    expect(state.items.size).toBe(10_000);
    expect(state.items.get(items[999]!.uid)?.resourceVersion).toBe("2");
    // A bulk change is applied but not highlighted row by row.
    expect(state.changes.size).toBe(0);
    const few = items.slice(0, BULK_CHANGE_ROWS).map((r): StreamEvent => ({ type: "modified", data: { ...r, resourceVersion: "3" } }));
    expect(applyEvents(state, few, T0 + 2).changes.size).toBe(BULK_CHANGE_ROWS);
  });

  it("lists namespaces from the list endpoint, the records and the errors", () => {
    const state = apply(snapshotted(), T0, { type: "error", data: { namespace: "zeta", code: "forbidden", message: "" } });
    expect(knownNamespaces(state.items, state.errors, ["alpha", "shop"])).toEqual(["alpha", "shop", "zeta"]);
  });

  it("keeps the snapshot's notices and expiry warning days", () => {
    const notice = { code: "gateway_api_not_installed", message: "Gateway API is not installed: HTTPRoutes are not shown." };
    const state = apply(initialIngressState, T0, { type: "snapshot", data: snapshot([web], { notices: [notice], expiryWarningDays: 30 }) });
    expect(state.notices).toEqual([notice]);
    expect(state.expiryWarningDays).toBe(30);
    // A later snapshot (the CRD was installed meanwhile) replaces them.
    const later = apply(state, T0 + 1, { type: "snapshot", data: snapshot([web]) });
    expect(later.notices).toEqual([]);
    expect(later.expiryWarningDays).toBe(14);
  });

  it("a backend's status change arrives as modified with the same resourceVersion and replaces the record", () => {
    const healthy = ingress({ name: "web", namespace: "shop", backends: [backend({ service: "web", namespace: "shop" })] });
    let state = apply(initialIngressState, T0, { type: "snapshot", data: snapshot([healthy]) });
    const broken = { ...healthy, backends: [backend({ service: "web", namespace: "shop", state: "no_ready_endpoints", readyEndpoints: 0 })] };
    state = apply(state, T0 + 1, { type: "modified", data: broken });
    expect(state.items.get(healthy.uid)?.backends[0]?.state).toBe("no_ready_endpoints");
  });
});
