// Cluster health over time: one cell per history point, read left to right, top to bottom;
// each row is labelled with its start time. Gaps (no sample) are drawn as such, never green.
import type { Health, Measurement as HistoryPoint } from "../api/wire";
import { toLocalDateTimeInput } from "../lib/range";

const COLUMNS = 48;

export function HealthHeatmap({ points, step }: { points: HistoryPoint[]; step: number }) {
  const rows: HistoryPoint[][] = [];
  for (let i = 0; i < points.length; i += COLUMNS) rows.push(points.slice(i, i + COLUMNS));
  const counts: Record<Health | "none", number> = { green: 0, yellow: 0, red: 0, none: 0 };
  for (const p of points) counts[p.health ?? "none"]++;
  const known = points.length - counts.none;
  const stepText = step >= 3600 ? `${+(step / 3600).toFixed(1)} h` : step >= 60 ? `${Math.round(step / 60)} min` : `${step} s`;
  return (
    <div className="heatmap" data-testid="health-heatmap" data-points={known}>
      <div className="heatmap-grid" role="img" aria-label="Cluster health over time">
        {rows.map((row) => (
          <div className="heatmap-row" key={row[0].timestamp}>
            <span className="heatmap-time muted">{toLocalDateTimeInput(row[0].timestamp).replace("T", " ")}</span>
            <span className="heatmap-cells" style={{ gridTemplateColumns: `repeat(${COLUMNS}, 1fr)` }}>
              {row.map((p) => (
                <span
                  key={p.timestamp}
                  className={`cell health-${p.health ?? "none"}`}
                  title={`${new Date(p.timestamp * 1000).toLocaleString()}: ${p.health ?? "no data"}`}
                />
              ))}
            </span>
          </div>
        ))}
      </div>
      <div className="legend">
        <span><i className="health-green" /> green {pct(counts.green, points.length)}</span>
        <span><i className="health-yellow" /> yellow {pct(counts.yellow, points.length)}</span>
        <span><i className="health-red" /> red {pct(counts.red, points.length)}</span>
        {counts.none > 0 && <span><i className="health-none" /> no data {pct(counts.none, points.length)}</span>}
        <span className="muted">one cell = {stepText}</span>
      </div>
    </div>
  );
}

function pct(n: number, total: number): string {
  return total === 0 ? "0%" : `${((n / total) * 100).toFixed(n === total || n === 0 ? 0 : 1)}%`;
}
