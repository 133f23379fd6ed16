// The task an operation started (`/clusters/:id/tasks?watch=<task id>`), followed in the Tasks
// view: its progress while it runs, then a notice with its result or the cluster's reason. It
// polls the task's detail every few seconds in the background and stops once the task has
// ended; the rest of the view stays usable meanwhile.
import { useEffect } from "react";
import { tasksApi } from "../api/tasks";
import { useAsync } from "../lib/useAsync";
import { endNotice, taskProgress } from "../manage/operations";

const POLL_MS = 2000;

export function WatchedTask({ clusterId, taskId, onClose }: { clusterId: string; taskId: string; onClose: () => void }) {
  const detail = useAsync((signal) => tasksApi.get(clusterId, taskId, signal), [clusterId, taskId]);
  const ended = detail.data ? endNotice(detail.data) : null;
  // Polling ends with the task.
  usePollUntil(detail.reload, ended === null);
  const progress = detail.data ? taskProgress(detail.data.task) : null;
  const dismiss = (
    <button type="button" className="btn btn-ghost btn-small" onClick={onClose} aria-label="Stop following this task">
      ×
    </button>
  );
  if (ended) {
    return (
      <div className={`banner ${ended.ok ? "banner-ok" : "banner-error"}`} role="status" data-testid="watched-task-ended" data-ok={ended.ok}>
        Task <span className="mono">{taskId}</span>: {ended.text} {dismiss}
      </div>
    );
  }
  return (
    <div className="banner" role="status" data-testid="watched-task">
      Following task <span className="mono">{taskId}</span>
      {detail.data?.task.description ? `: ${detail.data.task.description}` : ""}
      {progress ? <span data-testid="watched-task-progress"> · {progress.text}</span> : detail.error ? ` · ${detail.error.message}` : " · running"}{" "}
      {dismiss}
    </div>
  );
}

/** Calls `reload` every POLL_MS while `active` and the tab is visible. */
function usePollUntil(reload: () => void, active: boolean) {
  useEffect(() => {
    if (!active) return;
    const timer = window.setInterval(() => {
      if (document.visibilityState === "visible") reload();
    }, POLL_MS);
    return () => window.clearInterval(timer);
  }, [reload, active]);
}
