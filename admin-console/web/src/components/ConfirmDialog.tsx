// A confirmation dialog for destructive actions, reusable by any view: it names what will
// happen, and when `typed` is given the confirm button stays disabled until the user has typed
// that exact text (an index name, "delete 3 indices", a snapshot name). Escape or Cancel closes
// it; the busy state and the error of the confirmed call are shown inside. On a production
// cluster (lib/changeReason.ts) it also asks why, and the action's changes carry that reason.
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { reasonProblem, runWithReason, useProduction } from "../lib/changeReason";
import { ReasonField } from "./ChangeReason";
import "../styles/dialog.css";

export interface ConfirmDialogProps {
  title: string;
  /** What will happen, in words. */
  children?: ReactNode;
  /** The exact text the user must type to enable the confirm button. */
  typed?: string;
  confirmLabel: string;
  /** Red confirm button (deletes, anything that loses data). */
  danger?: boolean;
  /** Runs the action; a rejection's message is shown in the dialog and the dialog stays open. */
  onConfirm: () => Promise<void> | void;
  onCancel: () => void;
  testId?: string;
}

export function ConfirmDialog({ title, children, typed, confirmLabel, danger, onConfirm, onCancel, testId }: ConfirmDialogProps) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const production = useProduction();
  const [reason, setReason] = useState("");
  const [reasonTouched, setReasonTouched] = useState(false);
  const reasonOk = !production || reasonProblem(reason) === null;
  const matches = typed === undefined || text === typed;

  useEffect(() => {
    // The reason field takes the focus itself (autoFocus) when there is no text to type.
    (typed !== undefined ? inputRef.current : production ? null : confirmRef.current)?.focus();
  }, [typed, production]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && !busy) onCancel();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [busy, onCancel]);

  const confirm = async () => {
    setReasonTouched(true);
    if (!matches || !reasonOk || busy) return;
    setBusy(true);
    setError(null);
    try {
      await runWithReason(production ? reason.trim() : null, onConfirm);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && !busy && onCancel()}>
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid={testId ?? "confirm-dialog"}>
        <h2 id={titleId} className="dialog-title">
          {title}
        </h2>
        <div className="dialog-body">{children}</div>
        {typed !== undefined && (
          <label className="dialog-typed">
            Type <code className="mono">{typed}</code> to confirm
            <input
              ref={inputRef}
              className="mono"
              value={text}
              onChange={(e) => setText(e.target.value)}
              onKeyDown={(e) => e.key === "Enter" && void confirm()}
              aria-label={`Type ${typed} to confirm`}
              data-testid="confirm-typed"
              autoComplete="off"
              spellCheck={false}
            />
          </label>
        )}
        {production && (
          <ReasonField
            value={reason}
            onChange={(value) => (setReason(value), setReasonTouched(true))}
            touched={reasonTouched}
            onEnter={() => void confirm()}
            autoFocus={typed === undefined}
          />
        )}
        {error && (
          <div className="banner banner-error dialog-error" role="alert" data-testid="confirm-error">
            {error}
          </div>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
          <button
            ref={confirmRef}
            type="button"
            className={`btn ${danger ? "btn-danger" : "btn-primary"}`}
            disabled={!matches || !reasonOk || busy}
            onClick={() => void confirm()}
            data-testid="confirm-button"
          >
            {busy ? "Working…" : confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
