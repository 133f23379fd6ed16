// @vitest-environment jsdom
// The statistics charts span the requested range: with one sample, uPlot's own range from the
// data drew the 24-hour preset over years (February 2027 to August 2029).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import type uPlot from "uplot";
import type { MetricsHistory } from "../api/wire";

const made: { opts: uPlot.Options; data: uPlot.AlignedData }[] = [];
vi.mock("uplot", () => ({
  default: class {
    constructor(opts: uPlot.Options, data: uPlot.AlignedData) {
      made.push({ opts, data });
    }
    setSize() {}
    destroy() {}
  },
}));

const { TimeSeriesChart } = await import("./TimeSeriesChart");
const { HistorySection, collectingNote } = await import("../views/StatisticsView");

beforeEach(() => {
  made.length = 0;
  vi.stubGlobal(
    "ResizeObserver",
    class {
      observe() {}
      disconnect() {}
    },
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** The x range the chart gives uPlot, as uPlot asks for it (with the data's min and max). */
function xRange(opts: uPlot.Options, dataMin: number, dataMax: number): [number | null, number | null] {
  const x = opts.scales?.x;
  const range = x?.range;
  if (typeof range === "function") return range({} as uPlot, dataMin, dataMax, "x") as [number, number];
  if (Array.isArray(range)) return range as [number, number];
  return [x?.min ?? null, x?.max ?? null];
}

const END = 1_800_000_000;
const DAY = 86_400;

describe("the time-series chart", () => {
  it("spans the requested range with one sample", () => {
    render(
      <TimeSeriesChart start={END - DAY} end={END} timestamps={[END - 300]} series={[{ label: "Nodes", values: [3], color: "#000" }]} theme="light" />,
    );
    expect(made).toHaveLength(1);
    expect(xRange(made[0].opts, END - 300, END - 300)).toEqual([END - DAY, END]);
  });

  it("spans the requested range, not the data's, with several samples", () => {
    render(
      <TimeSeriesChart start={END - 7 * DAY} end={END} timestamps={[END - 3600, END - 60]} series={[{ label: "Nodes", values: [3, 4], color: "#000" }]} theme="light" />,
    );
    expect(xRange(made[0].opts, END - 3600, END - 60)).toEqual([END - 7 * DAY, END]);
  });
});

function history(points: number[], collectingSince?: number): MetricsHistory {
  return {
    clusterId: "c",
    source: "internal",
    start: END - DAY,
    end: END,
    step: 60,
    points: points.map((timestamp) => ({
      timestamp,
      health: "green",
      nodeCount: 3,
      indexCount: 1,
      documentCount: 10,
      shardCount: 2,
      unassignedShards: 0,
      memoryUsagePercent: 40,
      diskUsagePercent: 50,
      cpuUsagePercent: 5,
    })),
    ...(points.length === 0 ? { reason: "The console has not sampled this cluster in this range." } : {}),
    ...(collectingSince !== undefined ? { collectingSince } : {}),
  };
}

describe("the statistics of a young history", () => {
  it("says since when it collects, empty or with one sample", () => {
    expect(collectingNote(history([], END - 120))).toMatch(/^Collecting since .+; no sample falls in this range yet\.$/);
    expect(collectingNote(history([END - 60], END - 120))).toMatch(/^Collecting since .+: one sample so far/);
    expect(collectingNote(history([END - 60]))).toMatch(/^Collecting since /);
    expect(collectingNote(history([END - 120, END - 60], END - 120))).toBeNull();
  });

  it("draws one sample over the requested range, with the note", () => {
    render(<HistorySection history={history([END - 60], END - 120)} loading={false} onRetry={() => {}} theme="light" label="Last 24 hours" />);
    expect(screen.getByTestId("collecting-since").textContent).toMatch(/^Collecting since /);
    expect(made.length).toBeGreaterThan(0);
    for (const { opts } of made) expect(xRange(opts, END - 60, END - 60)).toEqual([END - DAY, END]);
  });

  it("says it in the empty state too", () => {
    render(<HistorySection history={history([], END - 120)} loading={false} onRetry={() => {}} theme="light" label="Last 24 hours" />);
    screen.getByTestId("no-data");
    expect(screen.getByTestId("collecting-since").textContent).toMatch(/^Collecting since /);
  });
});
