// Templates (issue 19: being built).
import { useTitle } from "../lib/router";
import { EmptyState } from "../components/common";

export function TemplatesView({ clusterId }: { clusterId: string }) {
  useTitle(`${clusterId} · Templates`);
  return <EmptyState title="Templates">Coming soon.</EmptyState>;
}
