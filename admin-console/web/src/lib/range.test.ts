import { describe, expect, it } from "vitest";
import {
  parseLocalDateTime,
  parseUnixSeconds,
  resolveRange,
  toLocalDateTimeInput,
  validateRange,
} from "./range";

describe("resolveRange", () => {
  it("ends presets at now and goes back their length", () => {
    expect(resolveRange({ kind: "preset", preset: "1h" }, 1_700_000_000.7)).toEqual({
      start: 1_700_000_000 - 3600,
      end: 1_700_000_000,
    });
    expect(resolveRange({ kind: "preset", preset: "30d" }, 1_700_000_000).start).toBe(
      1_700_000_000 - 30 * 86400,
    );
  });

  it("returns a custom range as it is", () => {
    expect(resolveRange({ kind: "custom", start: 10, end: 20 }, 99)).toEqual({ start: 10, end: 20 });
  });
});

describe("parseUnixSeconds", () => {
  it("accepts whole seconds", () => {
    expect(parseUnixSeconds("1700000000")).toEqual({ ok: true, value: 1_700_000_000 });
  });

  it("refuses milliseconds with a message saying so", () => {
    const r = parseUnixSeconds("1700000000000", "start");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/start looks like milliseconds/);
  });

  it("refuses non-numbers, fractions, negatives and absence", () => {
    for (const bad of ["abc", "1.5", "-3", "", null, "12e3"]) {
      expect(parseUnixSeconds(bad).ok).toBe(false);
    }
  });
});

describe("validateRange", () => {
  it("requires start strictly before end", () => {
    expect(validateRange(10, 20)).toBeNull();
    expect(validateRange(20, 20)).toMatch(/before/);
    expect(validateRange(30, 20)).toMatch(/before/);
    expect(validateRange(NaN, 20)).toMatch(/required/);
  });
});

describe("local date-time inputs", () => {
  it("round-trips through the datetime-local format in local time", () => {
    const seconds = parseLocalDateTime("2026-03-04T05:06");
    expect(seconds).not.toBeNull();
    expect(toLocalDateTimeInput(seconds!)).toBe("2026-03-04T05:06");
    const d = new Date(seconds! * 1000);
    expect([d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes()]).toEqual([
      2026, 2, 4, 5, 6,
    ]);
  });

  it("rejects malformed and impossible dates", () => {
    expect(parseLocalDateTime("2026-02-31T10:00")).toBeNull();
    expect(parseLocalDateTime("yesterday")).toBeNull();
    expect(parseLocalDateTime("")).toBeNull();
  });
});
