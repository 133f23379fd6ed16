// A uPlot line chart over Unix-second timestamps (uPlot shows them in local time). The x axis
// is the requested range, whatever the data covers: uPlot's own range from the data stretches
// one sample over years, and a few samples over a fraction of the range the user asked for.
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { Theme } from "../lib/theme";
import { formatCompact } from "../lib/format";

export interface Series {
  label: string;
  values: (number | null)[];
  color: string;
}

interface Props {
  /** The requested range, Unix seconds: the x axis spans exactly this. */
  start: number;
  end: number;
  timestamps: number[];
  series: Series[];
  theme: Theme;
  height?: number;
  unit?: string;
}

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

// Whole-number steps only: half a node is not a thing.
const COUNT_INCREMENTS = [1, 2, 5].flatMap((m) => [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10].map((p) => m * p)).sort((a, b) => a - b);

function niceMax(max: number | null): number {
  if (max == null || max <= 0) return 1;
  const padded = max * 1.1;
  const magnitude = 10 ** Math.floor(Math.log10(padded));
  return Math.ceil(padded / magnitude) * magnitude;
}

function latest(values: (number | null)[]): number | null {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] != null) return values[i];
  return null;
}

/** The x scale: time, over exactly `[start, end]` (an empty or inverted range gets a minute). */
export function xScale(start: number, end: number): uPlot.Scale {
  const to = end > start ? end : start + 60;
  // Auto-ranged (uPlot asks the range function on every data change), the answer ignoring the data.
  return { time: true, min: start, max: to, range: (): uPlot.Range.MinMax => [start, to] };
}

export function TimeSeriesChart({ start, end, timestamps, series, theme, height = 220, unit }: Props) {
  const host = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = host.current!;
    const axisColor = cssVar("--text-muted");
    const gridColor = cssVar("--border");
    const axis = {
      stroke: axisColor,
      grid: { stroke: gridColor, width: 1 },
      ticks: { stroke: gridColor, width: 1 },
    };
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      cursor: { drag: { x: false, y: false } },
      legend: { live: true },
      // Counts and percents start at zero, so a change of one node does not look like a cliff.
      scales: {
        x: xScale(start, end),
        y: { range: (_u, _min, max) => [0, unit === "%" ? 100 : niceMax(max)] },
      },
      axes: [
        axis,
        {
          ...axis,
          size: 56,
          incrs: unit === "%" ? [10, 20, 25, 50] : COUNT_INCREMENTS,
          values: (_u, ticks) => ticks.map((t) => formatCompact(t) + (unit ?? "")),
        },
      ],
      series: [
        {},
        ...series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          fill: s.color + "1f",
          spanGaps: false,
          points: { show: timestamps.length < 60, size: 5 },
          // Away from the cursor the legend shows the latest value.
          value: (_u: uPlot, v: number | null, _series: number, idx: number | null) => {
            const shown = idx == null ? latest(s.values) : v;
            if (shown == null) return idx == null ? "–" : "no data";
            return `${Math.round(shown * 10) / 10}`.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (unit ?? "");
          },
        })),
      ],
    };
    const plot = new uPlot(opts, [timestamps, ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [start, end, timestamps, series, theme, height, unit]);

  return <div className="ts-chart" ref={host} />;
}
