// Tasks (issue 19: being built).
import { useTitle } from "../lib/router";
import { EmptyState } from "../components/common";

export function TasksView({ clusterId }: { clusterId: string; search: string }) {
  useTitle(`${clusterId} · Tasks`);
  return <EmptyState title="Tasks">Coming soon.</EmptyState>;
}
