// Index (issue 19: being built).
import { useTitle } from "../lib/router";
import { EmptyState } from "../components/common";

export function IndexDetail({ clusterId }: { clusterId: string; index: string }) {
  useTitle(`${clusterId} · Index`);
  return <EmptyState title="Index">Coming soon.</EmptyState>;
}
