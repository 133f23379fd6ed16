// One snapshot: its state and progress (polled every second while it runs), its indices and
// failures, restoring it (index selection, rename) and deleting it.
import { useMemo, useRef, useState } from "react";
import type { SnapshotDetail } from "../../api/wire";
import { snapshotsApi } from "../../api/snapshots";
import { ACTION_ROLES } from "../../lib/access";
import { useClusterAccess } from "../../lib/whoami";
import { useAsync } from "../../lib/useAsync";
import { clusterPath } from "../../lib/router";
import { formatBytes, formatCount, formatLocalTime } from "../../lib/format";
import { Card, ErrorState, Loading } from "../../components/common";
import { Link } from "../../components/Link";
import { formatElapsed, isRunning, parsePatterns, progressFraction, renamed, restoreSelection } from "./logic";
import { StatePill } from "./SnapshotTable";
import { ConfirmDialog } from "../../components/ConfirmDialog";

interface Props {
  clusterId: string;
  repo: string;
  name: string;
  onClose: () => void;
  onDeleted: (name: string) => void;
  /** The snapshot's state changed (it finished): the list shows it too. */
  onStateChange: () => void;
}

export function SnapshotPanel({ clusterId, repo, name, onClose, onDeleted, onStateChange }: Props) {
  // Polled every second while it runs (and until the first answer says it does not).
  const [running, setRunning] = useState(true);
  const seenRunning = useRef<boolean | undefined>(undefined);
  // A finished snapshot's sizes cost the cluster a read per shard: only on request.
  const [sizes, setSizes] = useState(false);
  const detail = useAsync(
    async (signal) => {
      const d = await snapshotsApi.detail(clusterId, repo, name, signal, sizes);
      const now = isRunning(d.snapshot.state);
      if (seenRunning.current === true && !now) onStateChange();
      seenRunning.current = now;
      setRunning(now);
      return d;
    },
    [clusterId, repo, name, sizes],
    running ? 1000 : undefined,
  );
  const deleteDenied = useClusterAccess(clusterId).denied(ACTION_ROLES.deleteSnapshot);
  const [deleting, setDeleting] = useState(false);
  const d = detail.data;

  return (
    <Card
      title={
        <>
          Snapshot <span className="mono">{name}</span> {d && <StatePill state={d.snapshot.state} />}
        </>
      }
      testId="snapshot-detail"
      className="snap-panel"
      actions={
        <>
          <span className="denied-wrap" title={deleteDenied ?? undefined}>
            <button className="btn btn-small" disabled={deleteDenied !== null} onClick={() => setDeleting(true)} data-testid="delete-snapshot">
              Delete
            </button>
          </span>
          <button className="btn btn-small btn-ghost" onClick={onClose} aria-label="Close snapshot">
            ✕
          </button>
        </>
      }
    >
      {detail.error && <ErrorState error={detail.error} onRetry={detail.reload} />}
      {!d && !detail.error && <Loading what="the snapshot" />}
      {d && <Summary detail={d} onSizes={sizes ? undefined : () => setSizes(true)} loading={detail.loading} />}
      {d && d.snapshot.state !== "IN_PROGRESS" && <RestoreForm clusterId={clusterId} repo={repo} detail={d} />}
      {deleting && (
        <ConfirmDialog
          title={`Delete snapshot ${name}`}
          typed={name}
          confirmLabel="Delete snapshot"
          danger
          testId="typed-confirm"
          onCancel={() => setDeleting(false)}
          onConfirm={async () => {
            await snapshotsApi.deleteSnapshot(clusterId, repo, name, name);
            setDeleting(false);
            onDeleted(name);
          }}
        >
          <p className="muted">
            Its files in <span className="mono">{repo}</span> that no other snapshot uses are removed; this cannot be undone.
            {d && isRunning(d.snapshot.state) && " It is still running: deleting it stops it."}
          </p>
        </ConfirmDialog>
      )}
    </Card>
  );
}

function Summary({ detail, onSizes, loading }: { detail: SnapshotDetail; onSizes?: () => void; loading: boolean }) {
  const s = detail.snapshot;
  const p = detail.progress;
  const fraction = p ? progressFraction(p) : isRunning(s.state) ? 0 : 1;
  return (
    <div className="snap-summary">
      <dl className="snap-facts">
        <dt>Started</dt>
        <dd>{s.startMillis ? formatLocalTime(s.startMillis) : "–"}</dd>
        <dt>Ended</dt>
        <dd>{s.endMillis ? formatLocalTime(s.endMillis) : "–"}</dd>
        <dt>Duration</dt>
        <dd>{formatElapsed(s.durationMillis ?? p?.timeMillis)}</dd>
        <dt>Global state</dt>
        <dd>{s.includeGlobalState == null ? "–" : s.includeGlobalState ? "included" : "not included"}</dd>
        {s.version && (
          <>
            <dt>Taken by</dt>
            <dd>version {s.version}</dd>
          </>
        )}
      </dl>
      <div className="snap-progress" data-testid="snapshot-progress" data-fraction={fraction.toFixed(3)}>
        <div className="meter-track snap-progress-track">
          <span className={`meter-fill ${s.state === "FAILED" || s.state === "PARTIAL" ? "meter-high" : "meter-ok"}`} style={{ width: `${fraction * 100}%` }} />
        </div>
        {p ? (
          <span className="muted">
            Shards {formatCount(p.shardsDone)} / {formatCount(p.shardsTotal)} done
            {p.shardsFailed > 0 && <span className="snap-failed"> · {formatCount(p.shardsFailed)} failed</span>} · {formatBytes(p.bytesDone)} of{" "}
            {formatBytes(p.bytesTotal)} copied · {formatBytes(p.sizeInRepositoryBytes)} in the repository
          </span>
        ) : (
          <span className="muted">
            Shards {formatCount(s.shardsSuccessful)} / {formatCount(s.shardsTotal)} done
            {detail.progressError ? (
              <> (no sizes: {detail.progressError})</>
            ) : (
              onSizes && (
                <>
                  {" "}
                  <button
                    type="button"
                    className="btn btn-small btn-ghost"
                    onClick={onSizes}
                    disabled={loading}
                    title="The cluster reads every shard's metadata from the repository for this"
                    data-testid="snapshot-sizes"
                  >
                    Show sizes
                  </button>
                </>
              )
            )}
          </span>
        )}
      </div>
      {s.reason && <p className="snap-failed">Reason: {s.reason}</p>}
      {detail.failures.length > 0 && (
        <div data-testid="snapshot-failures">
          <h4>Shard failures</h4>
          <ul className="snap-failures">
            {detail.failures.map((f, i) => (
              <li key={i}>
                <span className="mono">
                  {f.index}[{f.shardId ?? "?"}]
                </span>{" "}
                {f.nodeId && <span className="muted">on {f.nodeId}: </span>}
                {f.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
      {detail.dataStreams.length > 0 && (
        <p className="muted">
          Data streams: <span className="mono">{detail.dataStreams.join(", ")}</span>
        </p>
      )}
    </div>
  );
}

function RestoreForm({ clusterId, repo, detail }: { clusterId: string; repo: string; detail: SnapshotDetail }) {
  const denied = useClusterAccess(clusterId).denied(ACTION_ROLES.restoreSnapshot);
  const all = detail.indices;
  const [ticked, setTicked] = useState<Set<string>>(() => new Set(all));
  const [extra, setExtra] = useState("");
  const [pattern, setPattern] = useState("(.+)");
  const [replacement, setReplacement] = useState("restored-$1");
  const [globalState, setGlobalState] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);
  const [listFilter, setListFilter] = useState("");

  const chosen = useMemo(() => all.filter((i) => ticked.has(i)), [all, ticked]);
  const shown = listFilter ? all.filter((i) => i.includes(listFilter)) : all;
  const renameProblem = (pattern === "") !== (replacement === "") ? "Give both a rename pattern and a replacement, or neither." : null;
  const preview = chosen.slice(0, 3).map((i) => [i, renamed(i, pattern, replacement)] as const);

  const submit = async () => {
    setBusy(true);
    setResult(null);
    try {
      const patterns = parsePatterns(extra);
      const indices = patterns.length ? [...chosen, ...patterns] : restoreSelection(all, ticked);
      await snapshotsApi.restore(clusterId, repo, detail.snapshot.name, {
        ...(indices.length ? { indices } : {}),
        ...(pattern ? { renamePattern: pattern, renameReplacement: replacement } : {}),
        includeGlobalState: globalState,
      });
      const names = preview.map(([, to]) => to ?? "?").join(", ");
      setResult({
        ok: true,
        message: `Restore started: ${chosen.length || "every"} ${chosen.length === 1 ? "index" : "indices"}${pattern ? ` as ${names}${chosen.length > 3 ? ", …" : ""}` : ""}.`,
      });
    } catch (e) {
      setResult({ ok: false, message: (e as Error).message });
    } finally {
      setBusy(false);
    }
  };

  const toggle = (index: string) =>
    setTicked((t) => {
      const next = new Set(t);
      if (next.has(index)) next.delete(index);
      else next.add(index);
      return next;
    });

  return (
    <form
      className="snap-form snap-restore"
      data-testid="restore-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h4>Restore</h4>
      {all.length > 0 && (
        <fieldset className="snap-indices">
          <legend>
            Indices ({formatCount(chosen.length)} of {formatCount(all.length)}){" "}
            <button type="button" className="btn btn-small btn-ghost" onClick={() => setTicked(new Set(all))}>
              All
            </button>
            <button type="button" className="btn btn-small btn-ghost" onClick={() => setTicked(new Set())}>
              None
            </button>
          </legend>
          {all.length > 12 && (
            <input type="search" className="filter" placeholder="Filter" value={listFilter} onChange={(e) => setListFilter(e.target.value)} aria-label="Filter indices to restore" />
          )}
          <div className="snap-index-list">
            {shown.slice(0, 500).map((i) => (
              <label key={i} className="mono">
                <input type="checkbox" checked={ticked.has(i)} onChange={() => toggle(i)} aria-label={`Restore ${i}`} /> {i}
              </label>
            ))}
            {shown.length > 500 && <span className="muted">{formatCount(shown.length - 500)} more: narrow the filter or add patterns below.</span>}
          </div>
        </fieldset>
      )}
      <label className="snap-field snap-field-wide">
        <span>More indices (patterns)</span>
        <input value={extra} onChange={(e) => setExtra(e.target.value)} aria-label="Index patterns to restore" placeholder="logs-2026.* -logs-2026.01" spellCheck={false} />
      </label>
      <label className="snap-field">
        <span>Rename pattern</span>
        <input value={pattern} onChange={(e) => setPattern(e.target.value)} aria-label="Rename pattern" className="mono" spellCheck={false} />
      </label>
      <label className="snap-field">
        <span>Replacement</span>
        <input value={replacement} onChange={(e) => setReplacement(e.target.value)} aria-label="Rename replacement" className="mono" spellCheck={false} />
      </label>
      {pattern && preview.length > 0 && (
        <p className="muted snap-preview" data-testid="rename-preview">
          {preview.map(([from, to]) => (
            <span key={from}>
              <span className="mono">{from}</span> → <span className="mono">{to ?? "(pattern not understood here; the cluster decides)"}</span>{" "}
            </span>
          ))}
        </p>
      )}
      {!pattern && (
        <p className="muted">Without a rename, an open index of the same name makes the cluster refuse the restore: close or delete it first.</p>
      )}
      <div className="snap-checks">
        <label>
          <input type="checkbox" checked={globalState} onChange={(e) => setGlobalState(e.target.checked)} aria-label="Restore global state" /> Restore the
          cluster state too (overwrites templates and persistent settings)
        </label>
      </div>
      {renameProblem && <div className="banner banner-error action-error">{renameProblem}</div>}
      {result && (
        <div className={`banner ${result.ok ? "banner-ok" : "banner-error"} action-error`} role={result.ok ? "status" : "alert"} data-testid="restore-result">
          {result.message}
          {result.ok && (
            <>
              {" "}
              <Link to={clusterPath(clusterId, "indices")}>See the indices</Link>
            </>
          )}
        </div>
      )}
      <div className="snap-form-actions">
        <span className="denied-wrap" title={denied ?? undefined}>
          <button
            type="submit"
            className="btn btn-primary"
            disabled={busy || denied !== null || renameProblem !== null || (all.length > 0 && chosen.length === 0 && parsePatterns(extra).length === 0)}
            data-testid="restore-submit"
          >
            {busy ? "Restoring…" : "Restore"}
          </button>
        </span>
      </div>
    </form>
  );
}
