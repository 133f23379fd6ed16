// Shards (issue 19: being built).
import { useTitle } from "../lib/router";
import { EmptyState } from "../components/common";

export function ShardsView({ clusterId }: { clusterId: string; search: string }) {
  useTitle(`${clusterId} · Shards`);
  return <EmptyState title="Shards">Coming soon.</EmptyState>;
}
