// Compare this cluster with another: persistent and transient settings, index, component and
// legacy templates, and lifecycle policies side by side, differences first. The other cluster
// is the path's last segment (`/clusters/prod/compare/staging`), so a comparison can be linked.
import { useMemo, useState } from "react";
import { api } from "../api/client";
import { compareApi } from "../api/compare";
import type { CompareSection } from "../api/wire";
import { clusterPath, navigate, useTitle } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { EmptyState, ErrorState, Loading } from "../components/common";
import { cellText, SECTION_TITLES, STATE_LABELS, summary, visibleEntries } from "../manage/compare";
import "../styles/cluster-ops.css";

export function CompareView({ clusterId, other }: { clusterId: string; other?: string }) {
  useTitle(other ? `${clusterId} · Compare with ${other}` : `${clusterId} · Compare`);
  const clusters = useAsync((signal) => api.clusters(signal), []);
  const [differencesOnly, setDifferencesOnly] = useState(true);
  const [filter, setFilter] = useState("");
  const others = (clusters.data ?? []).filter((c) => c.id !== clusterId);

  return (
    <div className="view" data-testid="compare-view">
      <div className="toolbar">
        <label className="ops-field">
          <span>Compare {clusterId} with</span>
          <select
            value={other ?? ""}
            onChange={(e) => navigate(clusterPath(clusterId, "compare", e.target.value || undefined))}
            data-testid="compare-other"
          >
            <option value="">choose a cluster…</option>
            {others.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.id})
              </option>
            ))}
            {other && !others.some((c) => c.id === other) && <option value={other}>{other}</option>}
          </select>
        </label>
        <input
          className="filter mono"
          placeholder="Filter by name"
          aria-label="Filter by name"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          data-testid="compare-filter"
        />
        <label className="ops-check">
          <input
            type="checkbox"
            checked={differencesOnly}
            onChange={(e) => setDifferencesOnly(e.target.checked)}
            data-testid="compare-differences-only"
          />
          Differences only
        </label>
      </div>
      {other ? (
        <Comparison left={clusterId} right={other} differencesOnly={differencesOnly} filter={filter} />
      ) : (
        <EmptyState title="Choose a cluster to compare with">
          Settings, templates and lifecycle policies of both clusters, side by side, differences first.
        </EmptyState>
      )}
    </div>
  );
}

function Comparison({ left, right, differencesOnly, filter }: { left: string; right: string; differencesOnly: boolean; filter: string }) {
  const loaded = useAsync((signal) => compareApi.get(left, right, signal), [left, right]);
  if (loaded.error) return <ErrorState error={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading what="both clusters" />;
  const { differences, unreadable } = summary(loaded.data.sections);
  return (
    <>
      <p className="muted" data-testid="compare-summary">
        {differences === 0 ? "No differences" : `${differences} difference${differences === 1 ? "" : "s"}`}
        {unreadable > 0 && ` · ${unreadable} section${unreadable === 1 ? "" : "s"} one side could not read`}
        {" · "}
        <button className="btn btn-small" onClick={loaded.reload} data-testid="compare-refresh">
          Refresh
        </button>
      </p>
      {loaded.data.sections.map((section) => (
        <SectionTable key={section.kind} section={section} left={left} right={right} differencesOnly={differencesOnly} filter={filter} />
      ))}
    </>
  );
}

function SectionTable({
  section,
  left,
  right,
  differencesOnly,
  filter,
}: {
  section: CompareSection;
  left: string;
  right: string;
  differencesOnly: boolean;
  filter: string;
}) {
  const entries = useMemo(() => visibleEntries(section, differencesOnly, filter), [section, differencesOnly, filter]);
  const same = section.entries.length - section.differences;
  return (
    <section className="compare-section" data-testid="compare-section" data-kind={section.kind}>
      <h2>
        {SECTION_TITLES[section.kind]}{" "}
        <span className="muted" data-testid="compare-section-count">
          {section.differences} different, {same} the same
        </span>
      </h2>
      {section.leftError && (
        <div className="banner banner-error" data-testid="compare-left-error">
          {left}: {section.leftError}
        </div>
      )}
      {section.rightError && (
        <div className="banner banner-error" data-testid="compare-right-error">
          {right}: {section.rightError}
        </div>
      )}
      {entries.length === 0 ? (
        <p className="muted">{section.entries.length === 0 ? "Nothing on either side." : "Nothing to show with this filter."}</p>
      ) : (
        <table className="table compare-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>State</th>
              <th>{left}</th>
              <th>{right}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.name} data-testid="compare-entry" data-name={entry.name} data-state={entry.state}>
                <td className="mono">{entry.name}</td>
                <td>
                  <span className={`compare-state compare-${entry.state}`}>{STATE_LABELS[entry.state]}</span>
                </td>
                <td>
                  <pre className="compare-value">{cellText(entry.left)}</pre>
                </td>
                <td>
                  <pre className="compare-value">{cellText(entry.right)}</pre>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
