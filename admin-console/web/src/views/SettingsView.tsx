// Cluster settings: the persistent and transient settings as flat keys, with the
// defaults on request (marked, and crossed out where a set value hides them), a key filter, and
// editing one setting (admin): a JSON scalar, a list, or plain text; null resets it.
import { useMemo, useRef, useState } from "react";
import { settingsApi } from "../api/settings";
import type { SettingScope } from "../api/wire";
import { useAsync } from "../lib/useAsync";
import { useTitle } from "../lib/router";
import { ACTION_ROLES } from "../lib/access";
import { useClusterAccess } from "../lib/whoami";
import { EmptyState, ErrorState, Loading } from "../components/common";
import { ALLOCATION_KEY, editText, filterSettings, formatSetting, parseSettingValue, settingRows } from "../manage/settings";
import { useVirtualRows } from "../components/useVirtualRows";
import { SpacerRow } from "../components/SpacerRow";
import "../styles/cluster-ops.css";

const ROW_HEIGHT = 34;

interface Draft {
  key: string;
  scope: SettingScope;
  text: string;
  /** True when the key was picked from the list (not typed). */
  picked: boolean;
}

export function SettingsView({ clusterId }: { clusterId: string }) {
  useTitle(`${clusterId} · Cluster settings`);
  const [withDefaults, setWithDefaults] = useState(false);
  const [filter, setFilter] = useState("");
  const [draft, setDraft] = useState<Draft | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const loaded = useAsync((signal) => settingsApi.get(clusterId, withDefaults, signal), [clusterId, withDefaults]);
  const denied = useClusterAccess(clusterId).denied(ACTION_ROLES.editClusterSetting);
  const all = useMemo(() => (loaded.data ? settingRows(loaded.data) : []), [loaded.data]);
  const rows = useMemo(() => filterSettings(all, filter), [all, filter]);
  const scroller = useRef<HTMLDivElement>(null);
  const range = useVirtualRows(scroller, rows.length, ROW_HEIGHT);
  const parsed = draft ? parseSettingValue(draft.text) : null;

  const save = async (reset: boolean) => {
    if (!draft || busy) return;
    const value = reset ? null : parsed?.ok ? parsed.value : undefined;
    if (value === undefined) return;
    setBusy(true);
    setError(null);
    try {
      await settingsApi.put(clusterId, draft.scope, draft.key.trim(), value);
      setNotice(value === null ? `${draft.key} (${draft.scope}) reset to its default.` : `${draft.key} (${draft.scope}) set to ${formatSetting(value)}.`);
      setDraft(null);
      loaded.reload();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="view" data-testid="settings-view">
      <div className="toolbar">
        <input
          className="filter mono"
          placeholder="Filter by key or value, e.g. allocation"
          aria-label="Filter settings"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          data-testid="settings-filter"
        />
        <label className="ops-check">
          <input type="checkbox" checked={withDefaults} onChange={(e) => setWithDefaults(e.target.checked)} data-testid="settings-defaults" />
          Show defaults
        </label>
        <span className="spacer" />
        <span className="muted" data-testid="settings-count">
          {loaded.data ? `${rows.length} of ${all.length}` : ""}
        </span>
        <span title={denied ?? undefined}>
          <button
            className="btn btn-primary btn-small"
            disabled={denied !== null}
            data-denied={denied ?? undefined}
            onClick={() => {
              setError(null);
              setDraft({ key: "", scope: "persistent", text: "", picked: false });
            }}
            data-testid="setting-add"
          >
            Set a setting
          </button>
        </span>
      </div>
      {notice && (
        <div className="banner banner-ok" role="status" data-testid="settings-notice" onClick={() => setNotice(null)}>
          {notice}
        </div>
      )}
      {draft && (
        <div className="ops-form" data-testid="setting-editor">
          <label className="ops-field ops-wide">
            <span>Key</span>
            <input
              className="mono"
              value={draft.key}
              readOnly={draft.picked}
              placeholder="cluster.routing.allocation.enable"
              onChange={(e) => setDraft({ ...draft, key: e.target.value })}
              data-testid="setting-key"
              spellCheck={false}
            />
          </label>
          <label className="ops-field">
            <span>Scope</span>
            <select value={draft.scope} onChange={(e) => setDraft({ ...draft, scope: e.target.value as SettingScope })} data-testid="setting-scope">
              <option value="persistent">persistent (kept across restarts)</option>
              <option value="transient">transient (lost on a full restart)</option>
            </select>
          </label>
          <label className="ops-field ops-wide">
            <span>Value: text, a JSON number, boolean or list, or null to reset</span>
            <input
              className={`mono ${parsed && !parsed.ok ? "invalid" : ""}`}
              value={draft.text}
              onChange={(e) => setDraft({ ...draft, text: e.target.value })}
              onKeyDown={(e) => e.key === "Enter" && void save(false)}
              data-testid="setting-value"
              spellCheck={false}
              autoFocus
            />
            {parsed && !parsed.ok && draft.text !== "" && <span className="ops-error">{parsed.error}</span>}
          </label>
          {draft.key.trim() === ALLOCATION_KEY && (
            <div className="hint">
              The allocation lock in the header writes this key (persistent): all, primaries, new_primaries or none. A transient value would override
              what the lock sets.
            </div>
          )}
          {draft.scope === "transient" && <div className="hint hint-warn">Elasticsearch deprecates transient settings; prefer persistent.</div>}
          {error && (
            <div className="banner banner-error" role="alert" data-testid="setting-error">
              {error}
            </div>
          )}
          <button className="btn btn-primary" disabled={busy || !parsed?.ok || draft.key.trim() === ""} onClick={() => void save(false)} data-testid="setting-save">
            {busy ? "Saving…" : "Save"}
          </button>
          <button className="btn" disabled={busy || draft.key.trim() === ""} onClick={() => void save(true)} title="Send null: the setting goes back to its default" data-testid="setting-reset">
            Reset to default
          </button>
          <button className="btn btn-ghost" disabled={busy} onClick={() => setDraft(null)}>
            Cancel
          </button>
        </div>
      )}
      {!loaded.data && loaded.error ? (
        <ErrorState error={loaded.error} onRetry={loaded.reload} />
      ) : !loaded.data ? (
        <Loading what="cluster settings" />
      ) : rows.length === 0 ? (
        <EmptyState title={all.length === 0 ? "No settings set" : "No setting matches"}>
          {all.length === 0 ? "Every setting has its default: tick Show defaults to see them." : "Change the filter."}
        </EmptyState>
      ) : (
        <div className="table-wrap ops-scroller" ref={scroller}>
          <table className="table" data-testid="settings-table">
            <thead>
              <tr>
                <th>Key</th>
                <th>Value</th>
                <th>Scope</th>
                <th className="row-actions">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              <SpacerRow height={range.before} columns={4} />
              {rows.slice(range.start, range.end).map((row) => (
                <tr
                  key={`${row.source}:${row.key}`}
                  className={row.effective ? "" : "ops-overridden"}
                  title={row.effective ? undefined : row.source === "default" ? "A set value overrides this default" : "A transient value overrides this persistent one"}
                  data-testid="setting-row"
                  data-key={row.key}
                  data-source={row.source}
                >
                  <td className="mono">{row.key}</td>
                  <td className="mono ops-ellipsis" title={formatSetting(row.value)}>
                    {formatSetting(row.value)}
                  </td>
                  <td>
                    <span className={`pill ops-source-${row.source}`}>{row.source}</span>
                  </td>
                  <td className="row-actions" title={denied ?? undefined}>
                    <button
                      className="btn btn-small"
                      disabled={denied !== null}
                      data-denied={denied ?? undefined}
                      onClick={() => {
                        setError(null);
                        setDraft({ key: row.key, scope: row.source === "transient" ? "transient" : "persistent", text: editText(row.value), picked: true });
                      }}
                      data-testid="setting-edit"
                    >
                      Edit
                    </button>
                  </td>
                </tr>
              ))}
              <SpacerRow height={range.after} columns={4} />
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
