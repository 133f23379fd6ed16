// One index's page (`/clusters/:id/indices/:index`): its status and actions, stats, settings
// (the dynamic ones editable by an admin, the static ones read-only), mappings, shards and
// aliases, from one `GET /api/clusters/:id/indices/:index`.
import { useState } from "react";
import { OpenInConsole } from "../components/OpenInConsole";
import { pathOf } from "../console/tabs";
import type { IndexDetail as Detail, RolledOver, SettingRow, Started } from "../api/wire";
import { dialect as readDialect, indicesApi } from "../api/indices";
import { Card, EmptyState, ErrorState, HealthBadge, Loading } from "../components/common";
import { Link } from "../components/Link";
import { ACTION_ROLES } from "../lib/access";
import { formatBytes, formatCount } from "../lib/format";
import { clusterPath, navigate, useTitle } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { useClusterAccess } from "../lib/whoami";
import { ActionResults, useIndexActionFlow } from "./IndexActionFlow";
import { INDEX_ACTIONS } from "./indexForms";
import { settingsEdit, showValue } from "./indexSettings";
import { OperationsMenu } from "./OperationsMenu";
import { sourceFacts } from "../manage/operations";
import { RecoveriesPanel } from "./RecoveriesPanel";
import "../styles/indices.css";

export function IndexDetail({ clusterId, index }: { clusterId: string; index: string }) {
  useTitle(`${clusterId} · ${index}`);
  const detail = useAsync((signal) => indicesApi.detail(clusterId, index, signal), [clusterId, index]);
  const access = useClusterAccess(clusterId);
  const flow = useIndexActionFlow(clusterId, (answer) => {
    if (answer.action === "delete" && answer.results.every((r) => r.ok)) navigate(clusterPath(clusterId, "indices"));
    else detail.reload();
  });
  const data = detail.data;
  const flavor = useAsync((signal) => readDialect(clusterId, signal), [clusterId]);
  const [started, setStarted] = useState<Started | null>(null);
  const [rolled, setRolled] = useState<RolledOver | null>(null);

  return (
    <div data-testid="index-detail" className="index-detail">
      <div className="toolbar">
        <Link to={clusterPath(clusterId, "indices")} className="btn btn-small">
          ← Indices
        </Link>
        <h2 className="index-title mono" data-testid="index-title">
          {index}
        </h2>
        {data && <HealthBadge health={data.health} />}
        {data && (
          <span className={`pill ${data.status === "close" ? "pill-closed" : ""}`} data-testid="index-status">
            {data.status === "close" ? "closed" : "open"}
          </span>
        )}
        <span className="spacer" />
        <OpenInConsole
          request={["_settings", "_mapping", "_stats"].map((api) => ({ method: "GET", path: pathOf(index, api) }))}
        />
        {detail.loading && data && <span className="spinner" aria-label="Loading" />}
      </div>
      {data && (
        <div className="index-actions" data-testid="index-actions">
          {INDEX_ACTIONS.filter((a) => (data.status === "close" ? a.action !== "close" : a.action !== "open")).map((a) => {
            const why = access.denied(a.role);
            return (
              <span key={a.action} className="denied-wrap" title={why ?? undefined}>
                <button
                  type="button"
                  className={`btn btn-small ${a.action === "delete" ? "btn-danger-outline" : ""}`}
                  disabled={why !== null}
                  title={why ?? `${a.label}: ${a.hint}`}
                  data-testid={`detail-${a.action}`}
                  data-denied={why ?? undefined}
                  onClick={() => flow.ask(a, [index])}
                >
                  {a.label}
                </button>
              </span>
            );
          })}
          {data.status !== "close" && (
            <OperationsMenu
              clusterId={clusterId}
              source={sourceFacts(data)}
              opensearch={flavor.data?.distribution === "opensearch"}
              writeAliases={data.aliases.filter((a) => a.isWriteIndex === true).map((a) => a.alias)}
              onStarted={setStarted}
              onRolledOver={(r) => {
                setRolled(r);
                detail.reload();
              }}
            />
          )}
        </div>
      )}
      {rolled && (
        <div className="banner banner-ok" role="status" data-testid="rolled-over">
          {rolled.name} rolled over: new write index{" "}
          {rolled.newIndex ? <Link to={clusterPath(clusterId, "indices", rolled.newIndex)}>{rolled.newIndex}</Link> : "(not named)"}.{" "}
          <button type="button" className="btn btn-ghost btn-small" onClick={() => setRolled(null)} aria-label="Dismiss">
            ×
          </button>
        </div>
      )}
      {started && <StartedNotice clusterId={clusterId} started={started} onClose={() => setStarted(null)} />}
      {flow.answer && <ActionResults answer={flow.answer} onClose={flow.clear} />}
      {flow.dialog}
      {detail.error && <ErrorState error={detail.error} onRetry={detail.reload} />}
      {!data && !detail.error && <Loading what={`index ${index}`} />}
      {data && <RecoveriesPanel clusterId={clusterId} scope={{ index }} />}
      {data && <DetailBody clusterId={clusterId} data={data} onSaved={detail.reload} />}
    </div>
  );
}

function DetailBody({ clusterId, data, onSaved }: { clusterId: string; data: Detail; onSaved: () => void }) {
  const stats = data.stats;
  return (
    <>
      {stats ? (
        <div className="tiles" data-testid="index-stats">
          <Tile label="Documents" value={formatCount(stats.docsCount)} sub={`${formatCount(stats.docsDeleted)} deleted`} />
          <Tile label="Size" value={formatBytes(stats.storeBytes)} sub={`${formatBytes(stats.primaryStoreBytes)} primaries`} />
          <Tile label="Indexing" value={formatCount(stats.indexingTotal)} sub={`${formatCount(stats.indexingTimeMs)} ms · ${formatCount(stats.indexingFailed)} failed`} />
          <Tile label="Searches" value={formatCount(stats.searchQueryTotal)} sub={`${formatCount(stats.searchQueryTimeMs)} ms · ${formatCount(stats.segmentsCount)} segments`} />
        </div>
      ) : (
        <div className="banner-warn" data-testid="index-closed-note">
          The index is closed: it has no statistics until it is opened.
        </div>
      )}
      <div className="detail-grid">
        <SettingsCard clusterId={clusterId} data={data} onSaved={onSaved} />
        <Card title="Mappings">
          <pre className="json-view mono" data-testid="index-mappings">
            {JSON.stringify(data.mappings, null, 2)}
          </pre>
        </Card>
        <Card title={`Shards (${data.shards.length})`}>
          {data.shards.length === 0 ? (
            <EmptyState title="No shard copies listed" />
          ) : (
            <table className="table" data-testid="index-shards">
              <thead>
                <tr>
                  <th>Shard</th>
                  <th>Copy</th>
                  <th>State</th>
                  <th className="num">Documents</th>
                  <th className="num">Size</th>
                  <th>Node</th>
                </tr>
              </thead>
              <tbody>
                {data.shards.map((s, i) => (
                  <tr key={i} data-state={s.state}>
                    <td className="num">{s.shard}</td>
                    <td>{s.primary ? "primary" : "replica"}</td>
                    <td title={s.unassignedReason ?? undefined}>
                      {s.state}
                      {s.unassignedReason && <span className="muted"> ({s.unassignedReason})</span>}
                    </td>
                    <td className="num">{s.docs === null ? "–" : formatCount(s.docs)}</td>
                    <td className="num">{s.storeBytes === null ? "–" : formatBytes(s.storeBytes)}</td>
                    <td>{s.node ?? "–"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Card>
        <Card title={`Aliases (${data.aliases.length})`} actions={<Link to={clusterPath(clusterId, "aliases")}>Manage aliases</Link>}>
          {data.aliases.length === 0 ? (
            <EmptyState title="No aliases" />
          ) : (
            <ul className="alias-chips" data-testid="index-aliases">
              {data.aliases.map((a) => (
                <li key={a.alias} className="mono">
                  {a.alias}
                  {a.isWriteIndex && <span className="pill">write</span>}
                  {a.filter && <span className="pill">filtered</span>}
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
    </>
  );
}

function Tile({ label, value, sub }: { label: string; value: string; sub?: string }) {
  return (
    <div className="tile">
      <div className="tile-label">{label}</div>
      <div className="tile-value">{value}</div>
      {sub && <div className="tile-sub muted">{sub}</div>}
    </div>
  );
}

function SettingsCard({ clusterId, data, onSaved }: { clusterId: string; data: Detail; onSaved: () => void }) {
  const denied = useClusterAccess(clusterId).denied(ACTION_ROLES.editIndexSettings);
  const [edits, setEdits] = useState<Record<string, string | null>>({});
  const [adding, setAdding] = useState(data.addableSettings[0] ?? "");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const rows: SettingRow[] = [
    ...data.settings,
    ...Object.keys(edits)
      .filter((k) => !data.settings.some((s) => s.key === k))
      .map((key) => ({ key, value: null, dynamic: true })),
  ];
  const edit = settingsEdit(edits);

  const save = async () => {
    setBusy(true);
    setMessage(null);
    try {
      await indicesApi.putSettings(clusterId, data.name, edit);
      setEdits({});
      setMessage({ ok: true, text: `Saved ${Object.keys(edit).join(", ")}.` });
      onSaved();
    } catch (e) {
      setMessage({ ok: false, text: (e as Error).message });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title="Settings" className="settings-card">
      <table className="table settings-table" data-testid="index-settings">
        <tbody>
          {rows.map((row) => {
            const edited = Object.prototype.hasOwnProperty.call(edits, row.key);
            const value = edited ? edits[row.key] : showValue(row.value);
            return (
              <tr key={row.key} data-key={row.key} data-dynamic={row.dynamic}>
                <td className="mono setting-key">{row.key}</td>
                <td>
                  {row.dynamic ? (
                    <span className="setting-edit">
                      <input
                        className={`mono ${edited ? "edited" : ""}`}
                        value={value ?? ""}
                        placeholder={value === null ? "(default)" : undefined}
                        disabled={denied !== null || busy}
                        title={denied ?? "A dynamic setting: change it and save"}
                        aria-label={`Value of ${row.key}`}
                        data-testid="setting-input"
                        data-key={row.key}
                        onChange={(e) => setEdits((x) => ({ ...x, [row.key]: e.target.value }))}
                      />
                      <button
                        type="button"
                        className="btn btn-small btn-link"
                        disabled={denied !== null || busy}
                        title="Reset to the default (sends null)"
                        onClick={() => setEdits((x) => ({ ...x, [row.key]: null }))}
                      >
                        Reset
                      </button>
                    </span>
                  ) : (
                    <span className="mono muted" title="A static setting: fixed when the index was created" data-testid="setting-static">
                      {showValue(row.value)}
                    </span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <div className="settings-actions">
        {data.addableSettings.length > 0 && (
          <span className="denied-wrap" title={denied ?? undefined}>
            <select value={adding} onChange={(e) => setAdding(e.target.value)} disabled={denied !== null} aria-label="Setting to add">
              {data.addableSettings.map((k) => (
                <option key={k}>{k}</option>
              ))}
            </select>
            <button
              type="button"
              className="btn btn-small"
              disabled={denied !== null || !adding || Object.prototype.hasOwnProperty.call(edits, adding)}
              onClick={() => setEdits((x) => ({ ...x, [adding]: "" }))}
              data-testid="add-setting"
            >
              Add setting
            </button>
          </span>
        )}
        <span className="spacer" />
        {Object.keys(edits).length > 0 && (
          <button type="button" className="btn btn-small" onClick={() => setEdits({})} disabled={busy}>
            Discard
          </button>
        )}
        <span className="denied-wrap" title={denied ?? undefined}>
          <button
            type="button"
            className="btn btn-primary btn-small"
            disabled={denied !== null || busy || Object.keys(edit).length === 0}
            title={denied ?? "Apply the changed settings"}
            onClick={() => void save()}
            data-testid="save-settings"
          >
            {busy ? "Saving…" : "Save settings"}
          </button>
        </span>
      </div>
      {message && (
        <div className={`banner ${message.ok ? "banner-ok" : "banner-error"} action-error`} role={message.ok ? "status" : "alert"} data-testid="settings-message">
          {message.text}
        </div>
      )}
    </Card>
  );
}

/** What an operation started: a link to the Tasks view following its task, or (a resize on
 * Elasticsearch, which runs no task) to the target index, whose health shows the copy. */
function StartedNotice({ clusterId, started, onClose }: { clusterId: string; started: Started; onClose: () => void }) {
  return (
    <div className="banner banner-ok" role="status" data-testid="operation-started">
      {started.taskId ? (
        <>
          Started {started.operation} of {started.source}
          {started.target ? ` into ${started.target}` : ""} as task <span className="mono">{started.taskId}</span>.{" "}
          <Link to={`${clusterPath(clusterId, "tasks")}?watch=${encodeURIComponent(started.taskId)}`} data-testid="operation-task-link">
            Follow it in Tasks
          </Link>
        </>
      ) : (
        <>
          {started.target} was created by the {started.operation}; its shards copy in the background.{" "}
          {started.target && <Link to={clusterPath(clusterId, "indices", started.target)}>Open {started.target}</Link>}
        </>
      )}{" "}
      <button type="button" className="btn btn-ghost btn-small" onClick={onClose} aria-label="Dismiss">
        ×
      </button>
    </div>
  );
}
