// Cluster settings (issue 19: being built).
import { useTitle } from "../lib/router";
import { EmptyState } from "../components/common";

export function SettingsView({ clusterId }: { clusterId: string }) {
  useTitle(`${clusterId} · Cluster settings`);
  return <EmptyState title="Cluster settings">Coming soon.</EmptyState>;
}
