// Templates: composable index templates, component templates and legacy templates
// (deprecated, badged) in one filterable list; view and edit a definition as JSON (checked while
// typing and again by the server), create, delete (the name typed), and simulate which settings,
// mappings and aliases an index name would get.
import { useMemo, useRef, useState } from "react";
import { OpenInConsole } from "../components/OpenInConsole";
import { pathOf } from "../console/tabs";
import { templatesApi } from "../api/templates";
import type { Simulation, TemplateKind } from "../api/wire";
import { useAsync } from "../lib/useAsync";
import { useTitle } from "../lib/router";
import { ACTION_ROLES } from "../lib/access";
import { useClusterAccess } from "../lib/whoami";
import { Card, EmptyState, ErrorState, Loading } from "../components/common";
import { checkDefinition, filterTemplates, hasDataStream, KIND_LABELS, SKELETONS, templateNameProblem, templateRows, withDataStream, type TemplateRow } from "../manage/templates";
import { useVirtualRows } from "../components/useVirtualRows";
import { SpacerRow } from "../components/SpacerRow";
import { ConfirmDialog } from "../components/ConfirmDialog";
import "../styles/cluster-ops.css";

const ROW_HEIGHT = 34;
const KINDS: ReadonlyArray<{ id: TemplateKind | "all"; label: string }> = [
  { id: "all", label: "All" },
  { id: "index", label: "Index" },
  { id: "component", label: "Component" },
  { id: "legacy", label: "Legacy" },
];

/** The cluster's API of each kind, for "Open in console". */
const TEMPLATE_API: Record<TemplateKind, string> = { index: "_index_template", component: "_component_template", legacy: "_template" };

type Editing = { mode: "new"; kind: TemplateKind } | { mode: "existing"; kind: TemplateKind; name: string };

export function TemplatesView({ clusterId }: { clusterId: string }) {
  useTitle(`${clusterId} · Templates`);
  const list = useAsync((signal) => templatesApi.list(clusterId, signal), [clusterId]);
  const [kind, setKind] = useState<TemplateKind | "all">("all");
  const [filter, setFilter] = useState("");
  const [editing, setEditing] = useState<Editing | null>(null);
  const [deleting, setDeleting] = useState<TemplateRow | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const access = useClusterAccess(clusterId);
  const editDenied = access.denied(ACTION_ROLES.editTemplate);
  const deleteDenied = access.denied(ACTION_ROLES.deleteTemplate);
  const all = useMemo(() => (list.data ? templateRows(list.data) : []), [list.data]);
  const rows = useMemo(() => filterTemplates(all, kind, filter), [all, kind, filter]);
  const scroller = useRef<HTMLDivElement>(null);
  const range = useVirtualRows(scroller, rows.length, ROW_HEIGHT);

  return (
    <div className="view" data-testid="templates-view">
      <div className="toolbar">
        <div className="segmented" role="group" aria-label="Template kind">
          {KINDS.map((k) => (
            <button key={k.id} className={kind === k.id ? "active" : ""} aria-pressed={kind === k.id} onClick={() => setKind(k.id)}>
              {k.label}
            </button>
          ))}
        </div>
        <input
          className="filter"
          placeholder="Filter by name, pattern or component"
          aria-label="Filter templates"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          data-testid="templates-filter"
        />
        <span className="spacer" />
        <span className="muted">{list.data ? `${rows.length} of ${all.length}` : ""}</span>
        <span title={editDenied ?? undefined}>
          <button
            className="btn btn-primary btn-small"
            disabled={editDenied !== null}
            data-denied={editDenied ?? undefined}
            onClick={() => setEditing({ mode: "new", kind: kind === "all" ? "index" : kind })}
            data-testid="template-new"
          >
            New template
          </button>
        </span>
      </div>
      {notice && (
        <div className="banner banner-ok" role="status" data-testid="templates-notice" onClick={() => setNotice(null)}>
          {notice}
        </div>
      )}
      {list.data?.errors.map((error) => (
        <div key={error.kind} className="banner banner-warn" role="alert">
          {KIND_LABELS[error.kind]}s could not be listed: {error.message}
        </div>
      ))}
      {editing && (
        <TemplateEditor
          key={editing.mode === "new" ? `new-${editing.kind}` : `${editing.kind}/${editing.name}`}
          clusterId={clusterId}
          editing={editing}
          denied={editDenied}
          onClose={() => setEditing(null)}
          onSaved={(savedKind, name, created) => {
            setNotice(`${KIND_LABELS[savedKind]} ${name} ${created ? "created" : "saved"}.`);
            setEditing({ mode: "existing", kind: savedKind, name });
            list.reload();
          }}
        />
      )}
      {!list.data && list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : !list.data ? (
        <Loading what="templates" />
      ) : rows.length === 0 ? (
        <EmptyState title={all.length === 0 ? "No templates" : "No template matches"}>
          {all.length === 0 ? "Create one with New template." : "Change the filter or the kind."}
        </EmptyState>
      ) : (
        <div className="table-wrap ops-scroller" ref={scroller}>
          <table className="table" data-testid="templates-table">
            <thead>
              <tr>
                <th>Kind</th>
                <th>Name</th>
                <th>Index patterns</th>
                <th className="num" title="Priority (index templates) or order (legacy templates)">
                  Priority
                </th>
                <th>Composed of / used by</th>
                <th className="num">Version</th>
                <th className="row-actions">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              <SpacerRow height={range.before} columns={7} />
              {rows.slice(range.start, range.end).map((row) => (
                <tr
                  key={`${row.kind}/${row.name}`}
                  className="ops-row"
                  onClick={() => setEditing({ mode: "existing", kind: row.kind, name: row.name })}
                  data-testid="template-row"
                  data-template={`${row.kind}/${row.name}`}
                >
                  <td>
                    <span className={`pill ops-kind-${row.kind}`} title={row.kind === "legacy" ? "Legacy template (_template): deprecated, applies only when no composable template matches" : undefined}>
                      {row.kind}
                    </span>
                    {row.dataStream && <span className="pill"> data stream</span>}
                  </td>
                  <td className="mono">{row.name}</td>
                  <td className="mono ops-ellipsis" title={row.patterns.join(", ")}>
                    {row.patterns.join(", ")}
                  </td>
                  <td className="num">{row.priority ?? ""}</td>
                  <td className="mono ops-ellipsis">{row.kind === "component" ? (row.usedBy.length ? `used by ${row.usedBy.join(", ")}` : "unused") : row.composedOf.join(", ")}</td>
                  <td className="num">{row.version ?? ""}</td>
                  <td className="row-actions" title={deleteDenied ?? undefined}>
                    <OpenInConsole label="Console" request={{ method: "GET", path: pathOf(TEMPLATE_API[row.kind], row.name) }} />
                    <button
                      className="btn btn-small btn-danger"
                      disabled={deleteDenied !== null}
                      data-denied={deleteDenied ?? undefined}
                      onClick={(e) => {
                        e.stopPropagation();
                        setDeleting(row);
                      }}
                      data-testid="template-delete"
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
              <SpacerRow height={range.after} columns={7} />
            </tbody>
          </table>
        </div>
      )}
      <SimulateCard clusterId={clusterId} />
      {deleting && (
        <ConfirmDialog
          title={`Delete the ${KIND_LABELS[deleting.kind].toLowerCase()} ${deleting.name}?`}
          typed={deleting.name}
          confirmLabel="Delete template"
          danger
          testId="template-delete-dialog"
          onCancel={() => setDeleting(null)}
          onConfirm={async () => {
            await templatesApi.remove(clusterId, deleting.kind, deleting.name, deleting.name);
            setNotice(`${KIND_LABELS[deleting.kind]} ${deleting.name} deleted.`);
            if (editing?.mode === "existing" && editing.name === deleting.name && editing.kind === deleting.kind) setEditing(null);
            setDeleting(null);
            list.reload();
          }}
        >
          <p>New indices matching {deleting.patterns.length ? <span className="mono">{deleting.patterns.join(", ")}</span> : "it"} will no longer get its settings, mappings and aliases; existing indices keep theirs.</p>
          {deleting.kind === "component" && deleting.usedBy.length > 0 && (
            <div className="banner banner-warn">Used by {deleting.usedBy.join(", ")}: the cluster refuses to delete a component template in use.</div>
          )}
        </ConfirmDialog>
      )}
    </div>
  );
}

function TemplateEditor({
  clusterId,
  editing,
  denied,
  onClose,
  onSaved,
}: {
  clusterId: string;
  editing: Editing;
  denied: string | null;
  onClose: () => void;
  onSaved: (kind: TemplateKind, name: string, created: boolean) => void;
}) {
  const existing = editing.mode === "existing";
  const loaded = useAsync(
    (signal) => (existing ? templatesApi.get(clusterId, editing.kind, editing.name, signal) : Promise.resolve(null)),
    [clusterId, editing.kind, existing ? editing.name : ""],
  );
  const [kind, setKind] = useState<TemplateKind>(editing.kind);
  const [name, setName] = useState(existing ? editing.name : "");
  const [text, setText] = useState<string | null>(existing ? null : JSON.stringify(SKELETONS[editing.kind], null, 2));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const shown = text ?? (loaded.data ? JSON.stringify(loaded.data.definition, null, 2) : "");
  const verdict = checkDefinition(kind, shown);
  const nameProblem = existing ? null : templateNameProblem(name);

  const save = async () => {
    if (!verdict.ok || nameProblem || busy) return;
    setBusy(true);
    setError(null);
    try {
      await templatesApi.put(clusterId, kind, name, verdict.value, !existing);
      setText(null);
      onSaved(kind, name, !existing);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card
      title={existing ? <span className="mono">{`${editing.kind}/${editing.name}`}</span> : "New template"}
      actions={
        <button className="btn btn-small" onClick={onClose} aria-label="Close the template editor">
          Close
        </button>
      }
      testId="template-editor"
    >
      <div className="ops-form">
        {!existing && (
          <>
            <label className="ops-field">
              <span>Kind</span>
              <select
                value={kind}
                onChange={(e) => {
                  const next = e.target.value as TemplateKind;
                  setKind(next);
                  setText(JSON.stringify(SKELETONS[next], null, 2));
                }}
                data-testid="template-kind"
              >
                <option value="index">Index template (composable)</option>
                <option value="component">Component template</option>
                <option value="legacy">Legacy template (deprecated)</option>
              </select>
            </label>
            <label className="ops-field ops-wide">
              <span>Name</span>
              <input className="mono" value={name} onChange={(e) => setName(e.target.value)} data-testid="template-name" autoComplete="off" spellCheck={false} />
              {name !== "" && nameProblem && <span className="ops-error">{nameProblem}</span>}
            </label>
          </>
        )}
        {existing && editing.kind === "legacy" && (
          <div className="hint hint-warn">Legacy templates (_template) are deprecated: they apply only when no composable index template matches. Prefer an index template.</div>
        )}
        {kind === "index" && (!existing || loaded.data) && (
          <label className="ops-check" title="data_stream: matching names become data streams (append-only, @timestamp, backing indices .ds-…)">
            <input
              type="checkbox"
              checked={hasDataStream(shown) === true}
              disabled={denied !== null || hasDataStream(shown) === null}
              onChange={(e) => {
                const next = withDataStream(shown, e.target.checked);
                if (next !== null) setText(next);
              }}
              data-testid="template-data-stream"
            />{" "}
            Data stream: matching names become data streams
          </label>
        )}
        {existing && !loaded.data && loaded.error ? (
          <ErrorState error={loaded.error} />
        ) : existing && !loaded.data ? (
          <Loading what="the template" />
        ) : (
          <label className="ops-field" style={{ flexBasis: "100%" }}>
            <span>Definition (JSON, as the cluster's PUT {kind === "index" ? "_index_template" : kind === "component" ? "_component_template" : "_template"} takes it)</span>
            <textarea
              className={`mono ops-editor ${verdict.ok ? "" : "invalid"}`}
              value={shown}
              onChange={(e) => setText(e.target.value)}
              readOnly={denied !== null}
              spellCheck={false}
              aria-invalid={!verdict.ok}
              data-testid="template-definition"
            />
            {!verdict.ok && (
              <span className="ops-error" role="alert" data-testid="template-definition-error">
                {verdict.error}
              </span>
            )}
          </label>
        )}
        {error && (
          <div className="banner banner-error" role="alert" data-testid="template-save-error">
            {error}
          </div>
        )}
        <span title={denied ?? undefined}>
          <button
            className="btn btn-primary"
            disabled={denied !== null || !verdict.ok || nameProblem !== null || busy || (existing && text === null)}
            data-denied={denied ?? undefined}
            onClick={() => void save()}
            data-testid="template-save"
          >
            {busy ? "Saving…" : existing ? "Save changes" : "Create"}
          </button>
        </span>
      </div>
    </Card>
  );
}

function SimulateCard({ clusterId }: { clusterId: string }) {
  const [index, setIndex] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Simulation | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    if (!index.trim() || busy) return;
    setBusy(true);
    setError(null);
    try {
      setResult(await templatesApi.simulate(clusterId, index.trim()));
    } catch (e) {
      setResult(null);
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card title="Simulate an index" testId="template-simulate">
      <div className="ops-form">
        <label className="ops-field ops-wide">
          <span>Index name: what would an index of this name get?</span>
          <input
            className="mono"
            value={index}
            placeholder="logs-2026.11.24"
            onChange={(e) => setIndex(e.target.value)}
            onKeyDown={(e) => e.key === "Enter" && void run()}
            data-testid="simulate-index"
          />
        </label>
        <button className="btn btn-primary" disabled={!index.trim() || busy} onClick={() => void run()} data-testid="simulate-run">
          {busy ? "Simulating…" : "Simulate"}
        </button>
        {error && (
          <div className="banner banner-error" role="alert">
            {error}
          </div>
        )}
      </div>
      {result && (
        <div data-testid="simulate-result">
          <p>
            {result.template ? (
              <>
                <span className="mono">{result.index}</span> would get the index template <strong className="mono" data-testid="simulate-template">{result.template}</strong>.
              </>
            ) : Object.keys(result.settings).length || Object.keys(result.mappings).length ? (
              <>
                <span className="mono">{result.index}</span> matches a composable template.
              </>
            ) : (
              <>
                No composable index template matches <span className="mono">{result.index}</span>
                {result.legacyMatches.length ? "; the legacy templates below apply." : "; it would get the cluster's defaults."}
              </>
            )}
          </p>
          {result.overlapping.length > 0 && (
            <p data-testid="simulate-overlapping">
              Also matching, not applied:{" "}
              {result.overlapping.map((o) => (
                <span key={o.name} className="pill mono" title={o.indexPatterns.join(", ")}>
                  {o.name}
                </span>
              ))}
            </p>
          )}
          {result.legacyMatches.length > 0 && (
            <p>
              Legacy templates matching:{" "}
              {result.legacyMatches.map((name) => (
                <span key={name} className="pill ops-kind-legacy mono">
                  {name}
                </span>
              ))}
            </p>
          )}
          <div className="ops-sim">
            {(["settings", "mappings", "aliases"] as const).map((part) => (
              <div key={part}>
                <h4>{part[0].toUpperCase() + part.slice(1)}</h4>
                <pre className="ops-json mono" data-testid={`simulate-${part}`}>
                  {JSON.stringify(result[part], null, 2)}
                </pre>
              </div>
            ))}
          </div>
        </div>
      )}
    </Card>
  );
}
