// The "Operations" menu of an index's page: shrink, split, clone, force merge and reindex, each
// through a dialog that checks its input as it is typed (manage/operations.ts) and starts the
// operation as a task (`wait_for_completion=false`, answered 202). The page then shows a notice
// linking to the Tasks view, which follows the task until it ends; nothing here waits for it.
import { useEffect, useRef, useState } from "react";
import { operationsApi } from "../api/operations";
import type { RolledOver, Started } from "../api/wire";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { useClusterAccess } from "../lib/whoami";
import {
  OPERATIONS,
  buildForcemerge,
  buildReindex,
  buildResize,
  shrinkCounts,
  type OperationInfo,
  type SourceFacts,
} from "../manage/operations";
import type { Checked } from "./indexForms";

interface Props {
  clusterId: string;
  source: SourceFacts;
  opensearch: boolean;
  /** The aliases this index is the write index of: each can be rolled over from here. */
  writeAliases: string[];
  onStarted: (started: Started) => void;
  onRolledOver: (rolled: RolledOver) => void;
}

export function OperationsMenu({ clusterId, source, opensearch, writeAliases, onStarted, onRolledOver }: Props) {
  const access = useClusterAccess(clusterId);
  const [menu, setMenu] = useState(false);
  const [open, setOpen] = useState<OperationInfo | null>(null);
  const [rolling, setRolling] = useState<string | null>(null);
  const rolloverDenied = access.denied("operator");
  const anchor = useRef<HTMLSpanElement>(null);

  useEffect(() => {
    if (!menu) return;
    const away = (e: MouseEvent) => {
      if (!anchor.current?.contains(e.target as Node)) setMenu(false);
    };
    document.addEventListener("mousedown", away);
    return () => document.removeEventListener("mousedown", away);
  }, [menu]);

  return (
    <span className="menu-anchor" ref={anchor}>
      <button
        type="button"
        className="btn btn-small"
        aria-haspopup="menu"
        aria-expanded={menu}
        data-testid="operations-menu"
        onClick={() => setMenu((m) => !m)}
      >
        Operations ▾
      </button>
      {menu && (
        <div className="menu index-menu" role="menu">
          {OPERATIONS.map((op) => {
            const why = access.denied(op.role);
            return (
              <button
                key={op.operation}
                type="button"
                role="menuitem"
                className="menu-item"
                disabled={why !== null}
                title={why ?? `${op.label} ${op.hint}`}
                data-testid={`operation-${op.operation}`}
                onClick={() => {
                  setMenu(false);
                  setOpen(op);
                }}
              >
                {op.label}
                <small className="muted">{why ?? op.hint}</small>
              </button>
            );
          })}
          {writeAliases.map((alias) => (
            <button
              key={alias}
              type="button"
              role="menuitem"
              className="menu-item"
              disabled={rolloverDenied !== null}
              title={rolloverDenied ?? `Roll over ${alias}: a new write index now`}
              data-testid="operation-rollover"
              data-alias={alias}
              onClick={() => {
                setMenu(false);
                setRolling(alias);
              }}
            >
              Roll over {alias}…<small className="muted">{rolloverDenied ?? "a new write index for the alias"}</small>
            </button>
          ))}
        </div>
      )}
      {rolling && (
        <ConfirmDialog
          title={`Roll over ${rolling}?`}
          confirmLabel="Roll over"
          testId="rollover-dialog"
          onCancel={() => setRolling(null)}
          onConfirm={async () => {
            const rolled = await operationsApi.rolloverAlias(clusterId, rolling);
            setRolling(null);
            onRolledOver(rolled);
          }}
        >
          <p>
            The cluster makes a new index (the next number after {source.name}) and points {rolling}'s writes at it; {source.name} keeps
            its documents and stays searchable through the alias.
          </p>
        </ConfirmDialog>
      )}
      {open && (
        <OperationDialog
          clusterId={clusterId}
          info={open}
          source={source}
          opensearch={opensearch}
          onCancel={() => setOpen(null)}
          onStarted={(started) => {
            setOpen(null);
            onStarted(started);
          }}
        />
      )}
    </span>
  );
}

function OperationDialog({
  clusterId,
  info,
  source,
  opensearch,
  onCancel,
  onStarted,
}: {
  clusterId: string;
  info: OperationInfo;
  source: SourceFacts;
  opensearch: boolean;
  onCancel: () => void;
  onStarted: (started: Started) => void;
}) {
  const kind = info.operation;
  const [target, setTarget] = useState("");
  const [shards, setShards] = useState(() => (kind === "shrink" ? String(shrinkCounts(source.shards).at(-1) ?? "") : kind === "split" ? String(source.shards * 2) : ""));
  const [replicas, setReplicas] = useState("");
  const [segments, setSegments] = useState("1");
  const [rate, setRate] = useState("");
  const [touched, setTouched] = useState(false);

  const checked: Checked<unknown> =
    kind === "forcemerge"
      ? buildForcemerge(segments)
      : kind === "reindex"
        ? buildReindex(source.name, { dest: target, requestsPerSecond: rate }, opensearch)
        : buildResize(kind, source, { target, shards, replicas }, opensearch);
  const errors = checked.ok ? [] : checked.errors;

  const start = async () => {
    setTouched(true);
    const started =
      kind === "forcemerge"
        ? await operationsApi.forcemerge(clusterId, source.name, must(buildForcemerge(segments)))
        : kind === "reindex"
          ? await operationsApi.reindex(clusterId, must(buildReindex(source.name, { dest: target, requestsPerSecond: rate }, opensearch)))
          : await operationsApi.resize(clusterId, kind, source.name, must(buildResize(kind, source, { target, shards, replicas }, opensearch)));
    onStarted(started);
  };

  const field = (label: string, value: string, set: (v: string) => void, testId: string, placeholder?: string) => (
    <label className="field">
      {label}
      <input
        className="mono"
        value={value}
        placeholder={placeholder}
        onChange={(e) => {
          set(e.target.value);
          setTouched(true);
        }}
        data-testid={testId}
        autoComplete="off"
        spellCheck={false}
      />
    </label>
  );

  return (
    <ConfirmDialog title={`${info.label.replace("…", "")} ${source.name}`} confirmLabel="Start" testId="operation-dialog" onCancel={onCancel} onConfirm={start}>
      <p className="muted">
        Runs as a task on the cluster ({info.hint}); the Tasks view follows it and says when it ends.
        {kind !== "forcemerge" && kind !== "reindex" && ` ${source.name} has ${source.shards} primary shard${source.shards === 1 ? "" : "s"}.`}
      </p>
      {(kind === "shrink" || kind === "split" || kind === "clone" || kind === "reindex") &&
        field(kind === "reindex" ? "Destination index" : "Target index", target, setTarget, "operation-target", `${source.name}-${kind}`)}
      {(kind === "shrink" || kind === "split") && field("Primary shards", shards, setShards, "operation-shards")}
      {(kind === "shrink" || kind === "split" || kind === "clone") && field("Replicas (the source's when empty)", replicas, setReplicas, "operation-replicas")}
      {kind === "forcemerge" && field("Segments per shard at most", segments, setSegments, "operation-segments")}
      {kind === "reindex" && field("Documents a second (unthrottled when empty)", rate, setRate, "operation-rate")}
      {touched && errors.length > 0 && (
        <ul className="banner banner-warn" data-testid="operation-problems">
          {errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      )}
    </ConfirmDialog>
  );
}

/** The checked value; the problems as the dialog's error otherwise. */
function must<T>(checked: Checked<T>): T {
  if (!checked.ok) throw new Error(checked.errors.join(" "));
  return checked.value;
}
