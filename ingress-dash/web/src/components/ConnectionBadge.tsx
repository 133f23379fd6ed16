import type { ConnectionStatus } from "../api/stream";
import { formatClock } from "../state/describe";

const LABELS: Record<ConnectionStatus["state"], string> = {
  connecting: "Connecting",
  live: "Live",
  reconnecting: "Reconnecting",
  stale: "Stale",
};

/** Live / reconnecting / stale since HH:MM, always visible in the header. */
export function ConnectionBadge({ status }: { status: ConnectionStatus }) {
  let text = LABELS[status.state];
  let title = "Waiting for the stream to open";
  switch (status.state) {
    case "live":
      title = `Streaming changes since ${formatClock(status.since)}`;
      break;
    case "reconnecting":
      text = "Reconnecting…";
      title = `Stream lost at ${formatClock(status.since)}; the browser is reconnecting and will resume where it left off`;
      break;
    case "stale":
      text = `Stale since ${formatClock(status.since)}`;
      title = "The table shows the last known state; reconnecting in the background";
      break;
  }
  return (
    <span className={`connection connection-${status.state}`} role="status" aria-live="polite" title={title} data-testid="connection">
      <span className="connection-dot" aria-hidden="true" />
      {text}
    </span>
  );
}
