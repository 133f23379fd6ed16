// The reason a production cluster asks before a change: the field of the confirmation dialogs
// and the console, the "production" badge, and the prompt the app shell mounts for the other
// changes (lib/changeReason.ts).
import { useEffect, useId, useRef, useState } from "react";
import { MAX_REASON_CHARS, reasonProblem, setReasonPrompter } from "../lib/changeReason";
import "../styles/dialog.css";

export function ProductionBadge() {
  return (
    <span className="production-badge" title="Changes to this cluster ask for a reason, written to the audit log" data-testid="production-badge">
      production
    </span>
  );
}

interface FieldProps {
  value: string;
  onChange: (value: string) => void;
  /** Show the problem only once the user has typed or tried to confirm. */
  touched: boolean;
  onEnter?: () => void;
  autoFocus?: boolean;
}

/** "Reason for this change", checked as typed. */
export function ReasonField({ value, onChange, touched, onEnter, autoFocus }: FieldProps) {
  const problem = reasonProblem(value);
  const hintId = useId();
  return (
    <label className="dialog-typed change-reason">
      <span>
        Reason for this change <span className="muted">(production cluster; written to the audit log)</span>
      </span>
      <input
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => e.key === "Enter" && onEnter?.()}
        maxLength={MAX_REASON_CHARS * 2}
        placeholder="e.g. INC-1234: free disk on the hot nodes"
        aria-invalid={touched && problem !== null}
        aria-describedby={hintId}
        data-testid="change-reason"
        autoComplete="off"
        autoFocus={autoFocus}
      />
      <span id={hintId} className={touched && problem ? "field-error" : "muted"} data-testid="change-reason-hint">
        {touched && problem ? problem : `1 to ${MAX_REASON_CHARS} characters.`}
      </span>
    </label>
  );
}

interface Asked {
  message: string;
  answer: (reason: string | null) => void;
}

/** Asks for a reason when the server refused a change for want of one (mounted once). */
export function ReasonPromptHost() {
  const [asked, setAsked] = useState<Asked | null>(null);
  const [text, setText] = useState("");
  const [touched, setTouched] = useState(false);
  const titleId = useId();
  const askedRef = useRef<Asked | null>(null);
  askedRef.current = asked;

  useEffect(() => {
    setReasonPrompter(
      (message) =>
        new Promise((resolve) => {
          askedRef.current?.answer(null);
          setText("");
          setTouched(false);
          setAsked({
            message,
            answer: (reason) => {
              setAsked(null);
              resolve(reason);
            },
          });
        }),
    );
    return () => setReasonPrompter(null);
  }, []);

  useEffect(() => {
    if (!asked) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && asked.answer(null);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [asked]);

  if (!asked) return null;
  const send = () => {
    setTouched(true);
    if (reasonProblem(text) === null) asked.answer(text.trim());
  };
  return (
    <div className="modal-backdrop">
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid="reason-prompt">
        <h2 id={titleId} className="dialog-title">
          Why this change?
        </h2>
        <div className="dialog-body">
          <p>{asked.message}</p>
        </div>
        <ReasonField value={text} onChange={(v) => (setText(v), setTouched(true))} touched={touched} onEnter={send} autoFocus />
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={() => asked.answer(null)}>
            Cancel
          </button>
          <button type="button" className="btn btn-primary" onClick={send} data-testid="reason-send">
            Send with this reason
          </button>
        </div>
      </div>
    </div>
  );
}
