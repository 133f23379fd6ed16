// Light and dark theme: `data-theme="light|dark"` on <html>, the system's preference
// (`prefers-color-scheme`) until the user chooses, the choice kept in localStorage.
// public/theme-init.js applies the same rule before first paint, so there is no flash.
import { useCallback, useState } from "react";
import type { KeyValueStorage } from "./storage";

export type Theme = "light" | "dark";

export const THEME_KEY = "admin-console.theme";

/** The stored choice, else the system's preference. */
export function initialTheme(storage: KeyValueStorage, prefersDark: boolean): Theme {
  let stored: string | null = null;
  try {
    stored = storage.getItem(THEME_KEY);
  } catch {
    // Storage the browser refuses behaves as empty.
  }
  if (stored === "light" || stored === "dark") return stored;
  return prefersDark ? "dark" : "light";
}

export function storeTheme(storage: KeyValueStorage, theme: Theme): void {
  try {
    storage.setItem(THEME_KEY, theme);
  } catch {
    // A full quota only loses the preference.
  }
}

export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement): void {
  root.dataset.theme = theme;
}

function systemPrefersDark(): boolean {
  return window.matchMedia?.("(prefers-color-scheme: dark)").matches ?? false;
}

/** The current theme and a toggle that applies it at once (charts read the colours while they render) and stores it. */
export function useTheme(storage: KeyValueStorage): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(() => {
    const initial = initialTheme(storage, systemPrefersDark());
    applyTheme(initial);
    return initial;
  });
  const toggle = useCallback(() => {
    setTheme((current) => {
      const next: Theme = current === "dark" ? "light" : "dark";
      applyTheme(next);
      storeTheme(storage, next);
      return next;
    });
  }, [storage]);
  return [theme, toggle];
}
