// Tasks: what the cluster is running, as parent/child trees, longest first, with
// filters (action patterns, nodes, cancellable only, running longer than), refreshed every few
// seconds while the tab is visible; a task's detail; cancelling one (operator).
import { useEffect, useMemo, useRef, useState } from "react";
import { OpenInConsole } from "../components/OpenInConsole";
import { pathOf } from "../console/tabs";
import { ApiError } from "../api/client";
import { tasksApi, type TaskFilters } from "../api/tasks";
import type { Task } from "../api/wire";
import { useAsync } from "../lib/useAsync";
import { navigate, useTitle } from "../lib/router";
import { ACTION_ROLES } from "../lib/access";
import { useClusterAccess } from "../lib/whoami";
import { formatLocalTime } from "../lib/format";
import { Card, EmptyState, ErrorState, Loading } from "../components/common";
import { formatRunning, nodeGroupRows, parseMinRunning, readTaskUrl, shortAction, taskRows, writeTaskUrl } from "../manage/tasks";
import { useVirtualRows } from "../components/useVirtualRows";
import { SpacerRow } from "../components/SpacerRow";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { taskProgress } from "../manage/operations";
import { WatchedTask } from "./WatchedTask";
import "../styles/cluster-ops.css";

const REFRESH_MS = 3000;

/** A row of the table: a node's heading (grouping by node) or a task. */
type Row =
  | { kind: "node"; node: string; name: string; count: number; cancellable: number }
  | { kind: "task"; task: Task; depth: number; descendants: number; hasChildren: boolean };
const ROW_HEIGHT = 34;

export function TasksView({ clusterId, search }: { clusterId: string; search: string }) {
  useTitle(`${clusterId} · Tasks`);
  // The filters start from the URL (a shared link) and are written back to it.
  const [initial] = useState(() => readTaskUrl(search));
  const [draft, setDraft] = useState({ actions: initial.actions, nodes: initial.nodes, minRunning: initial.running });
  const [filters, setFilters] = useState<TaskFilters>(() => {
    const running = parseMinRunning(initial.running);
    return { actions: initial.actions, nodes: initial.nodes, cancellableOnly: initial.cancellable, minRunningMs: running.ok ? running.ms : 0 };
  });
  const [paused, setPaused] = useState(false);
  const [grouping, setGrouping] = useState<"parent" | "node">(initial.group);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [selected, setSelected] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState<Task | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [watched, setWatched] = useState(() => new URLSearchParams(search).get("watch"));
  const minRunning = parseMinRunning(draft.minRunning);
  const denied = useClusterAccess(clusterId).denied(ACTION_ROLES.cancelTask);

  // Typing settles for a moment before the list is asked again.
  useEffect(() => {
    const timer = window.setTimeout(() => {
      setFilters((f) => ({
        ...f,
        actions: draft.actions,
        nodes: draft.nodes,
        minRunningMs: minRunning.ok ? minRunning.ms : f.minRunningMs,
      }));
    }, 300);
    return () => window.clearTimeout(timer);
  }, [draft.actions, draft.nodes, minRunning.ok, minRunning.ok ? minRunning.ms : 0]);

  useEffect(() => {
    const next = writeTaskUrl(window.location.search, {
      actions: filters.actions,
      nodes: filters.nodes,
      running: draft.minRunning,
      cancellable: filters.cancellableOnly,
      group: grouping,
    });
    if (next !== window.location.search) navigate(window.location.pathname + next, { replace: true });
  }, [filters, grouping, draft.minRunning]);

  // useAsync polls only while the tab is visible.
  const list = useAsync((signal) => tasksApi.list(clusterId, filters, signal), [clusterId, filters], paused ? undefined : REFRESH_MS);
  const tasks = list.data?.tasks;
  const rows = useMemo((): Row[] => {
    if (!tasks) return [];
    if (grouping === "node") return nodeGroupRows(tasks).map((row) => (row.kind === "node" ? row : { ...row, depth: 0, descendants: 0, hasChildren: false }));
    return taskRows(tasks, collapsed).map((row) => ({ kind: "task", ...row }));
  }, [tasks, collapsed, grouping]);
  const scroller = useRef<HTMLDivElement>(null);
  const range = useVirtualRows(scroller, rows.length, ROW_HEIGHT);
  const toggle = (id: string) =>
    setCollapsed((c) => {
      const next = new Set(c);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <div className="view" data-testid="tasks-view">
      <div className="toolbar">
        <input
          className="filter mono"
          placeholder="Actions, e.g. *reindex,indices:data/write/*"
          aria-label="Filter by action"
          value={draft.actions}
          onChange={(e) => setDraft({ ...draft, actions: e.target.value })}
          data-testid="tasks-actions"
        />
        <input
          className="mono"
          placeholder="Nodes (ids or names)"
          aria-label="Filter by node"
          value={draft.nodes}
          onChange={(e) => setDraft({ ...draft, nodes: e.target.value })}
          data-testid="tasks-nodes"
        />
        <input
          className={`mono ${minRunning.ok ? "" : "invalid"}`}
          style={{ width: 150 }}
          placeholder="Running > e.g. 30s"
          aria-label="Running longer than"
          title={minRunning.ok ? "Only tasks running at least this long (500ms, 30s, 5m, 2h)" : minRunning.error}
          value={draft.minRunning}
          onChange={(e) => setDraft({ ...draft, minRunning: e.target.value })}
          data-testid="tasks-min-running"
        />
        <label className="ops-check">
          <input
            type="checkbox"
            checked={filters.cancellableOnly}
            onChange={(e) => setFilters({ ...filters, cancellableOnly: e.target.checked })}
            data-testid="tasks-cancellable"
          />
          Cancellable only
        </label>
        <div className="segmented" role="group" aria-label="Group tasks">
          <button className={grouping === "parent" ? "active" : ""} aria-pressed={grouping === "parent"} onClick={() => setGrouping("parent")} data-testid="tasks-group-parent">
            Parent/child
          </button>
          <button className={grouping === "node" ? "active" : ""} aria-pressed={grouping === "node"} onClick={() => setGrouping("node")} data-testid="tasks-group-node">
            By node
          </button>
        </div>
        <span className="spacer" />
        <span className="muted" data-testid="tasks-total">
          {tasks ? `${tasks.length} task${tasks.length === 1 ? "" : "s"}` : ""}
        </span>
        <button
          className="btn btn-small"
          onClick={() => setPaused(!paused)}
          title={paused ? "Refresh every 3 s again" : "Stop refreshing (the list refreshes every 3 s while this tab is visible)"}
          data-testid="tasks-pause"
        >
          {paused ? "Resume" : "Pause"}
        </button>
        <button className="btn btn-small" onClick={list.reload}>
          Refresh
        </button>
      </div>
      {!minRunning.ok && (
        <div className="banner banner-warn" role="alert">
          {minRunning.error}
        </div>
      )}
      {watched && (
        <WatchedTask
          clusterId={clusterId}
          taskId={watched}
          onClose={() => {
            setWatched(null);
            const params = new URLSearchParams(window.location.search);
            params.delete("watch");
            const rest = params.toString();
            navigate(window.location.pathname + (rest ? `?${rest}` : ""), { replace: true });
          }}
        />
      )}
      {notice && (
        <div className="banner banner-ok" role="status" data-testid="tasks-notice" onClick={() => setNotice(null)}>
          {notice}
        </div>
      )}
      {list.data && list.data.nodeFailures.length > 0 && (
        <div className="banner banner-warn" role="alert">
          Some nodes did not answer; the list is partial: {list.data.nodeFailures.join("; ")}
        </div>
      )}
      {list.error && list.data && (
        <div className="banner banner-error" role="alert">
          The last refresh failed: {list.error.message}
        </div>
      )}
      {!list.data && list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : !list.data ? (
        <Loading what="tasks" />
      ) : rows.length === 0 ? (
        <EmptyState title="No tasks match">Clear the filters to see every running task.</EmptyState>
      ) : (
        <div className="ops-split">
          <div className="table-wrap ops-scroller" ref={scroller}>
            <table className="table" data-testid="tasks-table">
              <thead>
                <tr>
                  <th>Action</th>
                  <th>Node</th>
                  <th className="num">Running</th>
                  <th>Description</th>
                  <th className="row-actions">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                <SpacerRow height={range.before} columns={5} />
                {rows.slice(range.start, range.end).map((row) =>
                  row.kind === "node" ? (
                    <tr key={`node:${row.node}`} className="ops-node-row" data-testid="task-node-row" data-node={row.node}>
                      <td colSpan={5}>
                        <strong>{row.name}</strong>{" "}
                        <span className="muted">
                          {row.count} task{row.count === 1 ? "" : "s"}, {row.cancellable} cancellable
                        </span>
                      </td>
                    </tr>
                  ) : (
                    <TaskRowView
                      key={row.task.id}
                      row={row}
                      selected={selected === row.task.id}
                      collapsed={collapsed.has(row.task.id)}
                      denied={denied}
                      onSelect={() => setSelected(row.task.id)}
                      onToggle={() => toggle(row.task.id)}
                      onCancel={() => setCancelling(row.task)}
                    />
                  ),
                )}
                <SpacerRow height={range.after} columns={5} />
              </tbody>
            </table>
          </div>
          {selected && (
            <TaskDetailCard
              clusterId={clusterId}
              taskId={selected}
              listed={tasks?.find((t) => t.id === selected)}
              childTasks={tasks?.filter((t) => t.parentTaskId === selected) ?? []}
              paused={paused}
              onClose={() => setSelected(null)}
              onSelect={setSelected}
            />
          )}
        </div>
      )}
      {cancelling && (
        <ConfirmDialog
          title={`Cancel task ${cancelling.id}?`}
          confirmLabel="Cancel task"
          danger
          testId="task-cancel-dialog"
          onCancel={() => setCancelling(null)}
          onConfirm={async () => {
            const result = await tasksApi.cancel(clusterId, cancelling.id);
            setCancelling(null);
            setNotice(`Cancelled ${result.cancelled.map((t) => t.id).join(", ")}: it stops as soon as it can.`);
            list.reload();
          }}
        >
          <p>
            <span className="mono">{cancelling.action}</span> on {cancelling.nodeName ?? cancelling.node}, running for{" "}
            {formatRunning(cancelling.runningTimeNanos)}.
          </p>
          {cancelling.description && <p className="muted">{cancelling.description}</p>}
          {!cancelling.cancellable && (
            <div className="banner banner-warn">The cluster reports this task as not cancellable: it will likely refuse, saying why.</div>
          )}
          <p className="muted">Work the task has done stays done (a reindex keeps the documents it wrote); its child tasks are cancelled with it.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function TaskDetailCard({
  clusterId,
  taskId,
  listed,
  childTasks,
  paused,
  onClose,
  onSelect,
}: {
  clusterId: string;
  taskId: string;
  listed: Task | undefined;
  childTasks: Task[];
  paused: boolean;
  onClose: () => void;
  onSelect: (id: string) => void;
}) {
  const detail = useAsync((signal) => tasksApi.get(clusterId, taskId, signal), [clusterId, taskId], paused ? undefined : REFRESH_MS);
  const task = detail.data?.task ?? listed;
  return (
    <Card
      title={<span className="mono">{taskId}</span>}
      actions={
        <button className="btn btn-small" onClick={onClose} aria-label="Close the task detail">
          Close
        </button>
      }
      testId="task-detail"
    >
      {detail.error instanceof ApiError && detail.error.status === 404 && !listed ? (
        <EmptyState title="This task has ended">The cluster no longer runs it (finished or cancelled).</EmptyState>
      ) : !task && detail.error ? (
        <ErrorState error={detail.error} />
      ) : !task ? (
        <Loading what="the task" />
      ) : (
        <>
          <dl className="ops-facts">
            <dt>Action</dt>
            <dd className="mono">{task.action}</dd>
            <dt>Node</dt>
            <dd>{listed?.nodeName ?? task.node}</dd>
            <dt>Type</dt>
            <dd>{task.type}</dd>
            <dt>Running</dt>
            <dd data-testid="task-detail-running">{formatRunning(task.runningTimeNanos)}</dd>
            {task.startTimeMillis != null && (
              <>
                <dt>Started</dt>
                <dd>{formatLocalTime(task.startTimeMillis)}</dd>
              </>
            )}
            <dt>State</dt>
            <dd>
              {detail.data?.completed ? "completed" : task.cancelled ? "cancelled, stopping" : "running"}
              {task.cancellable ? "" : " · not cancellable"}
            </dd>
            {task.parentTaskId && (
              <>
                <dt>Parent</dt>
                <dd>
                  <button className="btn btn-ghost btn-small mono" onClick={() => onSelect(task.parentTaskId!)}>
                    {task.parentTaskId}
                  </button>
                </dd>
              </>
            )}
            {childTasks.length > 0 && (
              <>
                <dt>Children</dt>
                <dd>{childTasks.length}</dd>
              </>
            )}
            {task.description && (
              <>
                <dt>Description</dt>
                <dd data-testid="task-detail-description">{task.description}</dd>
              </>
            )}
          </dl>
          {Object.keys(task.headers).length > 0 && (
            <>
              <h4>Headers</h4>
              <dl className="ops-facts">
                {Object.entries(task.headers).map(([name, value]) => (
                  <FactPair key={name} name={name} value={value} />
                ))}
              </dl>
            </>
          )}
          {task.status != null && (
            <>
              <h4>Status</h4>
              <pre className="ops-json mono">{JSON.stringify(task.status, null, 2)}</pre>
            </>
          )}
          {detail.data?.error != null && (
            <>
              <h4>Error</h4>
              <pre className="ops-json mono">{JSON.stringify(detail.data.error, null, 2)}</pre>
            </>
          )}
          {detail.error && <p className="muted">The detail could not be read again: {detail.error.message}</p>}
        </>
      )}
    </Card>
  );
}

function FactPair({ name, value }: { name: string; value: string }) {
  return (
    <>
      <dt className="mono">{name}</dt>
      <dd className="mono">{value}</dd>
    </>
  );
}

function TaskRowView({
  row: { task, depth, descendants, hasChildren },
  selected,
  collapsed,
  denied,
  onSelect,
  onToggle,
  onCancel,
}: {
  row: { task: Task; depth: number; descendants: number; hasChildren: boolean };
  selected: boolean;
  collapsed: boolean;
  denied: string | null;
  onSelect: () => void;
  onToggle: () => void;
  onCancel: () => void;
}) {
  const progress = taskProgress(task);
  return (
    <tr className={`ops-row ${selected ? "active" : ""}`} onClick={onSelect} data-testid="task-row" data-task-id={task.id}>
      <td title={task.action}>
        <span className="ops-tree" style={{ paddingLeft: depth * 16 }}>
          {hasChildren ? (
            <button
              className="ops-toggle"
              aria-label={collapsed ? `Show ${descendants} child tasks` : "Hide child tasks"}
              aria-expanded={!collapsed}
              onClick={(e) => {
                e.stopPropagation();
                onToggle();
              }}
            >
              {collapsed ? "▸" : "▾"}
            </button>
          ) : (
            <span className="ops-toggle" aria-hidden />
          )}
          <span className="mono">{shortAction(task.action)}</span>
          {collapsed && <span className="pill">+{descendants}</span>}
          {task.cancelled && <span className="pill ops-cancelled">cancelled</span>}
        </span>
      </td>
      <td>{task.nodeName ?? task.node}</td>
      <td className="num">{formatRunning(task.runningTimeNanos)}</td>
      <td className="ops-ellipsis muted" title={task.description ?? undefined}>
        {progress && (
          <span className="pill" data-testid="task-progress">
            {progress.text}
          </span>
        )}{" "}
        {task.description ?? ""}
      </td>
      <td className="row-actions" title={denied ?? undefined}>
        <OpenInConsole label="Console" request={{ method: "GET", path: pathOf("_tasks", task.id) }} />
        <button
          className="btn btn-small"
          disabled={denied !== null || task.cancelled}
          data-denied={denied ?? undefined}
          title={denied ?? (task.cancellable ? "Cancel this task" : "The cluster reports this task as not cancellable")}
          onClick={(e) => {
            e.stopPropagation();
            onCancel();
          }}
          data-testid="task-cancel"
        >
          Cancel
        </button>
      </td>
    </tr>
  );
}
