import { forwardRef } from "react";
import { NO_CLASS, type Filters, type TlsFilter } from "../state/filters";
import { MultiSelect, type Option } from "./MultiSelect";

interface Props {
  filters: Filters;
  onChange(filters: Filters): void;
  namespaceOptions: readonly Option[];
  classes: readonly string[];
  labelError: string | null;
  shown: number;
  total: number;
}

/** Search, namespace and class pickers, TLS and label filters, and the row count. */
export const Toolbar = forwardRef<HTMLInputElement, Props>(function Toolbar(
  { filters, onChange, namespaceOptions, classes, labelError, shown, total },
  searchRef,
) {
  const set = (patch: Partial<Filters>) => onChange({ ...filters, ...patch });
  const active =
    filters.search !== "" || filters.namespaces.length > 0 || filters.classes.length > 0 || filters.tls !== "any" || filters.labels !== "";
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
          onClick={() => onChange({ search: "", namespaces: [], classes: [], tls: "any", labels: "" })}
        >
          Clear filters
        </button>
      )}
      <span className="count" data-testid="row-count" aria-live="polite">
        {shown === total ? `${total.toLocaleString("en")} ingresses` : `${shown.toLocaleString("en")} of ${total.toLocaleString("en")}`}
      </span>
    </div>
  );
});
