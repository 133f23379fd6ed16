import { useEffect, useId, useMemo, useRef, useState } from "react";

export interface Option {
  value: string;
  label: string;
  /** A warning shown beside the option (a failing namespace). */
  warning?: string;
  /** A number shown at the right (ingresses in that namespace). */
  count?: number;
}

interface Props {
  /** What is chosen, e.g. "Namespaces". */
  label: string;
  /** The button's text when nothing is chosen (which means all). */
  allLabel: string;
  options: readonly Option[];
  selected: readonly string[];
  onChange(selected: string[]): void;
  testId?: string;
}

/** A drop-down of checkboxes with a filter box; nothing chosen means all. */
export function MultiSelect({ label, allLabel, options, selected, onChange, testId }: Props) {
  const [open, setOpen] = useState(false);
  const [filter, setFilter] = useState("");
  const root = useRef<HTMLDivElement>(null);
  const listId = useId();

  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, [open]);

  const chosen = useMemo(() => new Set(selected), [selected]);
  const visible = useMemo(() => {
    const f = filter.trim().toLowerCase();
    // Chosen values that are not offered (yet) stay visible so they can be unticked.
    const all: Option[] = [...options, ...selected.filter((v) => !options.some((o) => o.value === v)).map((v) => ({ value: v, label: v }))];
    return f ? all.filter((o) => o.label.toLowerCase().includes(f)) : all;
  }, [options, selected, filter]);

  const summary =
    selected.length === 0
      ? allLabel
      : selected.length === 1
        ? (options.find((o) => o.value === selected[0])?.label ?? selected[0])
        : `${selected.length} ${label.toLowerCase()}`;

  const toggle = (value: string) => {
    onChange(chosen.has(value) ? selected.filter((v) => v !== value) : [...selected, value]);
  };

  return (
    <div
      className="multiselect"
      ref={root}
      data-testid={testId}
      onKeyDown={(e) => {
        if (e.key === "Escape" && open) {
          e.stopPropagation();
          setOpen(false);
        }
      }}
    >
      <button
        type="button"
        className={`control multiselect-button${selected.length ? " active" : ""}`}
        aria-haspopup="true"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="control-label">{label}</span>
        <span className="multiselect-summary">{summary}</span>
        <span aria-hidden="true" className="chevron">▾</span>
      </button>
      {open && (
        <div className="popover" id={listId} role="group" aria-label={label}>
          {options.length > 8 && (
            <input
              className="control popover-filter"
              type="search"
              placeholder={`Filter ${label.toLowerCase()}`}
              value={filter}
              autoFocus
              onChange={(e) => setFilter(e.target.value)}
            />
          )}
          <div className="popover-actions">
            <button type="button" className="link-button" onClick={() => onChange([])} disabled={selected.length === 0}>
              All
            </button>
            {filter && (
              <button type="button" className="link-button" onClick={() => onChange([...new Set([...selected, ...visible.map((o) => o.value)])])}>
                Select {visible.length} shown
              </button>
            )}
          </div>
          <ul className="popover-list">
            {visible.map((o) => (
              <li key={o.value} className="check-row">
                <label className="check">
                  <input type="checkbox" checked={chosen.has(o.value)} onChange={() => toggle(o.value)} />
                  <span className="check-label">{o.label}</span>
                  {o.warning && (
                    <span className="warning-mark" title={o.warning} aria-label={o.warning}>
                      !
                    </span>
                  )}
                </label>
                {o.count !== undefined && (
                  <span className="check-count" title={`${o.count} ingresses`}>
                    {o.count.toLocaleString("en")}
                  </span>
                )}
              </li>
            ))}
            {visible.length === 0 && <li className="muted popover-empty">No match</li>}
          </ul>
        </div>
      )}
    </div>
  );
}
