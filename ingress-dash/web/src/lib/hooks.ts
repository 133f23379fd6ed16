import { useEffect, useState } from "react";
import { fetchHealth, fetchNamespaces, fetchWhoAmI } from "../api/client";
import type { WhoAmI } from "../api/wire";

/** The current time, refreshed every `intervalMs`: ages and "stale since" follow the clock. */
export function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** The namespaces `GET /api/namespaces` lists; empty when it fails (the records still name theirs). */
export function useListedNamespaces(): string[] {
  const [namespaces, setNamespaces] = useState<string[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    const load = async () => {
      try {
        const listed = await fetchNamespaces(controller.signal);
        if (listed) setNamespaces(listed);
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
        const body = await fetchHealth(controller.signal);
        const kubernetes = body?.checks?.kubernetes;
        if (kubernetes) {
          const down = kubernetes.status === "down";
          failures = down ? failures + 1 : 0;
          if (!down || failures >= 2) setHealth({ kubernetesUp: !down, error: kubernetes.status === "down" ? kubernetes.error : null });
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

/** Who the front door says the caller is (`GET /api/whoami`), read once; null until known or when it fails. */
export function useWhoAmI(): WhoAmI | null {
  const [whoami, setWhoAmI] = useState<WhoAmI | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    fetchWhoAmI(controller.signal).then(setWhoAmI, () => {
      // Offline or aborted: the header simply shows no one.
    });
    return () => controller.abort();
  }, []);
  return whoami;
}
