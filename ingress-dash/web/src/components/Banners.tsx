import { useState } from "react";
import type { ConnectionStatus } from "../api/stream";
import type { NamespaceError, Notice } from "../api/wire";
import { useNow, type ApiHealth } from "../lib/hooks";
import { formatClock } from "../state/describe";
import { CLUSTER_SCOPE } from "../state/ingressStore";

const COLLAPSE_AFTER = 3;
/** The code of a namespace whose first list has not completed when the snapshot was taken. */
const SYNCING = "syncing";

function namespaceLabel(namespace: string): string {
  return namespace === CLUSTER_SCOPE ? "All namespaces" : namespace;
}

/**
 * One banner per failing namespace; the rest of the table stays live. Many failing namespaces
 * collapse into one line that expands.
 */
export function NamespaceErrorBanners({ errors }: { errors: readonly NamespaceError[] }) {
  const [expanded, setExpanded] = useState(false);
  if (errors.length === 0) return null;
  const shown = expanded || errors.length <= COLLAPSE_AFTER ? errors : errors.slice(0, COLLAPSE_AFTER - 1);
  return (
    <div className="banners" role="region" aria-label="Namespace errors">
      {shown.map((e) =>
        e.code === SYNCING ? (
          <div key={e.namespace} className="banner banner-info" role="status" data-namespace={e.namespace} data-testid="namespace-syncing">
            <strong>{namespaceLabel(e.namespace)}</strong>
            <span className="banner-message">Still loading: {e.message}</span>
          </div>
        ) : (
          <div key={e.namespace} className="banner banner-error" role="alert" data-namespace={e.namespace} data-testid="namespace-error">
            <strong>{namespaceLabel(e.namespace)}</strong>
            <span className="banner-code">{e.code}</span>
            <span className="banner-message">{e.message}</span>
            <span className="banner-note">
              {e.namespace === CLUSTER_SCOPE ? "Showing the last known state." : "Other namespaces keep updating."}
            </span>
          </div>
        ),
      )}
      {shown.length < errors.length && (
        <button type="button" className="banner banner-more" onClick={() => setExpanded(true)}>
          {errors.length - shown.length} more namespaces failing: {errors
            .slice(shown.length)
            .map((e) => namespaceLabel(e.namespace))
            .join(", ")}
        </button>
      )}
    </div>
  );
}

/** Says plainly that the table is not live any more, and since when. */
export function StaleBanner({ status }: { status: ConnectionStatus }) {
  const now = useNow(1000);
  if (status.state !== "stale") return null;
  const retryIn = status.retryAt === null ? null : Math.max(0, Math.ceil((status.retryAt - now) / 1000));
  return (
    <div className="banner banner-warning" role="status" data-testid="stale-banner">
      <strong>Not live.</strong>
      <span className="banner-message">
        The stream has been down since {formatClock(status.since)}; the table shows the state at that time.
        {status.reason && <> The server answered {status.reason}.</>}
        {retryIn === null ? " Reconnecting…" : retryIn > 0 ? ` Retrying in ${retryIn} s.` : " Retrying…"}
      </span>
    </div>
  );
}

/** The dashboard is up but cannot reach the Kubernetes API (`/api/health` says down). */
export function ApiDownBanner({ health }: { health: ApiHealth | null }) {
  if (!health || health.kubernetesUp) return null;
  return (
    <div className="banner banner-warning" role="status" data-testid="api-down-banner">
      <strong>Kubernetes API unreachable.</strong>
      <span className="banner-message">Rows show the last state the dashboard saw.</span>
      {health.error && <span className="banner-note">{health.error}</span>}
    </div>
  );
}

/** Where dismissed notices are remembered, so a notice is shown once per browser, not on every visit. */
export const DISMISSED_NOTICES_KEY = "ingress-dash.dismissedNotices";

function readDismissed(): string[] {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(DISMISSED_NOTICES_KEY) ?? "[]");
    return Array.isArray(stored) ? stored.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}

/**
 * Notices about the installation that the server sends with each snapshot, such as "Gateway API
 * is not installed: HTTPRoutes are not shown". Information, not an error: one banner each until
 * dismissed, and a dismissed notice (by its code) stays dismissed in this browser.
 */
export function NoticeBanners({ notices }: { notices: readonly Notice[] }) {
  const [dismissed, setDismissed] = useState<string[]>(readDismissed);
  const shown = notices.filter((n) => !dismissed.includes(n.code));
  if (shown.length === 0) return null;
  const dismiss = (code: string) => {
    const next = [...new Set([...readDismissed(), code])];
    setDismissed(next);
    try {
      localStorage.setItem(DISMISSED_NOTICES_KEY, JSON.stringify(next));
    } catch {
      // Storage refused (private mode): dismissed for this page only.
    }
  };
  return (
    <div className="banners" role="region" aria-label="Notices">
      {shown.map((n) => (
        <div key={n.code} className="banner banner-info" role="status" data-testid="notice" data-code={n.code}>
          <span className="banner-message">{n.message}</span>
          <button type="button" className="link-button" onClick={() => dismiss(n.code)} aria-label={`Dismiss: ${n.message}`}>
            Dismiss
          </button>
        </div>
      ))}
    </div>
  );
}
