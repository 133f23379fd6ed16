import { forwardRef, useEffect, useState } from "react";
import {
  emptyFilters,
  MAX_EXPIRY_DAYS,
  narrowsRows,
  NO_CLASS,
  type BackendFilter,
  type Filters,
  type KindFilter,
  type TlsFilter,
} from "../state/filters";
import { MultiSelect, type Option } from "./MultiSelect";

interface Props {
  filters: Filters;
  onChange(filters: Filters): void;
  namespaceOptions: readonly Option[];
  classes: readonly string[];
  labelError: string | null;
  /** The server's `certificates.expiry_warning_days`: the expiry filter's starting N. */
  expiryWarningDays: number;
  shown: number;
  total: number;
  /** HTTPRoutes among `total`. */
  routes: number;
}

/** Search, namespace, kind and class pickers, TLS, backend, expiry and label filters, and the row count. */
export const Toolbar = forwardRef<HTMLInputElement, Props>(function Toolbar(
  { filters, onChange, namespaceOptions, classes, labelError, expiryWarningDays, shown, total, routes },
  searchRef,
) {
  const set = (patch: Partial<Filters>) => onChange({ ...filters, ...patch });
  const active = narrowsRows(filters) || filters.namespaces.length > 0;
  const classOptions = classes.map((c) => ({ value: c, label: c === NO_CLASS ? "(no class)" : c }));

  return (
    <div className="toolbar" role="search">
      <label className="search">
        <span className="visually-hidden">Search</span>
        <input
          ref={searchRef}
          className="control search-input"
          type="search"
          placeholder="Search name, namespace, host, path"
          value={filters.search}
          onChange={(e) => set({ search: e.target.value })}
          data-testid="search"
        />
        <kbd className="search-key" aria-hidden="true">
          /
        </kbd>
      </label>
      <MultiSelect
        label="Namespaces"
        allLabel="All"
        options={namespaceOptions}
        selected={filters.namespaces}
        onChange={(namespaces) => set({ namespaces: [...namespaces].sort() })}
        testId="namespace-select"
      />
      <label className="control select-control">
        <span className="control-label">Kind</span>
        <select value={filters.kind} onChange={(e) => set({ kind: e.target.value as KindFilter })} data-testid="kind-select">
          <option value="any">Any</option>
          <option value="Ingress">Ingress</option>
          <option value="HTTPRoute">HTTPRoute</option>
          <option value="GRPCRoute">GRPCRoute</option>
          <option value="TLSRoute">TLSRoute</option>
        </select>
      </label>
      <MultiSelect
        label="Class"
        allLabel="Any"
        options={classOptions}
        selected={filters.classes}
        onChange={(classes) => set({ classes })}
        testId="class-select"
      />
      <label className="control select-control">
        <span className="control-label">TLS</span>
        <select value={filters.tls} onChange={(e) => set({ tls: e.target.value as TlsFilter })} data-testid="tls-select">
          <option value="any">Any</option>
          <option value="tls">With TLS</option>
          <option value="plain">Without TLS</option>
        </select>
      </label>
      <label className="control select-control">
        <span className="control-label">Backends</span>
        <select value={filters.backends} onChange={(e) => set({ backends: e.target.value as BackendFilter })} data-testid="backend-select">
          <option value="any">Any</option>
          <option value="no_ready_endpoints">No ready endpoints</option>
          <option value="not_fully_ready">Not fully ready</option>
        </select>
      </label>
      <ExpiryFilter days={filters.expiresWithinDays} defaultDays={expiryWarningDays} onChange={(expiresWithinDays) => set({ expiresWithinDays })} />
      <label className={`control label-control${labelError ? " invalid" : ""}`} title={labelError ?? "A label selector, as kubectl -l takes it"}>
        <span className="control-label">Labels</span>
        <input
          type="text"
          placeholder="app=web,tier!=db"
          value={filters.labels}
          spellCheck={false}
          aria-invalid={labelError !== null}
          onChange={(e) => set({ labels: e.target.value })}
          data-testid="label-filter"
        />
      </label>
      {active && (
        <button
          type="button"
          className="link-button"
          onClick={() => onChange(emptyFilters)}
        >
          Clear filters
        </button>
      )}
      <span className="count" data-testid="row-count" aria-live="polite">
        {shown === total ? totalText(total, routes) : `${shown.toLocaleString("en")} of ${total.toLocaleString("en")}`}
      </span>
    </div>
  );
});

/** "10,000 ingresses", or "10,000 ingresses · 2 HTTPRoutes" when there are routes. */
function totalText(total: number, routes: number): string {
  const ingresses = `${(total - routes).toLocaleString("en")} ingresses`;
  return routes > 0 ? `${ingresses} · ${routes.toLocaleString("en")} HTTPRoute${routes > 1 ? "s" : ""}` : ingresses;
}

/**
 * "Cert expires within [N] days": a checkbox turns it on with the server's warning days; N is
 * editable, and an unfinished number (empty while typing) keeps the last valid one.
 */
function ExpiryFilter({ days, defaultDays, onChange }: { days: number | null; defaultDays: number; onChange(days: number | null): void }) {
  const [text, setText] = useState(String(days ?? defaultDays));
  useEffect(() => setText(String(days ?? defaultDays)), [days, defaultDays]);
  const on = days !== null;
  const valid = /^\d{1,5}$/.test(text) && Number(text) <= MAX_EXPIRY_DAYS;
  return (
    <div className={`control expiry-control${on ? " active" : ""}${valid ? "" : " invalid"}`} data-testid="expiry-filter">
      <label className="expiry-toggle">
        <input
          type="checkbox"
          checked={on}
          onChange={(e) => onChange(e.target.checked ? (valid ? Number(text) : defaultDays) : null)}
          data-testid="expiry-toggle"
        />
        <span className="control-label">Cert expires within</span>
      </label>
      <input
        type="number"
        min={0}
        max={MAX_EXPIRY_DAYS}
        step={1}
        inputMode="numeric"
        aria-label="Days until the certificate expires"
        aria-invalid={!valid}
        title={valid ? "Certificates that expire within this many days, or have expired" : `A whole number of days from 0 to ${MAX_EXPIRY_DAYS}`}
        value={text}
        onChange={(e) => {
          const next = e.target.value;
          setText(next);
          if (/^\d{1,5}$/.test(next) && Number(next) <= MAX_EXPIRY_DAYS) onChange(Number(next));
        }}
        data-testid="expiry-days"
      />
      <span className="control-label">days</span>
    </div>
  );
}
