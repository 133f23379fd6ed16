// A destructive action confirmed by typing the exact name of what it destroys. The dialog stays
// open on failure and shows the server's message.
import { useEffect, useRef, useState, type ReactNode } from "react";

interface Props {
  title: string;
  /** What must be typed (a repository or snapshot name). */
  name: string;
  children?: ReactNode;
  action: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

export function TypedConfirm({ title, name, children, action, onConfirm, onClose }: Props) {
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    input.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);

  const matches = typed === name;
  const run = async () => {
    if (!matches || busy) return;
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
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <form
        className="snap-dialog"
        role="dialog"
        aria-modal="true"
        aria-label={title}
        data-testid="typed-confirm"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <h3>{title}</h3>
        {children}
        <label className="snap-field">
          <span>
            Type <code>{name}</code> to confirm
          </span>
          <input
            ref={input}
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            aria-label="Confirmation"
            data-testid="confirm-input"
            autoComplete="off"
            spellCheck={false}
          />
        </label>
        {error && (
          <div className="banner banner-error action-error" role="alert" data-testid="confirm-error">
            {error}
          </div>
        )}
        <div className="snap-dialog-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-danger" disabled={!matches || busy} data-testid="confirm-action">
            {busy ? "Working…" : action}
          </button>
        </div>
      </form>
    </div>
  );
}
