// Light and dark theme: `data-theme="light|dark"` on <html>, the system's preference
// (`prefers-color-scheme`) until the user chooses, the choice kept in localStorage.
// public/theme-init.js applies the same rule before first paint, so there is no flash.
import { useCallback, useEffect, useState } from "react";

export type Theme = "light" | "dark";

export const THEME_KEY = "ingress-dash.theme";

/** The part of the Web Storage API the theme uses, so tests can pass an in-memory one. */
export type ThemeStorage = Pick<Storage, "getItem" | "setItem">;

/** The stored choice, or null when the user has not chosen (or storage is refused). */
export function storedTheme(storage: ThemeStorage | null): Theme | null {
  try {
    const stored = storage?.getItem(THEME_KEY) ?? null;
    return stored === "light" || stored === "dark" ? stored : null;
  } catch {
    // Storage the browser refuses behaves as empty.
    return null;
  }
}

/** The stored choice, else the system's preference. */
export function initialTheme(storage: ThemeStorage | null, prefersDark: boolean): Theme {
  return storedTheme(storage) ?? (prefersDark ? "dark" : "light");
}

export function storeTheme(storage: ThemeStorage | null, theme: Theme): void {
  try {
    storage?.setItem(THEME_KEY, theme);
  } catch {
    // A full quota or disabled storage only loses the preference.
  }
}

export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement): void {
  root.dataset.theme = theme;
}

function browserStorage(): ThemeStorage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function darkQuery(): MediaQueryList | null {
  return typeof window.matchMedia === "function" ? window.matchMedia("(prefers-color-scheme: dark)") : null;
}

/**
 * The current theme and a toggle that applies and stores the other one. Until the user has
 * chosen, the page follows the system's preference as it changes.
 */
export function useTheme(storage: ThemeStorage | null = browserStorage()): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(() => initialTheme(storage, darkQuery()?.matches ?? false));
  useEffect(() => applyTheme(theme), [theme]);
  useEffect(() => {
    const query = darkQuery();
    if (!query) return;
    const follow = (event: MediaQueryListEvent) => {
      if (storedTheme(storage) === null) setTheme(event.matches ? "dark" : "light");
    };
    query.addEventListener("change", follow);
    return () => query.removeEventListener("change", follow);
  }, [storage]);
  const toggle = useCallback(() => {
    setTheme((current) => {
      const next: Theme = current === "dark" ? "light" : "dark";
      storeTheme(storage, next);
      return next;
    });
  }, [storage]);
  return [theme, toggle];
}
