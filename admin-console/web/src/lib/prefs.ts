// Console layout preferences: width and display mode per cluster, plus the last mode used
// anywhere (the default for a cluster with none stored), all across browser sessions.
import type { KeyValueStorage } from "./storage";

export type ConsoleMode = "drawer" | "modal";

export const MIN_DRAWER_WIDTH = 400;
export const DEFAULT_DRAWER_WIDTH = 560;

/** 400 px to 50% of the viewport; on a viewport under 800 px the minimum wins. */
export function clampDrawerWidth(width: number, viewportWidth: number): number {
  const max = Math.max(MIN_DRAWER_WIDTH, Math.floor(viewportWidth / 2));
  if (!Number.isFinite(width)) return Math.min(DEFAULT_DRAWER_WIDTH, max);
  return Math.round(Math.min(max, Math.max(MIN_DRAWER_WIDTH, width)));
}

const key = {
  width: (clusterId: string) => `admin-console.console.width.${clusterId}`,
  mode: (clusterId: string) => `admin-console.console.mode.${clusterId}`,
  lastMode: "admin-console.console.mode",
};

function read(storage: KeyValueStorage, name: string): string | null {
  try {
    return storage.getItem(name);
  } catch {
    return null;
  }
}

function write(storage: KeyValueStorage, name: string, value: string): void {
  try {
    storage.setItem(name, value);
  } catch {
    // A full quota only loses a preference.
  }
}

export class Prefs {
  constructor(private readonly storage: KeyValueStorage) {}

  drawerWidth(clusterId: string, viewportWidth: number): number {
    const stored = Number(read(this.storage, key.width(clusterId)) ?? NaN);
    return clampDrawerWidth(Number.isFinite(stored) ? stored : DEFAULT_DRAWER_WIDTH, viewportWidth);
  }

  setDrawerWidth(clusterId: string, width: number): void {
    write(this.storage, key.width(clusterId), String(Math.round(width)));
  }

  consoleMode(clusterId: string): ConsoleMode {
    const stored = read(this.storage, key.mode(clusterId)) ?? read(this.storage, key.lastMode);
    return stored === "modal" ? "modal" : "drawer";
  }

  setConsoleMode(clusterId: string, mode: ConsoleMode): void {
    write(this.storage, key.mode(clusterId), mode);
    write(this.storage, key.lastMode, mode);
  }
}
