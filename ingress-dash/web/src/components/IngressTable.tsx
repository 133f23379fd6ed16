import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useRef, type CSSProperties, type KeyboardEvent } from "react";
import type { IngressRecord } from "../api/wire";
import { formatAge, formatRelative, parentsSummary, recordKey, routesSummary, rowBadges, tlsHostCount, type Badge } from "../state/describe";
import { recordHealth } from "../state/health";
import type { SortKey, SortOrder } from "../state/filters";
import { HIGHLIGHT_MS, type RecentChange } from "../state/ingressStore";
import { HostLinks } from "./HostLinks";
import { isRouteKind } from "../state/kinds";

export const ROW_HEIGHT = 34;
/** The sticky header's height, kept clear when scrolling a row into view. */
const HEAD_HEIGHT = 34;

const COLUMNS: { key: SortKey; label: string; title?: string }[] = [
  { key: "name", label: "Name" },
  { key: "namespace", label: "Namespace" },
  { key: "kind", label: "Kind" },
  { key: "class", label: "Class / gateway", title: "Sort by ingress class, or an HTTPRoute's parent gateways" },
  { key: "hosts", label: "Hosts" },
  { key: "paths", label: "Paths → backends" },
  { key: "status", label: "Status", title: "Sort by problems: missing or unready backends, route conditions, certificates" },
  { key: "tls", label: "TLS", title: "Sort by certificate expiry, soonest first" },
  { key: "address", label: "Address", title: "Load-balancer addresses" },
  { key: "age", label: "Age" },
];

interface Props {
  rows: readonly IngressRecord[];
  changes: ReadonlyMap<string, RecentChange>;
  sort: SortOrder;
  onSort(key: SortKey): void;
  selectedUid: string | null;
  onSelect(record: IngressRecord | null): void;
  now: number;
  /** Certificates expiring within this many days get a warning badge. */
  warningDays: number;
}

export function IngressTable({ rows, changes, sort, onSort, selectedUid, onSelect, now, warningDays }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    // Rows start below the sticky header, which also covers the top of the viewport.
    scrollMargin: HEAD_HEIGHT,
    scrollPaddingStart: HEAD_HEIGHT,
    getItemKey: (index) => rows[index]?.uid ?? index,
  });

  const selectedIndex = selectedUid === null ? -1 : rows.findIndex((r) => r.uid === selectedUid);

  // Bring a newly selected row into view (keyboard, or a link with ?ingress=). Only when the
  // selection changes: events that move the row must not pull the user's scroll position back.
  const indexRef = useRef(selectedIndex);
  indexRef.current = selectedIndex;
  useEffect(() => {
    if (indexRef.current >= 0) virtualizer.scrollToIndex(indexRef.current, { align: "auto" });
  }, [selectedUid, virtualizer]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (rows.length === 0) return;
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? ROW_HEIGHT * 10) / ROW_HEIGHT) - 1);
    const moves: Record<string, number> = {
      ArrowDown: 1,
      j: 1,
      ArrowUp: -1,
      k: -1,
      PageDown: page,
      PageUp: -page,
      Home: -Infinity,
      End: Infinity,
    };
    const move = moves[e.key];
    if (move === undefined) return;
    e.preventDefault();
    const from = selectedIndex < 0 ? (move > 0 ? -1 : rows.length) : selectedIndex;
    const to = Math.min(rows.length - 1, Math.max(0, from + move));
    onSelect(rows[to] ?? null);
  };

  const items = virtualizer.getVirtualItems();
  return (
    <div
      className="table"
      ref={scroller}
      role="table"
      aria-label="Ingresses"
      aria-rowcount={rows.length + 1}
      tabIndex={0}
      onKeyDown={onKeyDown}
      data-testid="ingress-table"
    >
      <div className="table-head" role="rowgroup" style={{ height: HEAD_HEIGHT }}>
        <div className="row head-row" role="row" aria-rowindex={1}>
          {COLUMNS.map((c) => {
            const active = sort.key === c.key;
            return (
              <div
                key={c.key}
                role="columnheader"
                className={`cell cell-${c.key}`}
                aria-sort={active ? (sort.descending ? "descending" : "ascending") : "none"}
              >
                <button type="button" className="sort-button" onClick={() => onSort(c.key)} title={c.title ?? `Sort by ${c.label.toLowerCase()}`}>
                  {c.label}
                  <span className="sort-mark" aria-hidden="true">
                    {active ? (sort.descending ? "▼" : "▲") : ""}
                  </span>
                </button>
              </div>
            );
          })}
        </div>
      </div>
      <div className="table-rows" role="rowgroup" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => {
          const record = rows[item.index];
          if (!record) return null;
          return (
            <Row
              key={item.key}
              record={record}
              index={item.index}
              top={item.start - HEAD_HEIGHT}
              selected={record.uid === selectedUid}
              change={changes.get(record.uid)}
              onSelect={onSelect}
              now={now}
              warningDays={warningDays}
            />
          );
        })}
      </div>
    </div>
  );
}

interface RowProps {
  record: IngressRecord;
  index: number;
  top: number;
  selected: boolean;
  change: RecentChange | undefined;
  onSelect(record: IngressRecord): void;
  now: number;
  warningDays: number;
}

const Row = memo(function Row({ record, index, top, selected, change, onSelect, now, warningDays }: RowProps) {
  const style: CSSProperties = { transform: `translateY(${top}px)`, height: ROW_HEIGHT };
  let changeClass = "";
  if (change) {
    const elapsed = Date.now() - change.at;
    if (elapsed < HIGHLIGHT_MS) {
      changeClass = ` changed-${change.kind}`;
      // A row scrolled back into view resumes its fade where it was, not from the start.
      style.animationDelay = `${-elapsed}ms`;
    }
  }
  const routes = routesSummary(record);
  const tlsHosts = tlsHostCount(record);
  const secrets = record.tls.map((t) => t.secretName ?? "(default certificate)").join(", ");
  const isRoute = isRouteKind(record.kind);
  const parents = isRoute ? parentsSummary(record) : "";
  const badges = rowBadges(record, now, warningDays);
  const expiry = recordHealth(record).certificates.earliestExpiry;
  const tlsTitle = record.tls.length
    ? `Secrets: ${secrets}${expiry === null ? "" : `; first expiry ${formatRelative(expiry, now)}`}`
    : "No TLS";
  return (
    <div
      className={`row body-row${selected ? " selected" : ""}${index % 2 ? " odd" : ""}${changeClass}`}
      role="row"
      aria-rowindex={index + 2}
      aria-current={selected ? "true" : undefined}
      data-uid={record.uid}
      data-key={recordKey(record)}
      data-kind={record.kind}
      data-change={changeClass ? change?.kind : undefined}
      style={style}
      onClick={() => onSelect(record)}
    >
      <div role="cell" className="cell cell-name" title={record.name}>
        {record.name}
      </div>
      <div role="cell" className="cell cell-namespace" title={record.namespace}>
        {record.namespace}
      </div>
      <div role="cell" className="cell cell-kind">
        <span className={`kind kind-${isRoute ? "route" : "ingress"}`}>{record.kind}</span>
      </div>
      <div role="cell" className="cell cell-class" title={isRoute ? `Parent gateways: ${parents || "none"}` : undefined}>
        {isRoute ? parents || <span className="muted">no parent</span> : (record.ingressClassName ?? <span className="muted">—</span>)}
      </div>
      <div role="cell" className="cell cell-hosts">
        <HostLinks record={record} />
      </div>
      <div role="cell" className="cell cell-paths mono" title={routes}>
        {routes || <span className="muted">—</span>}
      </div>
      <div role="cell" className="cell cell-status" title={badges.map((b) => b.detail).join("\n") || undefined}>
        {badges.length ? badges.map((b) => <RowBadge key={`${b.kind}-${b.text}`} badge={b} />) : <span className="muted">—</span>}
      </div>
      <div role="cell" className="cell cell-tls" title={tlsTitle}>
        {record.tls.length ? <span className="badge badge-tls">TLS{tlsHosts > 1 ? ` ${tlsHosts}` : ""}</span> : <span className="muted">—</span>}
      </div>
      <div role="cell" className="cell cell-address mono" title={record.addresses.join(", ")}>
        {record.addresses.length ? record.addresses.join(", ") : <span className="muted">{isRoute ? "—" : "pending"}</span>}
      </div>
      <div role="cell" className="cell cell-age" title={record.createdAt}>
        {formatAge(record.createdAt, now)}
      </div>
    </div>
  );
});

/** Visible text (never colour alone); the sentence naming the service or certificate is read out and shown as a tooltip. */
function RowBadge({ badge }: { badge: Badge }) {
  return (
    <span className={`badge badge-${badge.tone}`} title={badge.detail} data-badge={badge.kind}>
      {badge.text}
      <span className="visually-hidden">: {badge.detail}</span>
    </span>
  );
}
