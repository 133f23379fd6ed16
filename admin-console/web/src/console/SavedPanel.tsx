// The console's Saved tab: save the editor's text on the server under a name and tags, for this
// cluster or all, private or shared with one of the caller's groups; search, load (asking before
// unsaved text is replaced), edit, delete, export and import (docs/admin-console.md).
import { useCallback, useEffect, useRef, useState } from "react";
import {
  VersionConflict,
  createSavedQuery,
  deleteSavedQuery,
  exportSavedQueries,
  importSavedQueries,
  listSavedQueries,
  updateSavedQuery,
  type SavedQuery,
} from "../api/savedQueries";
import { useWhoAmI } from "../lib/whoami";
import { formatLocalTime } from "../lib/format";
import { draftFrom, formOf, hasUnsavedText, importSummary, visibilityChoices, type SaveForm } from "./saved";

/** The text last loaded or saved per cluster: replacing it loses nothing. */
const baselines = new Map<string, string>();

const EMPTY_FORM: SaveForm = { name: "", tags: "", visibility: "private", thisClusterOnly: true };

interface Props {
  clusterId: string;
  text: string;
  defaultText: string;
  /** Replaces the editor's text (and shows the editor). */
  replaceText: (text: string) => void;
}

export function SavedPanel({ clusterId, text, defaultText, replaceText }: Props) {
  const whoami = useWhoAmI();
  const [queries, setQueries] = useState<SavedQuery[]>([]);
  const [search, setSearch] = useState("");
  const [form, setForm] = useState<SaveForm>(EMPTY_FORM);
  const [editing, setEditing] = useState<SavedQuery | null>(null);
  const [conflict, setConflict] = useState<SavedQuery | null>(null);
  const [message, setMessage] = useState<{ kind: "ok" | "error"; text: string } | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  const refresh = useCallback(
    async (signal?: AbortSignal) => {
      try {
        setQueries(await listSavedQueries(clusterId, search, signal));
      } catch (e) {
        if ((e as Error).name !== "AbortError") setMessage({ kind: "error", text: (e as Error).message });
      }
    },
    [clusterId, search],
  );

  useEffect(() => {
    const controller = new AbortController();
    const timer = window.setTimeout(() => void refresh(controller.signal), 200);
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, [refresh]);

  const save = async (overVersion?: number) => {
    const built = draftFrom(form, text, clusterId);
    if ("problem" in built) {
      setMessage({ kind: "error", text: built.problem });
      return;
    }
    try {
      const stored = editing
        ? await updateSavedQuery(editing.id, overVersion ?? editing.version, built.draft)
        : await createSavedQuery(built.draft);
      baselines.set(clusterId, stored.text);
      setEditing(null);
      setConflict(null);
      setForm(EMPTY_FORM);
      setMessage({ kind: "ok", text: `Saved "${stored.name}"` });
      await refresh();
    } catch (e) {
      if (e instanceof VersionConflict) {
        setConflict(e.current);
        setMessage({ kind: "error", text: e.message });
      } else {
        setMessage({ kind: "error", text: (e as Error).message });
      }
    }
  };

  const load = (query: SavedQuery) => {
    if (
      hasUnsavedText(text, baselines.get(clusterId) ?? null, defaultText) &&
      !window.confirm("The editor has text you have not saved. Replace it with this query?")
    ) {
      return;
    }
    baselines.set(clusterId, query.text);
    replaceText(query.text);
  };

  const startEdit = (query: SavedQuery) => {
    setEditing(query);
    setConflict(null);
    setForm(formOf(query));
    setMessage({ kind: "ok", text: `Editing "${query.name}": Save stores the editor's text under it.` });
  };

  const remove = async (query: SavedQuery) => {
    if (!window.confirm(`Delete the saved query "${query.name}"?`)) return;
    try {
      await deleteSavedQuery(query.id, query.version);
      setMessage({ kind: "ok", text: `Deleted "${query.name}"` });
    } catch (e) {
      setMessage({ kind: "error", text: (e as Error).message });
    }
    await refresh();
  };

  const download = async () => {
    try {
      const document_ = await exportSavedQueries(clusterId);
      const url = URL.createObjectURL(new Blob([JSON.stringify(document_, null, 2)], { type: "application/json" }));
      const link = document.createElement("a");
      link.href = url;
      link.download = `saved-queries-${clusterId}.json`;
      document.body.appendChild(link);
      link.click();
      link.remove();
      window.setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (e) {
      setMessage({ kind: "error", text: (e as Error).message });
    }
  };

  const upload = async (file: File) => {
    try {
      const parsed: unknown = JSON.parse(await file.text());
      const report = await importSavedQueries(parsed);
      setMessage({ kind: "ok", text: `Import: ${importSummary(report)}` });
      await refresh();
    } catch (e) {
      setMessage({ kind: "error", text: e instanceof SyntaxError ? "The file is not JSON." : (e as Error).message });
    }
  };

  const choices = visibilityChoices(whoami?.groups ?? []);
  if (!choices.includes(form.visibility)) choices.push(form.visibility);

  return (
    <div className="history saved" data-testid="saved">
      <form
        className="saved-form"
        data-testid="saved-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <input
          aria-label="Name"
          placeholder="Name"
          data-testid="saved-name"
          value={form.name}
          onChange={(e) => setForm({ ...form, name: e.target.value })}
        />
        <input
          aria-label="Tags"
          placeholder="tags, comma separated"
          data-testid="saved-tags"
          value={form.tags}
          onChange={(e) => setForm({ ...form, tags: e.target.value })}
        />
        <select
          aria-label="Visibility"
          data-testid="saved-visibility"
          value={form.visibility}
          onChange={(e) => setForm({ ...form, visibility: e.target.value as SaveForm["visibility"] })}
        >
          {choices.map((v) => (
            <option key={v} value={v}>
              {v === "private" ? "Only me" : `Shared with ${v.slice("group:".length)}`}
            </option>
          ))}
        </select>
        <label className="muted">
          <input
            type="checkbox"
            data-testid="saved-this-cluster"
            checked={form.thisClusterOnly}
            onChange={(e) => setForm({ ...form, thisClusterOnly: e.target.checked })}
          />{" "}
          {clusterId} only
        </label>
        <button className="btn btn-primary btn-small" type="submit" data-testid="saved-save">
          {editing ? "Save changes" : "Save editor text"}
        </button>
        {editing && (
          <button
            className="btn btn-ghost btn-small"
            type="button"
            onClick={() => {
              setEditing(null);
              setConflict(null);
              setForm(EMPTY_FORM);
            }}
          >
            Cancel
          </button>
        )}
      </form>
      {message && (
        <div className={`hint ${message.kind === "ok" ? "" : "hint-error"}`} role="status" data-testid="saved-message">
          {message.text}
        </div>
      )}
      {conflict && editing && (
        <div className="hint hint-warn" role="alert" data-testid="saved-conflict">
          {conflict.owner}'s version {conflict.version} of "{conflict.name}" was saved on {formatLocalTime(Date.parse(conflict.updated_at))}.{" "}
          <button className="btn btn-ghost btn-small" data-testid="saved-load-theirs" onClick={() => load(conflict)}>
            Load theirs
          </button>
          <button className="btn btn-ghost btn-small" data-testid="saved-overwrite" onClick={() => void save(conflict.version)}>
            Save mine over it
          </button>
        </div>
      )}
      <div className="history-toolbar">
        <input
          type="search"
          aria-label="Search saved queries"
          placeholder="Search name, tag or text"
          data-testid="saved-search"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <span className="spacer" />
        <button className="btn btn-ghost btn-small" onClick={() => void download()} data-testid="saved-export">
          Export
        </button>
        <button className="btn btn-ghost btn-small" onClick={() => fileInput.current?.click()} data-testid="saved-import">
          Import
        </button>
      </div>
      <ul className="history-list" data-testid="saved-list">
        {queries.length === 0 && <li className="muted">No saved queries{search ? " match" : " yet"}.</li>}
        {queries.map((query) => (
          <li key={query.id} className="saved-entry" data-testid="saved-entry" data-name={query.name}>
            <button className="history-entry" title="Load into the editor" onClick={() => load(query)}>
              <span className="history-path">
                {query.name}
                {query.tags.map((tag) => (
                  <span key={tag} className="saved-tag muted">
                    #{tag}
                  </span>
                ))}
              </span>
              <span className="history-body muted">{query.text.replace(/\s+/g, " ").slice(0, 80)}</span>
              <span className="history-meta muted">
                {query.visibility === "private" ? "only me" : query.visibility.slice("group:".length)} ·{" "}
                {query.cluster} · {query.owner}
              </span>
            </button>
            <button className="btn btn-ghost btn-small" data-testid="saved-edit" onClick={() => startEdit(query)}>
              Edit
            </button>
            <button className="btn btn-ghost btn-small" data-testid="saved-delete" onClick={() => void remove(query)}>
              Delete
            </button>
          </li>
        ))}
      </ul>
      <input
        ref={fileInput}
        type="file"
        accept="application/json,.json"
        hidden
        data-testid="saved-import-file"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = "";
          if (file) void upload(file);
        }}
      />
    </div>
  );
}
