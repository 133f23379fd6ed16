// A small confirmation dialog for the templates, tasks and settings views: it says what will
// happen, optionally makes the user type a name first, runs the action, and keeps the dialog
// open with the server's message when the action is refused.
import { useEffect, useId, useRef, useState, type ReactNode } from "react";

export interface ConfirmProps {
  title: string;
  children?: ReactNode;
  /** The exact text to type before the confirm button is enabled (a name to delete). */
  typed?: string;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
  testId: string;
}

export function Confirm({ title, children, typed, confirmLabel, danger, onConfirm, onClose, testId }: ConfirmProps) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const titleId = useId();
  const first = useRef<HTMLInputElement & HTMLButtonElement>(null);
  const ready = typed === undefined || text === typed;

  useEffect(() => first.current?.focus(), []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && !busy) {
        e.preventDefault();
        onClose();
      }
    };
    document.addEventListener("keydown", onKey, true);
    return () => document.removeEventListener("keydown", onKey, true);
  }, [busy, onClose]);

  const run = async () => {
    if (!ready || busy) return;
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };

  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && !busy && onClose()}>
      <div className="ops-dialog" role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid={testId}>
        <h3 id={titleId}>{title}</h3>
        {children}
        {typed !== undefined && (
          <label className="ops-field">
            <span>
              Type <code className="mono">{typed}</code> to confirm
            </span>
            <input
              ref={first}
              className="mono"
              value={text}
              onChange={(e) => setText(e.target.value)}
              onKeyDown={(e) => e.key === "Enter" && void run()}
              autoComplete="off"
              spellCheck={false}
              data-testid={`${testId}-typed`}
            />
          </label>
        )}
        {error && (
          <div className="banner banner-error" role="alert" data-testid={`${testId}-error`}>
            {error}
          </div>
        )}
        <div className="ops-dialog-actions">
          <button type="button" className="btn" onClick={onClose} disabled={busy}>
            {error ? "Close" : "Cancel"}
          </button>
          <button
            ref={typed === undefined ? first : undefined}
            type="button"
            className={`btn ${danger ? "btn-danger" : "btn-primary"}`}
            disabled={!ready || busy}
            onClick={() => void run()}
            data-testid={`${testId}-confirm`}
          >
            {busy ? "Working…" : confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
