import { useState } from "react";
import type { ConnectionStatus } from "../api/stream";
import type { NamespaceError } from "../api/wire";
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
