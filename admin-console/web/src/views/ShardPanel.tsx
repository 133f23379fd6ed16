// A copy's detail beside the grid: where it is, its allocation explained in words
// (`GET /shards/explain`), and the "move to node" action (`POST /shards/move`, operator) with
// the nodes that hold no copy of the shard as targets.
import { useEffect, useState } from "react";
import { OpenInConsole } from "../components/OpenInConsole";
import type { GridCopy, NodeDecision, ShardExplanation, ShardGrid } from "../api/wire";
import { shardsApi } from "../api/shards";
import { ACTION_ROLES } from "../lib/access";
import { useAsync } from "../lib/useAsync";
import { useClusterAccess } from "../lib/whoami";
import { ErrorState, Loading } from "../components/common";
import { moveTargets, nodeNamer } from "./shardGridModel";
import type { SelectedCopy } from "./ShardGrid";

interface Props {
  clusterId: string;
  grid: ShardGrid;
  selected: SelectedCopy;
  onClose: () => void;
  /** After a move the cluster accepted: the grid reloads. */
  onMoved: (message: string) => void;
}

/** The copy as the latest grid has it (it may have moved on since it was clicked). */
function currentCopy(grid: ShardGrid, selected: SelectedCopy): GridCopy | undefined {
  const index = grid.indices.find((i) => i.name === selected.index);
  const copies = index?.shards.filter((c) => c.shard === selected.shard && c.primary === selected.primary) ?? [];
  const nodeId = (c: GridCopy) => (c.node === undefined ? null : (grid.nodes[c.node]?.id ?? null));
  return copies.find((c) => nodeId(c) === selected.node) ?? (copies.length === 1 ? copies[0] : undefined);
}

export function ShardPanel({ clusterId, grid, selected, onClose, onMoved }: Props) {
  const copy = currentCopy(grid, selected);
  const nodeName = nodeNamer(grid);
  const nameOf = (id: string) => grid.nodes.find((n) => n.id === id)?.name ?? id;
  const explained = useAsync(
    (signal) => shardsApi.explain(clusterId, { index: selected.index, shard: selected.shard, primary: selected.primary, node: selected.node }, signal),
    [clusterId, selected.index, selected.shard, selected.primary, selected.node, copy?.state],
  );
  const targets = copy ? moveTargets(grid, selected.index, copy) : [];
  const [target, setTarget] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const denied = useClusterAccess(clusterId).denied(ACTION_ROLES.moveShard);

  useEffect(() => {
    setTarget("");
    setError(null);
  }, [selected.index, selected.shard, selected.primary, selected.node]);

  const source = copy?.node === undefined ? undefined : grid.nodes[copy.node];
  const movable = copy?.state === "started" && source !== undefined;
  const chosen = targets.some((t) => t.id === target) ? target : "";

  const move = async () => {
    if (!copy || !source || !chosen) return;
    setBusy(true);
    setError(null);
    try {
      await shardsApi.move(clusterId, { index: selected.index, shard: selected.shard, fromNode: source.id, toNode: chosen });
      onMoved(`Moving ${selected.index} shard ${selected.shard} (${selected.primary ? "primary" : "replica"}) from ${source.name} to ${nameOf(chosen)}.`);
      setTarget("");
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <aside className="shard-panel" aria-label="Shard detail" data-testid="shard-panel">
      <header className="shard-panel-header">
        <h3>
          <span className="mono">{selected.index}</span> · shard {selected.shard} · {selected.primary ? "primary" : "replica"}
        </h3>
        <OpenInConsole
          label="Explain in console"
          request={{
            method: "POST",
            path: "/_cluster/allocation/explain",
            body: { index: selected.index, shard: selected.shard, primary: selected.primary },
          }}
        />
        <button className="btn btn-ghost btn-icon btn-small" onClick={onClose} aria-label="Close the shard detail">
          ×
        </button>
      </header>
      {copy ? (
        <p className="shard-where" data-testid="shard-where">
          <span className={`pill state-${copy.state}`}>{copy.state}</span>{" "}
          {copy.state === "unassigned"
            ? "on no node"
            : copy.state === "relocating"
              ? `on ${nodeName(copy.node)}, moving to ${nodeName(copy.relocatingNode)}`
              : `on ${nodeName(copy.node)}`}
        </p>
      ) : (
        <p className="muted">This copy is no longer where it was; pick it again in the grid.</p>
      )}

      <section className="shard-section">
        <h4>Move to another node</h4>
        {!movable ? (
          <p className="muted small">
            {copy?.state === "unassigned"
              ? "An unassigned copy cannot be moved; see why it is unassigned below, or retry failed allocations."
              : "Only a started copy can be moved; wait until it has finished moving or initialising."}
          </p>
        ) : targets.length === 0 ? (
          <p className="muted small">Every data node already holds a copy of this shard.</p>
        ) : (
          <div className="shard-move">
            <select aria-label="Target node" value={chosen} onChange={(e) => setTarget(e.target.value)} data-testid="move-target" disabled={busy || denied !== null}>
              <option value="">Choose a node…</option>
              {targets.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                  {t.tiers.length ? ` (${t.tiers.join(", ")})` : ""}
                </option>
              ))}
            </select>
            <span className="denied-wrap" title={denied ?? undefined}>
              <button className="btn btn-primary btn-small" onClick={() => void move()} disabled={busy || !chosen || denied !== null} data-testid="move-shard">
                {busy ? "Moving…" : "Move"}
              </button>
            </span>
          </div>
        )}
        {denied && movable && <p className="muted small">{denied}</p>}
        {error && (
          <div className="banner banner-error action-error" role="alert" data-testid="move-error">
            {error}
          </div>
        )}
      </section>

      <section className="shard-section">
        <h4>Allocation, explained</h4>
        {explained.error && <ErrorState error={explained.error} onRetry={explained.reload} />}
        {!explained.data && !explained.error && <Loading what="the explanation" />}
        {explained.data && <Explanation explanation={explained.data} />}
      </section>
    </aside>
  );
}

function Explanation({ explanation }: { explanation: ShardExplanation }) {
  const refusing = explanation.nodes.filter((n) => n.decision !== "yes");
  const accepting = explanation.nodes.filter((n) => n.decision === "yes");
  return (
    <div data-testid="shard-explanation">
      <p className="shard-headline">
        <strong>{explanation.headline}</strong>
      </p>
      {explanation.sentences.length > 0 && (
        <ul className="shard-sentences">
          {explanation.sentences.map((s, i) => (
            <li key={i}>{s}</li>
          ))}
        </ul>
      )}
      {explanation.remainDeciders.length > 0 && (
        <>
          <h5>Why it cannot stay</h5>
          <ul className="shard-sentences">
            {explanation.remainDeciders.map((d, i) => (
              <li key={i}>
                {d.meaning} <span className="muted">({d.explanation})</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {refusing.length > 0 && (
        <>
          <h5>Per node</h5>
          <ul className="shard-nodes" data-testid="shard-node-decisions">
            {refusing.map((n) => (
              <NodeLine key={n.nodeId} node={n} />
            ))}
          </ul>
        </>
      )}
      {accepting.length > 0 && (
        <p className="muted small">
          Accepting: {accepting.map((n) => n.nodeName).join(", ")}.
        </p>
      )}
    </div>
  );
}

function NodeLine({ node }: { node: NodeDecision }) {
  return (
    <li className={`decision-${node.decision}`}>
      <span>{node.sentence}</span>
    </li>
  );
}
