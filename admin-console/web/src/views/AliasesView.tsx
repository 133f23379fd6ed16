// Aliases (issue 19: being built).
import { useTitle } from "../lib/router";
import { EmptyState } from "../components/common";

export function AliasesView({ clusterId }: { clusterId: string }) {
  useTitle(`${clusterId} · Aliases`);
  return <EmptyState title="Aliases">Coming soon.</EmptyState>;
}
