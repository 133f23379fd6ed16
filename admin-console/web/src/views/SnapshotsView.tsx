// Snapshots: the cluster's repositories, the snapshots of the chosen one, and one snapshot's
// progress, restore and deletion. The chosen repository and snapshot live in the URL
// (`?repo=backups&snapshot=nightly-1`).
import { useEffect, useState } from "react";
import { snapshotsApi } from "../api/snapshots";
import { useAsync } from "../lib/useAsync";
import { navigate, useLocation, useTitle } from "../lib/router";
import { ErrorState, Loading } from "../components/common";
import { Repositories } from "./snapshots/Repositories";
import { SnapshotTable } from "./snapshots/SnapshotTable";
import { SnapshotPanel } from "./snapshots/SnapshotPanel";
import { isRunning } from "./snapshots/logic";
import "../styles/snapshots.css";

export function SnapshotsView({ clusterId }: { clusterId: string }) {
  useTitle(`${clusterId} · Snapshots`);
  const { pathname, search } = useLocation();
  const params = new URLSearchParams(search);
  const repoParam = params.get("repo");
  const snapshotParam = params.get("snapshot");
  const [notice, setNotice] = useState<string | null>(null);

  const repositories = useAsync((signal) => snapshotsApi.repositories(clusterId, signal), [clusterId], 60_000);
  const repos = repositories.data;
  // The URL's repository, else the first one.
  const repo = repos?.some((r) => r.name === repoParam) ? repoParam : (repos?.[0]?.name ?? null);

  const snapshots = useAsync(
    (signal) => (repo ? snapshotsApi.snapshots(clusterId, repo, signal) : Promise.resolve([])),
    [clusterId, repo],
    // A running snapshot is followed in the list too.
    undefined,
  );
  const anyRunning = snapshots.data?.some((s) => isRunning(s.state)) ?? false;
  useEffect(() => {
    if (!anyRunning) return;
    const timer = window.setInterval(snapshots.reload, 2000);
    return () => window.clearInterval(timer);
  }, [anyRunning, snapshots.reload]);

  const go = (next: { repo?: string | null; snapshot?: string | null }) => {
    const q = new URLSearchParams(search);
    for (const [key, value] of Object.entries(next)) {
      if (value) q.set(key, value);
      else q.delete(key);
    }
    const text = q.toString();
    navigate(pathname + (text ? `?${text}` : ""));
  };

  return (
    <div className="snap-view" data-testid="snapshots-view">
      {notice && (
        <div className="banner banner-ok action-error" role="status" data-testid="snapshots-notice" onClick={() => setNotice(null)}>
          {notice}
        </div>
      )}
      {repositories.error && <ErrorState error={repositories.error} onRetry={repositories.reload} />}
      {!repos && !repositories.error && <Loading what="repositories" />}
      {repos && (
        <div className="snap-layout">
          <Repositories
            clusterId={clusterId}
            repositories={repos}
            selected={repo}
            onSelect={(name) => go({ repo: name, snapshot: null })}
            onChanged={(message) => {
              setNotice(message);
              repositories.reload();
            }}
          />
          <div className="snap-main">
            {repo && (
              <>
                {snapshots.error && <ErrorState error={snapshots.error} onRetry={snapshots.reload} />}
                {!snapshots.data && !snapshots.error && <Loading what="snapshots" />}
                {snapshots.data && (
                  <SnapshotTable
                    clusterId={clusterId}
                    repo={repo}
                    snapshots={snapshots.data}
                    selected={snapshotParam}
                    onSelect={(name) => go({ repo, snapshot: name })}
                    onTaken={(name) => {
                      setNotice(`Snapshot ${name} started.`);
                      snapshots.reload();
                      go({ repo, snapshot: name });
                    }}
                  />
                )}
                {snapshotParam && (
                  <SnapshotPanel
                    key={`${repo}/${snapshotParam}`}
                    clusterId={clusterId}
                    repo={repo}
                    name={snapshotParam}
                    onClose={() => go({ snapshot: null })}
                    onStateChange={snapshots.reload}
                    onDeleted={(name) => {
                      setNotice(`Snapshot ${name} deleted.`);
                      snapshots.reload();
                      go({ snapshot: null });
                    }}
                  />
                )}
              </>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
