// Data streams: every data stream with its backing indices (the last is the write index),
// generation, index template, health, lifecycle policy, size and newest document; create one
// from a matching index template with `data_stream` (admin), roll one over (operator), delete
// one by its typed name (admin). Buttons the caller's role does not allow are disabled with
// the reason; the server decides anyway.
import { useMemo, useState } from "react";
import { dataStreamsApi } from "../api/dataStreams";
import type { DataStreamRow, Health } from "../api/wire";
import { useAsync } from "../lib/useAsync";
import { clusterPath, useTitle } from "../lib/router";
import { ACTION_ROLES } from "../lib/access";
import { useClusterAccess } from "../lib/whoami";
import { formatBytes, formatLocalTime } from "../lib/format";
import { EmptyState, ErrorState, HealthBadge, Loading } from "../components/common";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { GuardedButton } from "../components/GuardedButton";
import { Link } from "../components/Link";
import { dataStreamNameProblem, filterDataStreams, rolloverSummary, writeIndex } from "../manage/dataStreams";
import "../styles/cluster-ops.css";

type Pending = { action: "create" } | { action: "rollover"; row: DataStreamRow } | { action: "delete"; row: DataStreamRow };

export function DataStreamsView({ clusterId }: { clusterId: string }) {
  useTitle(`${clusterId} · Data streams`);
  const list = useAsync((signal) => dataStreamsApi.list(clusterId, signal), [clusterId], 30_000);
  const [filter, setFilter] = useState("");
  const [pending, setPending] = useState<Pending | null>(null);
  const [newName, setNewName] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const access = useClusterAccess(clusterId);
  const createDenied = access.denied(ACTION_ROLES.createDataStream);
  const rolloverDenied = access.denied(ACTION_ROLES.rolloverDataStream);
  const deleteDenied = access.denied(ACTION_ROLES.deleteDataStream);
  const all = list.data?.dataStreams ?? [];
  const rows = useMemo(() => filterDataStreams(list.data?.dataStreams ?? [], filter), [list.data, filter]);
  const nameProblem = dataStreamNameProblem(newName.trim());
  const done = (message: string) => {
    setNotice(message);
    setPending(null);
    list.reload();
  };

  return (
    <div className="view" data-testid="data-streams-view">
      <div className="toolbar">
        <input
          className="filter"
          placeholder="Filter by name, template or backing index"
          aria-label="Filter data streams"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          data-testid="data-streams-filter"
        />
        <span className="spacer" />
        <span className="muted">{list.data ? `${rows.length} of ${all.length}` : ""}</span>
        <GuardedButton
          className="btn btn-primary btn-small"
          denied={createDenied}
          onClick={() => {
            setNewName("");
            setPending({ action: "create" });
          }}
          testId="data-stream-new"
        >
          New data stream
        </GuardedButton>
      </div>
      {notice && (
        <div className="banner banner-ok" role="status" data-testid="data-streams-notice" onClick={() => setNotice(null)}>
          {notice}
        </div>
      )}
      {!list.data && list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : !list.data ? (
        <Loading what="data streams" />
      ) : rows.length === 0 ? (
        <EmptyState title={all.length === 0 ? "No data streams" : "No data stream matches"}>
          {all.length === 0
            ? "A data stream needs an index template with a data stream (Templates), then New data stream, or index a document with an @timestamp into a matching name."
            : "Change the filter."}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="data-streams-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Health</th>
                <th className="num" title="How many times it was created or rolled over">
                  Generation
                </th>
                <th>Backing indices (write index last)</th>
                <th>Template</th>
                <th title="Index lifecycle policy (Elasticsearch)">Policy</th>
                <th className="num">Size</th>
                <th title="The newest @timestamp indexed">Newest document</th>
                <th className="row-actions">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.name} data-testid="data-stream-row" data-data-stream={row.name}>
                  <td className="mono">
                    {row.name}
                    {row.hidden && <span className="pill"> hidden</span>}
                  </td>
                  <td>
                    <HealthBadge health={(row.health as Health | null) ?? null} />
                  </td>
                  <td className="num" data-testid="data-stream-generation">
                    {row.generation ?? ""}
                  </td>
                  <td className="mono ops-ellipsis" data-testid="data-stream-backing" title={row.backingIndices.map((index) => index.name).join("\n")}>
                    {row.backingIndices.map((index, position) => (
                      <span key={index.name}>
                        {position > 0 && ", "}
                        <Link to={clusterPath(clusterId, "indices", index.name)}>{index.name}</Link>
                        {index.name === writeIndex(row) && <span className="muted"> (write)</span>}
                      </span>
                    ))}
                  </td>
                  <td className="mono">{row.template ?? ""}</td>
                  <td className="mono">{row.ilmPolicy ?? ""}</td>
                  <td className="num">{row.storeSizeBytes === null ? "" : formatBytes(row.storeSizeBytes)}</td>
                  <td>{row.maximumTimestamp === null ? "" : formatLocalTime(row.maximumTimestamp)}</td>
                  <td className="row-actions">
                    <GuardedButton className="btn btn-small" denied={rolloverDenied} onClick={() => setPending({ action: "rollover", row })} testId="data-stream-rollover">
                      Roll over
                    </GuardedButton>{" "}
                    <GuardedButton className="btn btn-small btn-danger" denied={deleteDenied} onClick={() => setPending({ action: "delete", row })} testId="data-stream-delete">
                      Delete
                    </GuardedButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pending?.action === "create" && (
        <ConfirmDialog
          title="New data stream"
          confirmLabel="Create data stream"
          testId="data-stream-create-dialog"
          onCancel={() => setPending(null)}
          onConfirm={async () => {
            const name = newName.trim();
            if (nameProblem) throw new Error(nameProblem);
            await dataStreamsApi.create(clusterId, name);
            done(`Data stream ${name} created.`);
          }}
        >
          <p>
            The cluster creates it from the index template whose patterns match the name; that template must have <code className="mono">"data_stream": {"{}"}</code> (Templates).
          </p>
          <label className="ops-field">
            <span>Name</span>
            <input className="mono" value={newName} onChange={(e) => setNewName(e.target.value)} autoComplete="off" spellCheck={false} autoFocus data-testid="data-stream-name" />
            {newName !== "" && nameProblem && <span className="ops-error">{nameProblem}</span>}
          </label>
        </ConfirmDialog>
      )}
      {pending?.action === "rollover" && (
        <ConfirmDialog
          title={`Roll over ${pending.row.name}?`}
          confirmLabel="Roll over"
          testId="data-stream-rollover-dialog"
          onCancel={() => setPending(null)}
          onConfirm={async () => {
            const answer = await dataStreamsApi.rollover(clusterId, pending.row.name);
            done(rolloverSummary(answer.name, answer.oldIndex, answer.newIndex, answer.rolledOver));
          }}
        >
          <p>
            A new backing index becomes the write index (generation {(pending.row.generation ?? 0) + 1}); <span className="mono">{writeIndex(pending.row) ?? "the current one"}</span> keeps its documents and stays searchable.
          </p>
        </ConfirmDialog>
      )}
      {pending?.action === "delete" && (
        <ConfirmDialog
          title={`Delete the data stream ${pending.row.name}?`}
          typed={pending.row.name}
          confirmLabel="Delete data stream"
          danger
          testId="data-stream-delete-dialog"
          onCancel={() => setPending(null)}
          onConfirm={async () => {
            await dataStreamsApi.remove(clusterId, pending.row.name, pending.row.name);
            done(`Data stream ${pending.row.name} deleted.`);
          }}
        >
          <p>
            Its {pending.row.backingIndices.length} backing {pending.row.backingIndices.length === 1 ? "index" : "indices"} and every document in them are deleted. The index template stays: a
            new document for this name creates the stream again.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
