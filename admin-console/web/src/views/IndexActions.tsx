// Per-index operations in the index list: close (asks for a second click) and open, through
// the relay. Both need the operator role; below it the button is disabled and says why, and a
// call the server refuses anyway shows the server's message.
import { useEffect, useState } from "react";
import { api } from "../api/client";
import { ACTION_ROLES } from "../lib/access";
import { useClusterAccess } from "../lib/whoami";

interface Props {
  clusterId: string;
  index: string;
  closed: boolean;
  onDone: (message: string) => void;
  onError: (message: string) => void;
}

/** How long a first click on Close waits for the confirming one. */
const CONFIRM_MS = 4000;

export function IndexAction({ clusterId, index, closed, onDone, onError }: Props) {
  const denied = useClusterAccess(clusterId).denied(closed ? ACTION_ROLES.openIndex : ACTION_ROLES.closeIndex);
  const [armed, setArmed] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!armed) return;
    const timer = window.setTimeout(() => setArmed(false), CONFIRM_MS);
    return () => window.clearTimeout(timer);
  }, [armed]);

  const run = async () => {
    if (!closed && !armed) {
      setArmed(true);
      return;
    }
    setArmed(false);
    setBusy(true);
    try {
      await (closed ? api.openIndex(clusterId, index) : api.closeIndex(clusterId, index));
      onDone(`Index ${index} ${closed ? "opened" : "closed"}.`);
    } catch (e) {
      onError(`Could not ${closed ? "open" : "close"} ${index}: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  const verb = closed ? "Open" : "Close";
  const title =
    denied ??
    (closed
      ? `Open ${index}`
      : armed
        ? `Click again to close ${index}`
        : `Close ${index}: it serves no searches or writes until opened again`);
  return (
    // Disabled buttons show no tooltip in every browser: the wrapper carries it too.
    <span className="denied-wrap" title={denied ?? undefined}>
      <button
        type="button"
        className={`btn btn-small ${armed ? "btn-danger" : ""}`}
        disabled={busy || denied !== null}
        title={title}
        aria-label={`${verb} index ${index}`}
        data-testid={closed ? "open-index" : "close-index"}
        data-index={index}
        data-denied={denied ?? undefined}
        onClick={() => void run()}
        onBlur={() => setArmed(false)}
      >
        {busy ? `${verb === "Open" ? "Opening" : "Closing"}…` : armed ? "Confirm close" : verb}
      </button>
    </span>
  );
}
