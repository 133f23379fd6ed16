// A horizontal bar chart for distributions (a handful of categories).
import { formatCount } from "../lib/format";

export interface Bar {
  label: string;
  value: number;
  className: string;
}

/** `of` is what the percentages are of (e.g. all nodes, when one node has several roles). */
export function BarList({ bars, testId, empty, of }: { bars: Bar[]; testId?: string; empty: string; of?: number }) {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const sum = bars.reduce((acc, b) => acc + b.value, 0);
  const total = of ?? sum;
  if (sum === 0) {
    return (
      <div className="no-data small-no-data" data-testid={testId} data-points={0}>
        <strong>Nothing to show</strong>
        <p>{empty}</p>
      </div>
    );
  }
  return (
    <ul className="bar-list" data-testid={testId} data-points={bars.filter((b) => b.value > 0).length}>
      {bars.map((b) => (
        <li key={b.label}>
          <span className="bar-label">{b.label}</span>
          <span className="bar-track">
            <span className={`bar-fill ${b.className}`} style={{ width: `${(b.value / max) * 100}%` }} />
          </span>
          <span className="bar-value">
            {formatCount(b.value)}
            {total > 0 && <small className="muted"> {Math.round((b.value / total) * 100)}%</small>}
          </span>
        </li>
      ))}
    </ul>
  );
}
