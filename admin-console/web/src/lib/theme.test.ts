import { describe, expect, it } from "vitest";
import { initialTheme, storeTheme, THEME_KEY } from "./theme";
import { memoryStorage } from "./storage";

describe("theme", () => {
  it("follows the system until a choice is stored, then keeps the choice", () => {
    const storage = memoryStorage();
    expect(initialTheme(storage, true)).toBe("dark");
    expect(initialTheme(storage, false)).toBe("light");
    storeTheme(storage, "light");
    expect(storage.getItem(THEME_KEY)).toBe("light");
    expect(initialTheme(storage, true)).toBe("light");
  });

  it("ignores a stored value that is not a theme", () => {
    const storage = memoryStorage();
    storage.setItem(THEME_KEY, "sepia");
    expect(initialTheme(storage, true)).toBe("dark");
  });
});
