import { describe, expect, it } from "vitest";
import { visibleRange } from "./virtual";

describe("visibleRange", () => {
  it("renders the rows in view and a few either side, with spacers for the rest", () => {
    expect(visibleRange(0, 300, 30, 1000, 5)).toEqual({ start: 0, end: 15, padTop: 0, padBottom: 985 * 30 });
    const middle = visibleRange(3000, 300, 30, 1000, 5);
    expect(middle).toEqual({ start: 95, end: 115, padTop: 95 * 30, padBottom: 885 * 30 });
    expect(middle.end - middle.start).toBeLessThanOrEqual(20);
  });
  it("stays inside the list at the ends and for short lists", () => {
    expect(visibleRange(1e9, 300, 30, 1000, 5)).toMatchObject({ end: 1000, padBottom: 0 });
    expect(visibleRange(0, 300, 30, 3)).toEqual({ start: 0, end: 3, padTop: 0, padBottom: 0 });
    expect(visibleRange(0, 300, 30, 0)).toEqual({ start: 0, end: 0, padTop: 0, padBottom: 0 });
    expect(visibleRange(-50, 0, 30, 10)).toMatchObject({ start: 0 });
  });
});
