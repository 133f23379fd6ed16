import { describe, expect, it } from "vitest";
import { THEME_KEY, initialTheme, storeTheme, storedTheme, type ThemeStorage } from "./theme";

function memory(initial: Record<string, string> = {}): ThemeStorage & { map: Map<string, string> } {
  const map = new Map(Object.entries(initial));
  return { map, getItem: (key) => map.get(key) ?? null, setItem: (key, value) => void map.set(key, value) };
}

const refusing: ThemeStorage = {
  getItem: () => {
    throw new Error("SecurityError");
  },
  setItem: () => {
    throw new Error("QuotaExceededError");
  },
};

describe("theme", () => {
  it("follows the system until the user has chosen", () => {
    expect(initialTheme(memory(), true)).toBe("dark");
    expect(initialTheme(memory(), false)).toBe("light");
    expect(initialTheme(memory({ [THEME_KEY]: "light" }), true)).toBe("light");
    expect(initialTheme(memory({ [THEME_KEY]: "dark" }), false)).toBe("dark");
  });

  it("ignores a stored value that is not a theme", () => {
    expect(storedTheme(memory({ [THEME_KEY]: "system" }))).toBeNull();
    expect(initialTheme(memory({ [THEME_KEY]: "<script>" }), true)).toBe("dark");
  });

  it("stores the choice under ingress-dash.theme", () => {
    const storage = memory();
    storeTheme(storage, "dark");
    expect(storage.map.get("ingress-dash.theme")).toBe("dark");
    expect(storedTheme(storage)).toBe("dark");
  });

  it("works when storage is refused or missing", () => {
    expect(initialTheme(refusing, true)).toBe("dark");
    expect(() => storeTheme(refusing, "light")).not.toThrow();
    expect(initialTheme(null, false)).toBe("light");
  });
});
