// Draining a node from its page: its name goes into the allocation filter
// (`cluster.routing.allocation.exclude._name`, operator), the cluster moves its shards away, and
// the page counts the shards still on it until none is left; Undo lets shards back. The header's
// allocation button lists every drained node (AllocationLock).
import { useEffect, useState } from "react";
import { api } from "../api/client";
import { nodesApi } from "../api/nodes";
import type { Allocation, NodeDetail } from "../api/wire";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { GuardedButton } from "../components/GuardedButton";
import { ACTION_ROLES } from "../lib/access";
import { announceSettingsChanged, onSettingsChanged } from "../lib/settingsChanged";
import { useAsync } from "../lib/useAsync";
import { useClusterAccess } from "../lib/whoami";

const EXCLUDE_NAME = "cluster.routing.allocation.exclude._name";

/** What the page says of a drained node, from the shards still on it. */
export function drainState(shardsLeft: number): string {
  if (shardsLeft === 0) return "Drained: no shard left on this node";
  return `Draining: ${shardsLeft} shard${shardsLeft === 1 ? "" : "s"} still on this node`;
}

export function NodeDrain({ clusterId, node }: { clusterId: string; node: NodeDetail }) {
  const loaded = useAsync((signal) => api.allocation(clusterId, signal), [clusterId], 10_000);
  const [current, setCurrent] = useState<Allocation | undefined>();
  const [confirming, setConfirming] = useState<"drain" | "undo" | null>(null);
  const denied = useClusterAccess(clusterId).denied(ACTION_ROLES.drainNode);
  useEffect(() => setCurrent(undefined), [loaded.data]);
  const { reload } = loaded;
  useEffect(() => onSettingsChanged(clusterId, (key) => key.startsWith("cluster.routing.allocation") && reload()), [clusterId, reload]);

  const excluded = (current ?? loaded.data)?.excluded;
  if (!excluded) return null;
  const draining = excluded.names.includes(node.name);
  const run = async () => {
    const answer = confirming === "drain" ? await nodesApi.drain(clusterId, node.id) : await nodesApi.undoDrain(clusterId, node.id);
    setCurrent(answer);
    setConfirming(null);
    announceSettingsChanged(clusterId, EXCLUDE_NAME);
  };
  return (
    <>
      {draining && (
        <span className={`drain-state${node.shards.length ? "" : " drained"}`} data-testid="node-drain-state">
          {drainState(node.shards.length)}
        </span>
      )}
      <GuardedButton
        className="btn btn-small"
        denied={denied}
        testId={draining ? "node-undo-drain" : "node-drain"}
        title={denied ?? (draining ? "Let shards back onto this node" : "Move every shard off this node")}
        onClick={() => setConfirming(draining ? "undo" : "drain")}
      >
        {draining ? "Undo drain" : "Drain node"}
      </GuardedButton>
      {confirming && (
        <ConfirmDialog
          title={confirming === "drain" ? `Drain ${node.name}?` : `Let shards back onto ${node.name}?`}
          confirmLabel={confirming === "drain" ? "Drain" : "Undo drain"}
          onConfirm={run}
          onCancel={() => setConfirming(null)}
          testId="node-drain-dialog"
        >
          {confirming === "drain" ? (
            <p>
              Adds <span className="mono">{node.name}</span> to <span className="mono">{EXCLUDE_NAME}</span>: the cluster moves its{" "}
              {node.shards.length} shard{node.shards.length === 1 ? "" : "s"} to the other nodes, as far as they have room, and
              allocates nothing new here. The node keeps running; this page counts the shards left.
            </p>
          ) : (
            <p>
              Removes <span className="mono">{node.name}</span> from <span className="mono">{EXCLUDE_NAME}</span>: the cluster may
              allocate shards here again and rebalances onto it.
            </p>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}
