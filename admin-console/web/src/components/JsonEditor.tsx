// A JSON text area with validation as you type, reusable by any form that takes a JSON object
// (settings, mappings, a filter, a template body): the parse error is shown under the field
// with its position, and `parseJsonObject` gives the same verdict to the form before sending.
import { useId } from "react";
import { parseJsonObject } from "../lib/json";
import "../styles/dialog.css";

export interface JsonEditorProps {
  label: string;
  value: string;
  onChange: (text: string) => void;
  /** Shown when the field is empty (empty means "none"). */
  placeholder?: string;
  rows?: number;
  testId?: string;
  disabled?: boolean;
}

export function JsonEditor({ label, value, onChange, placeholder, rows = 6, testId, disabled }: JsonEditorProps) {
  const id = useId();
  const verdict = parseJsonObject(value, label);
  const error = verdict.ok ? null : verdict.error;
  return (
    <div className="json-editor">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        className={`mono ${error ? "invalid" : ""}`}
        rows={rows}
        value={value}
        placeholder={placeholder}
        spellCheck={false}
        disabled={disabled}
        aria-invalid={error !== null}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onChange(e.target.value)}
        data-testid={testId}
      />
      {error && (
        <div id={`${id}-error`} className="field-error" role="alert" data-testid={testId ? `${testId}-error` : undefined}>
          {error}
        </div>
      )}
    </div>
  );
}
