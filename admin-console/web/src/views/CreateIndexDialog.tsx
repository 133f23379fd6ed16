// Creating an index: name, shards, replicas, settings and mappings JSON, checked as the user
// types (the server checks again); the cluster's refusal is shown in the dialog.
import { useEffect, useId, useState } from "react";
import type { Created } from "../api/wire";
import { indicesApi } from "../api/indices";
import { JsonEditor } from "../components/JsonEditor";
import { buildCreateIndex, EMPTY_CREATE_FORM, type CreateForm } from "./indexForms";

export function CreateIndexDialog({
  clusterId,
  opensearch,
  onCreated,
  onCancel,
}: {
  clusterId: string;
  opensearch: boolean;
  onCreated: (created: Created) => void;
  onCancel: () => void;
}) {
  const [form, setForm] = useState<CreateForm>(EMPTY_CREATE_FORM);
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const titleId = useId();
  const checked = buildCreateIndex(form, opensearch);
  const set = (patch: Partial<CreateForm>) => {
    setTouched(true);
    setForm((f) => ({ ...f, ...patch }));
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && !busy && onCancel();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [busy, onCancel]);

  const submit = async () => {
    setTouched(true);
    if (!checked.ok || busy) return;
    setBusy(true);
    setError(null);
    try {
      onCreated(await indicesApi.create(clusterId, checked.value));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && !busy && onCancel()}>
      <form
        className="dialog dialog-wide"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid="create-index-dialog"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <h2 id={titleId} className="dialog-title">
          Create index
        </h2>
        <div className="form-grid">
          <label className="field field-wide">
            Name
            <input
              className="mono"
              value={form.name}
              autoFocus
              onChange={(e) => set({ name: e.target.value })}
              placeholder="logs-2026.11"
              data-testid="create-name"
              autoComplete="off"
              spellCheck={false}
            />
          </label>
          <label className="field">
            Shards
            <input type="number" min={1} max={1024} value={form.shards} onChange={(e) => set({ shards: e.target.value })} data-testid="create-shards" />
          </label>
          <label className="field">
            Replicas
            <input type="number" min={0} max={1024} value={form.replicas} onChange={(e) => set({ replicas: e.target.value })} data-testid="create-replicas" />
          </label>
        </div>
        <JsonEditor
          label="Settings"
          value={form.settings}
          onChange={(settings) => set({ settings })}
          placeholder={'{"index": {"refresh_interval": "5s"}}'}
          rows={4}
          testId="create-settings"
        />
        <JsonEditor
          label="Mappings"
          value={form.mappings}
          onChange={(mappings) => set({ mappings })}
          placeholder={'{"properties": {"message": {"type": "text"}}}'}
          rows={6}
          testId="create-mappings"
        />
        {touched && !checked.ok && (
          <ul className="form-errors" role="alert" data-testid="create-errors">
            {checked.errors.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
        )}
        {error && (
          <div className="banner banner-error dialog-error" role="alert" data-testid="create-error">
            {error}
          </div>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy || !checked.ok} data-testid="create-submit">
            {busy ? "Creating…" : "Create"}
          </button>
        </div>
      </form>
    </div>
  );
}
