import { useEffect, useState } from "react";

/** The current time, refreshed every `intervalMs`: ages and "stale since" follow the clock. */
export function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

export type ThemeChoice = "system" | "light" | "dark";
const THEME_KEY = "ingress-dash.theme";

function readTheme(): ThemeChoice {
  try {
    const stored = localStorage.getItem(THEME_KEY);
    if (stored === "light" || stored === "dark") return stored;
  } catch {
    // Storage can be disabled; the system theme applies then.
  }
  return "system";
}

/** Light, dark or the system's choice, remembered in localStorage, applied on <html>. */
export function useTheme(): [ThemeChoice, (choice: ThemeChoice) => void] {
  const [choice, setChoice] = useState<ThemeChoice>(readTheme);
  useEffect(() => {
    const root = document.documentElement;
    if (choice === "system") root.removeAttribute("data-theme");
    else root.setAttribute("data-theme", choice);
    try {
      if (choice === "system") localStorage.removeItem(THEME_KEY);
      else localStorage.setItem(THEME_KEY, choice);
    } catch {
      // Not remembered; still applied.
    }
  }, [choice]);
  return [choice, setChoice];
}

/** The namespaces `GET /api/namespaces` lists; empty when it fails (the records still name theirs). */
export function useListedNamespaces(): string[] {
  const [namespaces, setNamespaces] = useState<string[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    const load = async () => {
      try {
        const response = await fetch("/api/namespaces", { signal: controller.signal });
        if (!response.ok) return;
        const body = (await response.json()) as { namespaces?: unknown };
        if (Array.isArray(body.namespaces)) setNamespaces(body.namespaces.filter((n): n is string => typeof n === "string"));
      } catch {
        // Offline or aborted: keep what we had.
      }
    };
    void load();
    const timer = setInterval(load, 60_000);
    return () => {
      controller.abort();
      clearInterval(timer);
    };
  }, []);
  return namespaces;
}

export interface ApiHealth {
  /** False when `/api/health` answers 503: the dashboard cannot reach the Kubernetes API. */
  kubernetesUp: boolean;
  error: string | null;
}

/** A failed health check is confirmed this soon, so one lost request raises no alarm. */
const HEALTH_RECHECK_MS = 3_000;

/**
 * Polls `GET /api/health` (the specification's shape) so the page can say when the Kubernetes
 * API itself is down, which the stream alone cannot tell apart from a quiet cluster. Down means
 * two checks in a row said so.
 */
export function useApiHealth(intervalMs = 30_000): ApiHealth | null {
  const [health, setHealth] = useState<ApiHealth | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    const check = async () => {
      try {
        const response = await fetch("/api/health", { signal: controller.signal });
        if (response.status === 200 || response.status === 503) {
          const body = (await response.json()) as { checks?: { kubernetes?: { status?: string; error?: string } } };
          const kubernetes = body.checks?.kubernetes;
          const down = kubernetes?.status === "down";
          failures = down ? failures + 1 : 0;
          if (!down || failures >= 2) setHealth({ kubernetesUp: !down, error: kubernetes?.error ?? null });
        }
      } catch {
        // The stream's own state already says when the dashboard is unreachable.
      }
      if (!controller.signal.aborted) timer = setTimeout(check, failures === 1 ? HEALTH_RECHECK_MS : intervalMs);
    };
    void check();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [intervalMs]);
  return health;
}
