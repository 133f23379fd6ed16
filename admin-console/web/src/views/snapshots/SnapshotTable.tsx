// The snapshots of one repository, newest first: a filter, "Take snapshot", and a virtualised
// table (only the rows in view are in the DOM, so thousands of snapshots stay smooth).
import { useLayoutEffect, useRef, useState } from "react";
import type { SnapshotRow, SnapshotState } from "../../api/wire";
import { snapshotsApi } from "../../api/snapshots";
import { ACTION_ROLES } from "../../lib/access";
import { useClusterAccess } from "../../lib/whoami";
import { formatCount, formatLocalTime } from "../../lib/format";
import { EmptyState } from "../../components/common";
import { defaultSnapshotName, filterSnapshots, formatElapsed, nameProblem, parsePatterns, visibleRange } from "./logic";

const ROW_HEIGHT = 36;
const VIEWPORT = 440;

interface Props {
  clusterId: string;
  repo: string;
  snapshots: SnapshotRow[];
  selected: string | null;
  onSelect: (snapshot: string) => void;
  onTaken: (name: string) => void;
}

export function StatePill({ state }: { state: SnapshotState }) {
  return (
    <span className={`pill snap-state snap-state-${state.toLowerCase()}`} data-state={state}>
      {state === "IN_PROGRESS" ? "in progress" : state.toLowerCase()}
    </span>
  );
}

export function SnapshotTable({ clusterId, repo, snapshots, selected, onSelect, onTaken }: Props) {
  const denied = useClusterAccess(clusterId).denied(ACTION_ROLES.createSnapshot);
  const [filter, setFilter] = useState("");
  const [taking, setTaking] = useState(false);
  const [scrollTop, setScrollTop] = useState(0);
  const scroller = useRef<HTMLDivElement>(null);
  const rows = filterSnapshots(snapshots, filter);
  const { start, end } = visibleRange(scrollTop, VIEWPORT, ROW_HEIGHT, rows.length);

  // A new filter starts at the top.
  useLayoutEffect(() => {
    if (scroller.current) scroller.current.scrollTop = 0;
    setScrollTop(0);
  }, [filter, repo]);

  return (
    <div data-testid="snapshots">
      <div className="toolbar">
        <input
          className="filter"
          type="search"
          placeholder="Filter snapshots by name"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          aria-label="Filter snapshots"
        />
        <span className="muted" data-testid="snapshots-total">
          {formatCount(rows.length)} {filter ? "matching " : ""}snapshot{rows.length === 1 ? "" : "s"}
        </span>
        <span className="spacer" />
        <span className="denied-wrap" title={denied ?? undefined}>
          <button className="btn btn-primary btn-small" disabled={denied !== null} onClick={() => setTaking((t) => !t)} data-testid="take-snapshot">
            Take snapshot
          </button>
        </span>
      </div>
      {taking && (
        <TakeForm
          clusterId={clusterId}
          repo={repo}
          onDone={(name) => {
            setTaking(false);
            onTaken(name);
          }}
          onCancel={() => setTaking(false)}
        />
      )}
      {rows.length === 0 ? (
        <EmptyState title={filter ? `No snapshot matches "${filter}"` : `No snapshot in ${repo} yet`}>
          {filter ? "Try a shorter filter." : "Take one with the button above."}
        </EmptyState>
      ) : (
        <div
          className="table-wrap snap-scroller"
          ref={scroller}
          style={{ maxHeight: VIEWPORT }}
          onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        >
          <table className="table snap-table" data-testid="snapshots-table" data-rows={rows.length}>
            <thead>
              <tr>
                <th>Snapshot</th>
                <th>State</th>
                <th>Started</th>
                <th>Ended</th>
                <th className="num">Duration</th>
                <th className="num">Indices</th>
                <th className="num">Shards</th>
                <th className="num">Failed</th>
                <th>Global state</th>
              </tr>
            </thead>
            <tbody>
              {start > 0 && <tr aria-hidden style={{ height: start * ROW_HEIGHT }} />}
              {rows.slice(start, end).map((s) => (
                <tr
                  key={s.name}
                  className={`snap-row ${s.name === selected ? "active" : ""}`}
                  style={{ height: ROW_HEIGHT }}
                  onClick={() => onSelect(s.name)}
                  data-testid={`snapshot-${s.name}`}
                  data-state={s.state}
                  aria-selected={s.name === selected}
                >
                  <td className="mono">
                    <button className="snap-link" onClick={() => onSelect(s.name)}>
                      {s.name}
                    </button>
                  </td>
                  <td>
                    <StatePill state={s.state} />
                  </td>
                  <td>{s.startMillis ? formatLocalTime(s.startMillis) : "–"}</td>
                  <td>{s.endMillis ? formatLocalTime(s.endMillis) : "–"}</td>
                  <td className="num">{formatElapsed(s.durationMillis)}</td>
                  <td className="num">{formatCount(s.indexCount)}</td>
                  <td className="num">{formatCount(s.shardsTotal)}</td>
                  <td className={`num ${s.shardsFailed > 0 ? "snap-failed" : ""}`}>{formatCount(s.shardsFailed)}</td>
                  <td>{s.includeGlobalState == null ? "–" : s.includeGlobalState ? "yes" : "no"}</td>
                </tr>
              ))}
              {end < rows.length && <tr aria-hidden style={{ height: (rows.length - end) * ROW_HEIGHT }} />}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function TakeForm({ clusterId, repo, onDone, onCancel }: { clusterId: string; repo: string; onDone: (name: string) => void; onCancel: () => void }) {
  const [name, setName] = useState(() => defaultSnapshotName(new Date()));
  const [indices, setIndices] = useState("");
  const [globalState, setGlobalState] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const problem = nameProblem(name, "snapshot");

  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      const patterns = parsePatterns(indices);
      const answer = await snapshotsApi.create(clusterId, repo, {
        name,
        ...(patterns.length ? { indices: patterns } : {}),
        includeGlobalState: globalState,
      });
      onDone(answer.name);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="snap-form"
      data-testid="take-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label className="snap-field">
        <span>Name</span>
        <input value={name} onChange={(e) => setName(e.target.value)} aria-label="Snapshot name" spellCheck={false} />
      </label>
      <label className="snap-field snap-field-wide">
        <span>Indices</span>
        <input
          value={indices}
          onChange={(e) => setIndices(e.target.value)}
          aria-label="Indices to snapshot"
          placeholder="All open indices; or names and patterns: logs-*, books, -logs-old"
          spellCheck={false}
        />
      </label>
      <div className="snap-checks">
        <label>
          <input type="checkbox" checked={globalState} onChange={(e) => setGlobalState(e.target.checked)} aria-label="Include global state" /> Include the
          cluster state (templates, persistent settings)
        </label>
      </div>
      {(problem || error) && (
        <div className="banner banner-error action-error" role="alert" data-testid="take-error">
          {problem ?? error}
        </div>
      )}
      <div className="snap-form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || problem !== null} data-testid="take-submit">
          {busy ? "Starting…" : "Take snapshot"}
        </button>
      </div>
    </form>
  );
}
