// The shard grid itself: rows (an "unassigned" row, then the nodes, under a header per data tier
// when the cluster has tiers) × columns (indices), with
// only the window in view in the DOM, in both directions, so 2,000 indices × 30 nodes renders
// as a few hundred cells. The column headers and the row headers stay in place while scrolling.
// A recovering copy's chip carries its progress (its percent of bytes and a thin bar; percent,
// stage, bytes and files in its tooltip).
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { GridNode, Recovery } from "../api/wire";
import { Link } from "../components/Link";
import { StarIcon } from "../components/icons";
import { clusterPath } from "../lib/router";
import {
  SIZES,
  describeCopy,
  offsetsOf,
  rowHeights,
  visibleFixed,
  visibleRange,
  type CellCopy,
  type GridLayout,
  type Row,
} from "./shardGridModel";
import { recoveryLine, recoveryOf } from "./recoveryModel";

export interface SelectedCopy {
  index: string;
  shard: number;
  primary: boolean;
  /** The node holding it (null when unassigned). */
  node: string | null;
}

export const sameCopy = (a: SelectedCopy | null, chip: CellCopy) =>
  a !== null && a.index === chip.index && a.shard === chip.copy.shard && a.primary === chip.copy.primary && a.node === chip.nodeId;

interface Props {
  clusterId: string;
  layout: GridLayout;
  nodes: GridNode[];
  selected: SelectedCopy | null;
  onSelect: (chip: CellCopy) => void;
  /** Recoveries in progress by copy (`recoveriesByCopy`): shown on relocating and initialising chips. */
  recoveries?: ReadonlyMap<string, Recovery>;
}

export function ShardGrid({ clusterId, layout, nodes, selected, onSelect, recoveries }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, left: 0, width: 1200, height: 640 });
  const frame = useRef(0);

  const measure = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    setView({ top: el.scrollTop, left: el.scrollLeft, width: el.clientWidth, height: el.clientHeight });
  }, []);

  useLayoutEffect(() => {
    measure();
    const el = scroller.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [measure]);

  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  const onScroll = () => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(measure);
  };

  const heights = useMemo(() => rowHeights(layout), [layout]);
  const offsets = useMemo(() => offsetsOf(heights), [heights]);
  const nodeName = useCallback(
    (position: number | undefined) => (position === undefined ? "no node" : (nodes[position]?.name ?? `node #${position}`)),
    [nodes],
  );

  const { rows, columns } = layout;
  const width = SIZES.rowHeader + columns.length * SIZES.columnWidth;
  const height = SIZES.columnHeader + offsets[rows.length];
  const [r0, r1] = visibleRange(offsets, view.top, Math.max(0, view.height - SIZES.columnHeader), 3);
  const [c0, c1] = visibleFixed(columns.length, SIZES.columnWidth, view.left, Math.max(0, view.width - SIZES.rowHeader), 2);
  const visibleColumns: number[] = [];
  for (let c = c0; c < c1; c++) visibleColumns.push(c);

  return (
    <div
      className="shard-grid-scroll"
      ref={scroller}
      onScroll={onScroll}
      role="grid"
      aria-label="Shards by node and index"
      aria-rowcount={rows.length + 1}
      aria-colcount={columns.length + 1}
      data-testid="shard-grid"
    >
      <div className="shard-grid-canvas" style={{ width, height }}>
        <div className="shard-grid-head" role="row" aria-rowindex={1} style={{ width, height: SIZES.columnHeader }}>
          <div className="shard-grid-corner" role="columnheader" style={{ width: SIZES.rowHeader, height: SIZES.columnHeader }}>
            <span className="muted small">
              {rows.length} rows × {columns.length} indices
            </span>
          </div>
          {visibleColumns.map((c) => {
            const index = columns[c];
            return (
              <div
                key={index.name}
                className={`shard-grid-colhead${index.closed ? " is-closed" : ""}`}
                role="columnheader"
                aria-colindex={c + 2}
                style={{ left: SIZES.rowHeader + c * SIZES.columnWidth, width: SIZES.columnWidth, height: SIZES.columnHeader }}
                title={index.name}
              >
                <Link to={clusterPath(clusterId, "indices", index.name)} className="mono index-link">
                  {index.name}
                </Link>
                <span className="shard-grid-tags">
                  {index.closed && <span className="pill">closed</span>}
                  {index.system && <span className="pill">system</span>}
                </span>
              </div>
            );
          })}
        </div>
        {rows.slice(r0, r1).map((row, i) => (
          <GridRow
            key={row.key}
            clusterId={clusterId}
            row={row}
            rowIndex={r0 + i}
            top={SIZES.columnHeader + offsets[r0 + i]}
            height={heights[r0 + i]}
            width={width}
            columns={visibleColumns}
            layout={layout}
            selected={selected}
            onSelect={onSelect}
            nodeName={nodeName}
            nodes={nodes}
            recoveries={recoveries}
          />
        ))}
      </div>
    </div>
  );
}

interface RowProps {
  clusterId: string;
  row: Row;
  rowIndex: number;
  top: number;
  height: number;
  width: number;
  columns: number[];
  layout: GridLayout;
  selected: SelectedCopy | null;
  onSelect: (chip: CellCopy) => void;
  nodeName: (position: number | undefined) => string;
  nodes: readonly GridNode[];
  recoveries?: ReadonlyMap<string, Recovery>;
}

const GridRow = memo(function GridRow({ clusterId, row, rowIndex, top, height, width, columns, layout, selected, onSelect, nodeName, nodes, recoveries }: RowProps) {
  const byColumn = layout.cells.get(row.key);
  if (row.kind === "tier")
    return (
      <div className="shard-grid-row shard-grid-tier" role="row" aria-rowindex={rowIndex + 2} style={{ top, height, width }} data-tier={row.tier ?? "none"} data-testid="tier-group">
        <div className="shard-grid-rowhead" role="rowheader" style={{ width: SIZES.rowHeader, height }}>
          <span>
            <span className={`tier tier-${row.tier ?? "none"}`}>{row.label}</span>{" "}
            <span className="muted small">
              {row.nodes} {row.nodes === 1 ? "node" : "nodes"}
            </span>
          </span>
        </div>
      </div>
    );
  return (
    <div
      className={`shard-grid-row${row.kind === "unassigned" ? " is-unassigned" : ""}`}
      role="row"
      aria-rowindex={rowIndex + 2}
      style={{ top, height, width }}
      data-row={row.kind === "node" ? row.node.name : "unassigned"}
    >
      <div className="shard-grid-rowhead" role="rowheader" style={{ width: SIZES.rowHeader, height }}>
        {row.kind === "node" ? (
          <>
            <Link to={clusterPath(clusterId, "nodes", row.node.id)} className="node-link">
              {row.node.elected && (
                <span className="master" title="Elected master / cluster manager">
                  <StarIcon />
                </span>
              )}
              {row.node.name}
            </Link>
            <span className="muted small mono" title={row.node.tiers.length ? `tiers: ${row.node.tiers.join(", ")}` : undefined}>
              {row.node.tiers.length > 1 ? `${row.node.tiers.join("+")} · ` : ""}
              {row.node.id}
            </span>
          </>
        ) : (
          <strong className="unassigned-label">Unassigned</strong>
        )}
      </div>
      {columns.map((c) => {
        const chips = byColumn?.get(c);
        return (
          <div
            key={c}
            className="shard-grid-cell"
            role="gridcell"
            aria-colindex={c + 2}
            style={{ left: SIZES.rowHeader + c * SIZES.columnWidth, width: SIZES.columnWidth, height }}
          >
            {chips?.map((chip) => (
              <Chip
                key={`${chip.copy.shard}-${chip.copy.primary}-${chip.incoming}-${chip.nodeId}`}
                chip={chip}
                selected={sameCopy(selected, chip)}
                onSelect={onSelect}
                nodeName={nodeName}
                recovery={recoveries && recoveryOf(recoveries, chip.index, chip.copy, nodes)}
              />
            ))}
          </div>
        );
      })}
    </div>
  );
});

interface ChipProps {
  chip: CellCopy;
  selected: boolean;
  onSelect: (chip: CellCopy) => void;
  nodeName: (position: number | undefined) => string;
  recovery: Recovery | undefined;
}

function Chip({ chip, selected, onSelect, nodeName, recovery }: ChipProps) {
  const { copy } = chip;
  const state = chip.incoming ? "incoming" : copy.state;
  const label = recovery ? `${describeCopy(chip, nodeName)} (${recoveryLine(recovery)})` : describeCopy(chip, nodeName);
  return (
    <button
      type="button"
      className={`shard-chip chip-${state} ${copy.primary ? "chip-primary" : "chip-replica"}`}
      aria-pressed={selected}
      aria-label={label}
      title={label}
      data-testid="shard-chip"
      data-index={chip.index}
      data-shard={copy.shard}
      data-primary={copy.primary}
      data-state={state}
      data-progress={recovery ? recovery.bytes.percent.toFixed(1) : undefined}
      onClick={() => onSelect(chip)}
    >
      {copy.shard}
      {(copy.state === "relocating" || chip.incoming) && <span aria-hidden>{chip.incoming ? "←" : "→"}</span>}
      {recovery && (
        <>
          <span className="chip-percent" aria-hidden>
            {Math.floor(recovery.bytes.percent)}%
          </span>
          <span className="chip-progress" aria-hidden style={{ width: `${Math.min(100, Math.max(0, recovery.bytes.percent))}%` }} />
        </>
      )}
    </button>
  );
}
