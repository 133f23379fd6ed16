import { describe, expect, it } from "vitest";
import { clampDrawerWidth, Prefs } from "./prefs";
import { memoryStorage } from "./storage";

describe("drawer width", () => {
  it("is clamped between 400 px and half the viewport", () => {
    expect(clampDrawerWidth(100, 1600)).toBe(400);
    expect(clampDrawerWidth(1200, 1600)).toBe(800);
    expect(clampDrawerWidth(555.4, 1600)).toBe(555);
    expect(clampDrawerWidth(500, 700)).toBe(400);
  });

  it("is stored per cluster", () => {
    const prefs = new Prefs(memoryStorage());
    prefs.setDrawerWidth("a", 640);
    expect(prefs.drawerWidth("a", 1600)).toBe(640);
    expect(prefs.drawerWidth("b", 1600)).toBe(560);
    // A stored width larger than the current viewport allows is clamped on read.
    expect(prefs.drawerWidth("a", 1000)).toBe(500);
  });
});

describe("console mode", () => {
  it("defaults to the drawer, is stored per cluster, and the last choice is the default", () => {
    const prefs = new Prefs(memoryStorage());
    expect(prefs.consoleMode("a")).toBe("drawer");
    prefs.setConsoleMode("a", "modal");
    expect(prefs.consoleMode("a")).toBe("modal");
    expect(prefs.consoleMode("fresh")).toBe("modal");
    prefs.setConsoleMode("b", "drawer");
    expect(prefs.consoleMode("a")).toBe("modal");
    expect(prefs.consoleMode("b")).toBe("drawer");
  });
});
