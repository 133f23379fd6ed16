// The console's two shells: a resizable drawer on the right, or a modal (Detach/Attach).
// Escape closes either; width and mode are stored per cluster.
import { useCallback, useEffect, useRef, useState } from "react";
import { clampDrawerWidth, type ConsoleMode, type Prefs } from "../lib/prefs";
import type { HistoryStore } from "./history";
import { ConsolePanel } from "./ConsolePanel";
import { ProductionBadge } from "../components/ChangeReason";
import { useIsProduction } from "../lib/changeReason";
import { AttachIcon, CloseIcon, DetachIcon, TerminalIcon } from "../components/icons";

interface Props {
  clusterId: string;
  clusterName: string;
  prefs: Prefs;
  store: HistoryStore;
  onClose: () => void;
}

export function ConsoleHost({ clusterId, clusterName, prefs, store, onClose }: Props) {
  const production = useIsProduction(clusterId);
  const [mode, setMode] = useState<ConsoleMode>(() => prefs.consoleMode(clusterId));
  const [width, setWidth] = useState(() => prefs.drawerWidth(clusterId, window.innerWidth));
  const [dragging, setDragging] = useState(false);
  const widthRef = useRef(width);
  widthRef.current = width;

  // Another cluster has its own width and mode.
  useEffect(() => {
    setMode(prefs.consoleMode(clusterId));
    setWidth(prefs.drawerWidth(clusterId, window.innerWidth));
  }, [clusterId, prefs]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && !e.defaultPrevented) {
        e.preventDefault();
        onClose();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [onClose]);

  // Keep the drawer within 50% when the window shrinks.
  useEffect(() => {
    const onResize = () => setWidth((w) => clampDrawerWidth(w, window.innerWidth));
    window.addEventListener("resize", onResize);
    return () => window.removeEventListener("resize", onResize);
  }, []);

  const switchMode = (next: ConsoleMode) => {
    setMode(next);
    prefs.setConsoleMode(clusterId, next);
  };

  const startResize = useCallback(
    (e: React.PointerEvent<HTMLDivElement>) => {
      e.preventDefault();
      const handle = e.currentTarget;
      handle.setPointerCapture(e.pointerId);
      setDragging(true);
      const move = (ev: PointerEvent) => setWidth(clampDrawerWidth(window.innerWidth - ev.clientX, window.innerWidth));
      const up = () => {
        handle.removeEventListener("pointermove", move);
        handle.removeEventListener("pointerup", up);
        handle.removeEventListener("pointercancel", up);
        setDragging(false);
        prefs.setDrawerWidth(clusterId, widthRef.current);
      };
      handle.addEventListener("pointermove", move);
      handle.addEventListener("pointerup", up);
      handle.addEventListener("pointercancel", up);
    },
    [clusterId, prefs],
  );

  const resizeByKey = (e: React.KeyboardEvent) => {
    const step = e.shiftKey ? 80 : 20;
    const delta = e.key === "ArrowLeft" ? step : e.key === "ArrowRight" ? -step : 0;
    if (!delta) return;
    e.preventDefault();
    const next = clampDrawerWidth(width + delta, window.innerWidth);
    setWidth(next);
    prefs.setDrawerWidth(clusterId, next);
  };

  const header = (
    <header className="console-header">
      <TerminalIcon />
      <h2>
        Console <span className="muted">· {clusterName}</span>
      </h2>
      {production && <ProductionBadge />}
      <span className="spacer" />
      {mode === "drawer" ? (
        <button className="btn btn-ghost btn-small" onClick={() => switchMode("modal")} title="Open as a window">
          <DetachIcon /> Detach
        </button>
      ) : (
        <button className="btn btn-ghost btn-small" onClick={() => switchMode("drawer")} title="Dock on the right">
          <AttachIcon /> Attach
        </button>
      )}
      <button className="btn btn-ghost btn-icon" onClick={onClose} aria-label="Close console" title="Close (Esc)">
        <CloseIcon />
      </button>
    </header>
  );

  const panel = <ConsolePanel key={clusterId} clusterId={clusterId} clusterName={clusterName} store={store} />;

  if (mode === "modal") {
    return (
      <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
        <div className="console console-modal" role="dialog" aria-modal="true" aria-label="REST console" data-testid="console" data-mode="modal">
          {header}
          {panel}
        </div>
      </div>
    );
  }

  return (
    <aside
      className={`console console-drawer ${dragging ? "dragging" : ""}`}
      style={{ width }}
      aria-label="REST console"
      data-testid="console"
      data-mode="drawer"
    >
      <div
        className="resize-handle"
        role="separator"
        aria-orientation="vertical"
        aria-label="Resize console"
        aria-valuemin={400}
        aria-valuenow={width}
        tabIndex={0}
        onPointerDown={startResize}
        onKeyDown={resizeByKey}
        data-testid="console-resize"
      />
      {header}
      {panel}
    </aside>
  );
}
