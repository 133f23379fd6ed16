import { describe, expect, it } from "vitest";
import { collator, compareSimple, compareText, isSimple } from "./collate";

// A small deterministic generator (xorshift), so a failure can be reproduced.
function random(seed: number) {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

const sign = (n: number) => Math.sign(n);

function simpleString(next: () => number): string {
  const parts = ["a", "b", "z", "app", "api", "team", "-", ".", "0", "00", "1", "007", "9", "10", "12", "99", "100", "2026"];
  let text = "";
  const count = Math.floor(next() * 6);
  for (let k = 0; k < count; k++) text += parts[Math.floor(next() * parts.length)];
  return text;
}

describe("compareText", () => {
  it("orders simple strings exactly as the numeric, base-strength collator does", () => {
    const next = random(20261124);
    for (let k = 0; k < 50_000; k++) {
      const a = simpleString(next);
      const b = simpleString(next);
      expect(isSimple(a) && isSimple(b)).toBe(true);
      const want = sign(collator.compare(a, b));
      if (sign(compareSimple(a, b)) !== want) throw new Error(`${JSON.stringify(a)} vs ${JSON.stringify(b)}: want ${want}`);
    }
  });

  it("sorts realistic names, namespaces, hosts and addresses as the collator does", () => {
    const values = [
      "app-2", "app-10", "app-007", "app-7", "app-1", "app", "app-", "app.", "app-a", "app.1", "app1", "app-00010",
      "team-000", "team-499", "team-50", "10.0.1.2", "10.0.1.10", "10.0.10.1", "9.255.255.255", "",
      "web.team-001.example.com", "web.team-001.example.co", "api-v2", "api-v10", "nginx", "traefik", "haproxy",
    ];
    const want = [...values].sort((a, b) => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0));
    const got = [...values].sort((a, b) => compareText(a, b) || (a < b ? -1 : a > b ? 1 : 0));
    expect(got).toEqual(want);
  });

  it("leaves other strings (capitals, wildcards, paths, non-ASCII) to the collator", () => {
    for (const [a, b] of [
      ["App", "app"],
      ["*.example.com", "a.example.com"],
      ["/api", "/"],
      ["é", "f"],
      ["gateway-system/public", "gateway-system/internal"],
    ] as const) {
      expect(isSimple(a) && isSimple(b)).toBe(false);
      expect(compareText(a, b)).toBe(collator.compare(a, b));
    }
  });
});
