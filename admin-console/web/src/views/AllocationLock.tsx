// The lock button: shard allocation (`cluster.routing.allocation.enable`, persistent), and
// the nodes an allocation filter drains (`cluster.routing.allocation.exclude.*`), each a link.
import { useEffect, useRef, useState } from "react";
import { api } from "../api/client";
import type { Allocation, AllocationEnable } from "../api/wire";
import { useAsync } from "../lib/useAsync";
import { ACTION_ROLES } from "../lib/access";
import { useClusterAccess } from "../lib/whoami";
import { onSettingsChanged } from "../lib/settingsChanged";
import { LockIcon, UnlockIcon } from "../components/icons";
import { Link } from "../components/Link";
import { clusterPath } from "../lib/router";

const OPTIONS: ReadonlyArray<{ value: AllocationEnable; label: string; help: string }> = [
  { value: "all", label: "All shards", help: "Unlocked: every shard can be allocated" },
  { value: "primaries", label: "Primaries only", help: "For rolling restarts: replicas stay put" },
  { value: "new_primaries", label: "New primaries only", help: "Only primaries of new indices" },
  { value: "none", label: "None", help: "Locked: no shard is allocated" },
];

export function AllocationLock({ clusterId }: { clusterId: string }) {
  const loaded = useAsync((signal) => api.allocation(clusterId, signal), [clusterId], 30_000);
  const [current, setCurrent] = useState<Allocation | undefined>();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const allocation = current ?? loaded.data;
  // The lock needs the operator role: below it the button only shows the setting.
  const denied = useClusterAccess(clusterId).denied(ACTION_ROLES.allocationLock);

  useEffect(() => setCurrent(undefined), [loaded.data]);
  // The settings editor may have changed the allocation (persistent or transient): read it now.
  const { reload } = loaded;
  useEffect(
    () => onSettingsChanged(clusterId, (key) => key.startsWith("cluster.routing.allocation") && reload()),
    [clusterId, reload],
  );

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault(); // this Escape closes the menu, not the console
        setOpen(false);
      }
    };
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey, true);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey, true);
    };
  }, [open]);

  const choose = async (enable: AllocationEnable) => {
    setOpen(false);
    setBusy(true);
    setError(null);
    try {
      setCurrent(await api.setAllocation(clusterId, enable));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const locked = allocation?.locked ?? false;
  const state = allocation
    ? `Shard allocation: ${allocation.enable}${locked ? " (locked)" : ""}`
    : loaded.error
      ? `Allocation setting unavailable: ${loaded.error.message}`
      : "Loading the allocation setting…";
  const title = denied ? `${state}. ${denied}` : state;

  const excluded = allocation?.excluded;
  const filters = excluded ? [...excluded.ips.map((ip) => `ip ${ip}`), ...excluded.hosts.map((host) => `host ${host}`)] : [];
  return (
    // Disabled buttons show no tooltip in every browser: the wrapper carries it too.
    <div className="lock" ref={box} title={denied ? title : undefined}>
      {excluded && (excluded.names.length > 0 || filters.length > 0) && (
        <span className="drain-badge" data-testid="drain-badge" title="Nodes kept empty by cluster.routing.allocation.exclude">
          Draining:{" "}
          {excluded.names.map((name, i) => (
            <span key={name}>
              {i > 0 && ", "}
              <Link to={clusterPath(clusterId, "nodes", name)}>{name}</Link>
            </span>
          ))}
          {filters.length > 0 && `${excluded.names.length ? ", " : ""}${filters.join(", ")}`}
        </span>
      )}
      <button
        className={`btn btn-icon lock-button ${locked ? "locked" : ""}`}
        aria-label={locked ? "Allocation locked" : "Allocation unlocked"}
        aria-haspopup="menu"
        aria-expanded={open}
        title={title}
        disabled={busy || !allocation || denied !== null}
        data-denied={denied ?? undefined}
        onClick={() => setOpen((o) => !o)}
        data-testid="allocation-lock"
        data-enable={allocation?.enable}
      >
        {locked ? <LockIcon /> : <UnlockIcon />}
        {locked && <span className="lock-label">{allocation?.enable}</span>}
      </button>
      {open && allocation && (
        <div className="menu" role="menu">
          <div className="menu-title">Shard allocation</div>
          {OPTIONS.map((o) => (
            <button
              key={o.value}
              role="menuitemradio"
              aria-checked={allocation.enable === o.value}
              className="menu-item"
              onClick={() => void choose(o.value)}
            >
              <span className="menu-check">{allocation.enable === o.value ? "●" : ""}</span>
              <span>
                {o.label}
                <small className="muted">{o.help}</small>
              </span>
            </button>
          ))}
        </div>
      )}
      {error && (
        <div className="lock-error" role="alert" onClick={() => setError(null)}>
          {error}
        </div>
      )}
    </div>
  );
}
