// Windowing for long tables (the defaults of cluster settings are ~900 rows, a busy cluster
// runs thousands of tasks): only the rows in view, plus a few either side, are in the DOM.
import { useCallback, useEffect, useRef, useState, type RefObject } from "react";

export interface VisibleRange {
  start: number;
  /** One past the last row to render. */
  end: number;
  /** Height of the space above and below the rendered rows, in pixels. */
  padTop: number;
  padBottom: number;
}

/** The rows to render for a scroll position. */
export function visibleRange(scrollTop: number, viewport: number, rowHeight: number, count: number, overscan = 8): VisibleRange {
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0, padTop: 0, padBottom: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const start = Math.max(0, Math.min(count - 1, first) - overscan);
  const shown = Math.ceil(Math.max(viewport, rowHeight) / rowHeight);
  const end = Math.min(count, first + shown + overscan);
  return { start, end, padTop: start * rowHeight, padBottom: (count - end) * rowHeight };
}

/** The visible range of a scrolling element holding `count` rows of `rowHeight` pixels. */
export function useVirtualRows(count: number, rowHeight: number): { ref: RefObject<HTMLDivElement | null>; range: VisibleRange; onScroll: () => void } {
  const ref = useRef<HTMLDivElement>(null);
  const [scroll, setScroll] = useState({ top: 0, height: 600 });
  const onScroll = useCallback(() => {
    const el = ref.current;
    if (el) setScroll({ top: el.scrollTop, height: el.clientHeight || 600 });
  }, []);
  useEffect(() => {
    onScroll();
    const el = ref.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(onScroll);
    observer.observe(el);
    return () => observer.disconnect();
  }, [onScroll]);
  return { ref, range: visibleRange(scroll.top, scroll.height, rowHeight, count), onScroll };
}
