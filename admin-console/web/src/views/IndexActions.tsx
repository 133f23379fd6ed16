// Per-index operations in the index list: close (asks for a second click) and open, through
// the typed route (`POST /indices/_actions/{close|open}`, operator), and a menu with the other
// actions (refresh, flush, force merge, clear cache, write block, delete). Each action below
// the caller's role is disabled and says why; a call the server refuses anyway shows the
// server's message. Confirmations go through the parent (`onAsk`).
import { useEffect, useRef, useState } from "react";
import type { IndexAction as ActionName } from "../api/wire";
import { indicesApi } from "../api/indices";
import { ACTION_ROLES } from "../lib/access";
import { useClusterAccess } from "../lib/whoami";
import { INDEX_ACTIONS, type ActionInfo } from "./indexForms";

interface Props {
  clusterId: string;
  index: string;
  closed: boolean;
  onDone: (message: string) => void;
  onError: (message: string) => void;
  /** Runs (after any confirmation the parent asks for) an action from the menu. */
  onAsk?: (action: ActionInfo, indices: string[]) => void;
}

/** How long a first click on Close waits for the confirming one. */
const CONFIRM_MS = 4000;

/** Runs one action on one index; a per-index failure becomes an error with its message. */
export async function runOnOne(clusterId: string, action: ActionName, index: string, maxNumSegments?: number): Promise<void> {
  const answer = await indicesApi.run(clusterId, action, maxNumSegments === undefined ? { indices: [index] } : { indices: [index], maxNumSegments });
  const result = answer.results.find((r) => r.index === index);
  if (!result?.ok) throw new Error(result?.message ?? "the cluster gave no result for this index");
}

export function IndexAction({ clusterId, index, closed, onDone, onError, onAsk }: Props) {
  const access = useClusterAccess(clusterId);
  const denied = access.denied(closed ? ACTION_ROLES.openIndex : ACTION_ROLES.closeIndex);
  const [armed, setArmed] = useState(false);
  const [busy, setBusy] = useState(false);
  const [menu, setMenu] = useState(false);
  const menuRef = useRef<HTMLSpanElement>(null);

  useEffect(() => {
    if (!armed) return;
    const timer = window.setTimeout(() => setArmed(false), CONFIRM_MS);
    return () => window.clearTimeout(timer);
  }, [armed]);

  useEffect(() => {
    if (!menu) return;
    const away = (e: MouseEvent) => {
      if (!menuRef.current?.contains(e.target as Node)) setMenu(false);
    };
    document.addEventListener("mousedown", away);
    return () => document.removeEventListener("mousedown", away);
  }, [menu]);

  const run = async () => {
    if (!closed && !armed) {
      setArmed(true);
      return;
    }
    setArmed(false);
    setBusy(true);
    try {
      await runOnOne(clusterId, closed ? "open" : "close", index);
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
  const others = INDEX_ACTIONS.filter((a) => a.action !== "open" && a.action !== "close");
  return (
    <span className="index-row-actions">
      {/* Disabled buttons show no tooltip in every browser: the wrapper carries it too. */}
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
      {onAsk && (
        <span className="menu-anchor" ref={menuRef}>
          <button
            type="button"
            className="btn btn-small btn-icon"
            aria-label={`More actions on ${index}`}
            aria-haspopup="menu"
            aria-expanded={menu}
            data-testid="index-menu"
            data-index={index}
            onClick={() => setMenu((m) => !m)}
          >
            ⋯
          </button>
          {menu && (
            <div className="menu index-menu" role="menu">
              {others.map((a) => {
                const why = access.denied(a.role);
                return (
                  <button
                    key={a.action}
                    type="button"
                    role="menuitem"
                    className={`menu-item ${a.action === "delete" ? "danger" : ""}`}
                    disabled={why !== null}
                    title={why ?? `${a.label}: ${a.hint}`}
                    data-testid={`index-menu-${a.action}`}
                    onClick={() => {
                      setMenu(false);
                      onAsk(a, [index]);
                    }}
                  >
                    {a.label}
                    <small className="muted">{why ?? a.hint}</small>
                  </button>
                );
              })}
            </div>
          )}
        </span>
      )}
    </span>
  );
}
