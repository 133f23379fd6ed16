// Node (issue 19: being built).
import { useTitle } from "../lib/router";
import { EmptyState } from "../components/common";

export function NodeDetail({ clusterId }: { clusterId: string; nodeId: string }) {
  useTitle(`${clusterId} · Node`);
  return <EmptyState title="Node">Coming soon.</EmptyState>;
}
