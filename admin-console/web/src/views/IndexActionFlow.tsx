// Running an index action on one index or a selection, shared by the index list and an
// index's page: the confirmation it needs (a typed one for deletes), the call, and the
// per-index results shown to the user.
import { useState, type ReactNode } from "react";
import type { ActionAnswer, ActionResult } from "../api/wire";
import { indicesApi } from "../api/indices";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { deleteConfirmation, summarise, type ActionInfo } from "./indexForms";

interface Pending {
  info: ActionInfo;
  indices: string[];
}

export interface ActionFlow {
  /** Asks for the confirmation the action needs, then runs it. */
  ask: (info: ActionInfo, indices: string[]) => void;
  /** The dialog (or nothing), to render. */
  dialog: ReactNode;
  /** The last answer, for [`ActionResults`]. */
  answer: ActionAnswer | null;
  clear: () => void;
}

/** `onChanged` runs after every answer (reload what the action changed). */
export function useIndexActionFlow(clusterId: string, onChanged: (answer: ActionAnswer) => void): ActionFlow {
  const [pending, setPending] = useState<Pending | null>(null);
  const [segments, setSegments] = useState("1");
  const [answer, setAnswer] = useState<ActionAnswer | null>(null);

  const execute = async ({ info, indices }: Pending) => {
    let result: ActionAnswer;
    if (info.action === "delete" && indices.length === 1) {
      // One index: the single delete, confirmed by its name.
      const index = indices[0];
      const deleted = await indicesApi.remove(clusterId, index, index);
      result = { action: "delete", results: [{ index, ok: deleted.acknowledged, message: deleted.acknowledged ? null : "The cluster did not acknowledge the delete in time." }] };
    } else {
      const body: Parameters<typeof indicesApi.run>[2] = { indices };
      if (info.action === "forcemerge" && segments.trim() !== "") {
        const n = Number(segments);
        if (!Number.isInteger(n) || n < 1 || n > 1024) throw new Error("Max segments must be a whole number between 1 and 1024.");
        body.maxNumSegments = n;
      }
      if (info.action === "delete") body.confirm = deleteConfirmation(indices.length);
      result = await indicesApi.run(clusterId, info.action, body);
    }
    setAnswer(result);
    setPending(null);
    onChanged(result);
  };

  const ask = (info: ActionInfo, indices: string[]) => {
    if (indices.length === 0) return;
    if (info.confirm) {
      setSegments("1");
      setPending({ info, indices });
    } else {
      void execute({ info, indices }).catch((e: Error) =>
        setAnswer({ action: info.action, results: indices.map((index) => ({ index, ok: false, message: e.message })) }),
      );
    }
  };

  let dialog: ReactNode = null;
  if (pending) {
    const { info, indices } = pending;
    const many = indices.length > 1;
    const what = many ? `${indices.length} indices` : indices[0];
    const typed = info.action === "delete" ? (many ? deleteConfirmation(indices.length) : indices[0]) : undefined;
    dialog = (
      <ConfirmDialog
        title={`${info.label} ${what}?`}
        typed={typed}
        danger={info.action === "delete" || info.action === "close" || info.action === "block_write"}
        confirmLabel={info.label}
        onCancel={() => setPending(null)}
        onConfirm={() => execute(pending)}
        testId="index-action-dialog"
      >
        <p>
          {info.label} {many ? "these indices" : <code className="mono">{indices[0]}</code>}: {info.hint}.
        </p>
        {many && (
          <ul className="dialog-list mono" data-testid="dialog-indices">
            {indices.slice(0, 20).map((i) => (
              <li key={i}>{i}</li>
            ))}
            {indices.length > 20 && <li className="muted">and {indices.length - 20} more</li>}
          </ul>
        )}
        {info.action === "forcemerge" && (
          <label className="field">
            Max segments per shard
            <input type="number" min={1} max={1024} value={segments} onChange={(e) => setSegments(e.target.value)} data-testid="max-segments" />
          </label>
        )}
      </ConfirmDialog>
    );
  }
  return { ask, dialog, answer, clear: () => setAnswer(null) };
}

/** The per-index results of the last action. */
export function ActionResults({ answer, onClose }: { answer: ActionAnswer; onClose: () => void }) {
  const failed = answer.results.filter((r) => !r.ok);
  return (
    <div className={`results ${failed.length ? "results-failed" : "results-ok"}`} role="status" data-testid="action-results">
      <div className="results-head">
        <strong data-testid="action-summary">{summarise(answer)}</strong>
        <button type="button" className="btn btn-small" onClick={onClose} aria-label="Dismiss the results">
          Dismiss
        </button>
      </div>
      <ul className="results-list">
        {answer.results.map((r: ActionResult) => (
          <li key={r.index} data-testid="action-result" data-index={r.index} data-ok={r.ok}>
            <span className={`result-mark ${r.ok ? "ok" : "failed"}`} aria-hidden>
              {r.ok ? "✓" : "✗"}
            </span>
            <span className="mono">{r.index}</span>
            {r.message && <span className="result-message">{r.message}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
