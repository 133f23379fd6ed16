import { describe, expect, it } from "vitest";
import { matchesSelector, parseLabelSelector } from "./labelSelector";

function matches(selector: string, labels: Record<string, string>): boolean {
  const parsed = parseLabelSelector(selector);
  if (!parsed.ok) throw new Error(parsed.error);
  return matchesSelector(labels, parsed.requirements);
}

describe("label selector", () => {
  const labels = { app: "web", tier: "frontend", "app.kubernetes.io/part-of": "shop" };

  it("an empty selector matches everything", () => {
    expect(matches("", {})).toBe(true);
    expect(matches("  ", labels)).toBe(true);
  });

  it("equality, inequality and double equals", () => {
    expect(matches("app=web", labels)).toBe(true);
    expect(matches("app==web", labels)).toBe(true);
    expect(matches("app=api", labels)).toBe(false);
    expect(matches("app!=api", labels)).toBe(true);
    expect(matches("app!=web", labels)).toBe(false);
  });

  it("!= also matches objects without the label, as in Kubernetes", () => {
    expect(matches("env!=prod", labels)).toBe(true);
  });

  it("existence and absence", () => {
    expect(matches("tier", labels)).toBe(true);
    expect(matches("!tier", labels)).toBe(false);
    expect(matches("!canary", labels)).toBe(true);
  });

  it("set-based requirements", () => {
    expect(matches("tier in (frontend, backend)", labels)).toBe(true);
    expect(matches("tier notin (frontend)", labels)).toBe(false);
    expect(matches("env in (prod)", labels)).toBe(false);
  });

  it("every requirement must hold; prefixed keys work", () => {
    expect(matches("app=web,app.kubernetes.io/part-of=shop", labels)).toBe(true);
    expect(matches("app=web, tier in (backend,db)", labels)).toBe(false);
  });

  it("reports invalid selectors", () => {
    expect(parseLabelSelector("app=we b").ok).toBe(false);
    expect(parseLabelSelector("=web").ok).toBe(false);
    expect(parseLabelSelector("app in (a b)").ok).toBe(false);
  });
});
