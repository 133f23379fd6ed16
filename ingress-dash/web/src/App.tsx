import { useCallback, useDeferredValue, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { openIngressStream, streamUrl, type ConnectionStatus } from "./api/stream";
import type { IngressRecord } from "./api/wire";
import { ApiDownBanner, NamespaceErrorBanners, NoticeBanners, StaleBanner } from "./components/Banners";
import { ConnectionBadge } from "./components/ConnectionBadge";
import { DetailsPanel } from "./components/DetailsPanel";
import { IngressTable } from "./components/IngressTable";
import { SignedIn } from "./components/SignedIn";
import { ThemeToggle } from "./components/ThemeToggle";
import { Toolbar } from "./components/Toolbar";
import { useApiHealth, useListedNamespaces, useNow } from "./lib/hooks";
import { markOnce } from "./lib/perfMarks";
import { useTheme } from "./lib/theme";
import { formatViewState, parseViewState, type ViewState } from "./lib/urlState";
import { formatClock, recordKey } from "./state/describe";
import { compileFilter, distinctClasses, emptyFilters, filterAndSort, nextSort, type Filters, type SortKey } from "./state/filters";
import { DEFAULT_EXPIRY_WARNING_DAYS } from "./state/health";
import { ingressReducer, initialIngressState, knownNamespaces } from "./state/ingressStore";
import { isRouteKind } from "./state/kinds";

/** Namespace picks are debounced so ticking three boxes opens one stream, not three. */
const RESCOPE_DELAY_MS = 300;

export function App() {
  const [view, setView] = useState<ViewState>(() => parseViewState(window.location.search));
  const [state, dispatch] = useReducer(ingressReducer, initialIngressState);
  const [status, setStatus] = useState<ConnectionStatus>({ state: "connecting" });
  const [lastEventAt, setLastEventAt] = useState<number | null>(null);
  const [theme, toggleTheme] = useTheme();
  const listedNamespaces = useListedNamespaces();
  const health = useApiHealth();
  const now = useNow(15_000);
  const searchRef = useRef<HTMLInputElement>(null);

  // The view lives in the URL (replaceState: filters are not history entries).
  useEffect(() => {
    const query = formatViewState(view);
    if (query !== window.location.search) window.history.replaceState(null, "", `${window.location.pathname}${query}`);
  }, [view]);

  // The stream follows the namespace filter: the server only sends what was asked for.
  const namespaceKey = view.filters.namespaces.join(",");
  const streamOpened = useRef(false);
  useEffect(() => {
    let close: (() => void) | null = null;
    const delay = streamOpened.current ? RESCOPE_DELAY_MS : 0;
    streamOpened.current = true;
    const timer = setTimeout(() => {
      dispatch({ type: "rescope" });
      close = openIngressStream(streamUrl(namespaceKey ? namespaceKey.split(",") : []), {
        onEvents: (events) => {
          const at = Date.now();
          dispatch({ type: "events", events, now: at });
          setLastEventAt(at);
        },
        onStatus: setStatus,
      });
    }, delay);
    return () => {
      clearTimeout(timer);
      close?.();
    };
  }, [namespaceKey]);

  // Highlights fade out by CSS; the store forgets them once they have.
  const hasChanges = state.changes.size > 0;
  useEffect(() => {
    if (!hasChanges) return;
    const timer = setInterval(() => dispatch({ type: "expire", now: Date.now() }), 1_000);
    return () => clearInterval(timer);
  }, [hasChanges]);

  const setFilters = useCallback((filters: Filters) => setView((v) => ({ ...v, filters })), []);
  const onSort = useCallback((key: SortKey) => setView((v) => ({ ...v, sort: nextSort(v.sort, key) })), []);
  const onSelect = useCallback(
    (record: IngressRecord | null) => setView((v) => ({ ...v, selected: record ? recordKey(record) : null })),
    [],
  );

  // Typing stays responsive with 10,000 rows: the table catches up with the deferred filters.
  const deferredFilters = useDeferredValue(view.filters);
  // The expiry filter follows the clock; the others do not re-run on its ticks.
  const filterNow = deferredFilters.expiresWithinDays === null ? 0 : now;
  const filter = useMemo(() => compileFilter(deferredFilters, filterNow), [deferredFilters, filterNow]);
  const warningDays = state.expiryWarningDays ?? DEFAULT_EXPIRY_WARNING_DAYS;
  if (state.hasSnapshot) markOnce("render-start");
  const rows = useMemo(() => filterAndSort(state.items.values(), filter, view.sort), [state.items, filter, view.sort]);
  if (state.hasSnapshot) markOnce("rows-sorted");
  // The counts in the toolbar and the footer follow the records at once (one cheap pass)...
  const routeCount = useMemo(() => {
    let routes = 0;
    for (const record of state.items.values()) if (isRouteKind(record.kind)) routes++;
    return routes;
  }, [state.items]);
  // ...the drop-downs' options (classes, namespaces with their counts) a render later: React
  // paints the rows of a large snapshot first and builds these in a background render after it.
  const items = useDeferredValue(state.items);
  const classes = useMemo(() => distinctClasses(items.values()), [items]);
  const errorMap = state.errors;
  const namespaces = useMemo(() => knownNamespaces(items, errorMap, listedNamespaces), [items, errorMap, listedNamespaces]);
  const perNamespace = useMemo(() => {
    const counts = new Map<string, number>();
    for (const record of items.values()) counts.set(record.namespace, (counts.get(record.namespace) ?? 0) + 1);
    return counts;
  }, [items]);
  const namespaceOptions = useMemo(
    () =>
      namespaces.map((n) => {
        const error = state.errors.get(n);
        // Counts are only known for the namespaces the stream carries now.
        const count = perNamespace.get(n) ?? (view.filters.namespaces.length === 0 || view.filters.namespaces.includes(n) ? 0 : undefined);
        return {
          value: n,
          label: n,
          ...(count === undefined ? {} : { count }),
          ...(error ? { warning: `${error.code}: ${error.message}` } : {}),
        };
      }),
    [namespaces, state.errors, perNamespace, view.filters.namespaces],
  );
  if (state.hasSnapshot) markOnce("derived");
  const errors = useMemo(() => [...state.errors.values()].sort((a, b) => a.namespace.localeCompare(b.namespace)), [state.errors]);

  const selection = useMemo(() => {
    if (!view.selected) return null;
    for (const record of state.items.values())
      if (recordKey(record) === view.selected) return { record, deletedAt: null };
    let latest: { record: IngressRecord; deletedAt: number } | null = null;
    for (const gone of state.deleted.values())
      if (recordKey(gone.record) === view.selected && (!latest || gone.at > latest.deletedAt))
        latest = { record: gone.record, deletedAt: gone.at };
    return latest;
  }, [view.selected, state.items, state.deleted]);

  // Global keys: `/` searches, Escape closes the details panel.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement;
      if (e.key === "/" && !typing && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        searchRef.current?.focus();
        searchRef.current?.select();
      } else if (e.key === "Escape" && !e.defaultPrevented) {
        if (typing && e.target === searchRef.current && view.filters.search) return;
        setView((v) => (v.selected ? { ...v, selected: null } : v));
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [view.filters.search]);

  useEffect(() => {
    const prefix = status.state === "live" ? "" : status.state === "stale" ? "(stale) " : "(reconnecting) ";
    document.title = `${prefix}Ingresses · ingress-dash`;
  }, [status.state]);

  useEffect(() => {
    if (state.hasSnapshot && state.items.size > 0) markOnce("rows-committed");
  }, [state.hasSnapshot, state.items]);

  const waiting = !state.hasSnapshot && state.items.size === 0;
  const failing = errors.filter((e) => e.code !== "syncing").length;
  return (
    <div className={`app${status.state === "stale" ? " is-stale" : ""}`} data-snapshot={state.hasSnapshot}>
      <header className="topbar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">ingress-dash</span>
          <span className="brand-sep">/</span>
          <h1>Ingresses</h1>
          <nav className="topnav" aria-label="Views">
            <a href="?view=hosts">Hosts</a>
            <a href="?view=migration">Migration</a>
          </nav>
        </div>
        <div className="topbar-right">
          <SignedIn />
          <ConnectionBadge status={status} />
          <ThemeToggle theme={theme} onToggle={toggleTheme} />
        </div>
      </header>
      <Toolbar
        ref={searchRef}
        filters={view.filters}
        onChange={setFilters}
        namespaceOptions={namespaceOptions}
        classes={classes}
        labelError={filter.labelError}
        expiryWarningDays={warningDays}
        shown={rows.length}
        total={state.items.size}
        routes={routeCount}
      />
      <StaleBanner status={status} />
      {status.state === "live" && <ApiDownBanner health={health} />}
      <NamespaceErrorBanners errors={errors} />
      <NoticeBanners notices={state.notices} />
      <main className={`content${selection ? " with-details" : ""}`}>
        <section className="table-area">
          <IngressTable
            rows={rows}
            changes={state.changes}
            sort={view.sort}
            onSort={onSort}
            selectedUid={selection && selection.deletedAt === null ? selection.record.uid : null}
            onSelect={onSelect}
            now={now}
            warningDays={warningDays}
          />
          {rows.length === 0 && (
            <div className="empty" data-testid="empty">
              {waiting ? (
                <p>Waiting for the first snapshot…</p>
              ) : state.items.size === 0 ? (
                <p>No ingresses in {view.filters.namespaces.length ? "the chosen namespaces" : "the watched namespaces"}.</p>
              ) : (
                <>
                  <p>Nothing matches the filters.</p>
                  <button type="button" className="small-button" onClick={() => setFilters({ ...emptyFilters, namespaces: view.filters.namespaces })}>
                    Clear search and filters
                  </button>
                </>
              )}
            </div>
          )}
        </section>
        {selection && (
          <DetailsPanel
            record={selection.record}
            deletedAt={selection.deletedAt}
            now={now}
            warningDays={warningDays}
            onClose={() => onSelect(null)}
          />
        )}
      </main>
      <footer className="statusbar">
        <span>
          {(state.items.size - routeCount).toLocaleString("en")} ingresses
          {routeCount > 0 && `, ${routeCount.toLocaleString("en")} HTTPRoute${routeCount > 1 ? "s" : ""}`} in {view.filters.namespaces.length ? `${view.filters.namespaces.length} namespaces` : "all watched namespaces"}
        </span>
        {lastEventAt !== null && <span>Last update {formatClock(lastEventAt)}</span>}
        {state.lastResync && (
          <span title={state.lastResync.reason}>Resynchronised at {formatClock(state.lastResync.at)}</span>
        )}
        {failing > 0 && <span className="statusbar-error">{failing} namespace{failing > 1 ? "s" : ""} failing</span>}
        <span className="statusbar-keys">
          <kbd>/</kbd> search · <kbd>↑</kbd>
          <kbd>↓</kbd> select · <kbd>Esc</kbd> close
        </span>
      </footer>
    </div>
  );
}
