// Snapshots (issue 19: being built).
import { useTitle } from "../lib/router";
import { EmptyState } from "../components/common";

export function SnapshotsView({ clusterId }: { clusterId: string }) {
  useTitle(`${clusterId} · Snapshots`);
  return <EmptyState title="Snapshots">Coming soon.</EmptyState>;
}
