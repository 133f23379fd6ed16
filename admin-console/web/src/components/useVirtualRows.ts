// Windowed rendering of a long table body with rows of one fixed height: only the rows in view
// (plus a margin) are in the DOM, with spacers above and below keeping the scroll height. For
// any view with long lists; the scroll container is the element `ref` points at.
import { useEffect, useState, type RefObject } from "react";

export interface RowWindow {
  start: number;
  end: number;
  /** Height of the spacer above the first rendered row, and below the last one. */
  before: number;
  after: number;
}

/** Rows rendered when the container has no height yet (first paint, or no layout at all). */
const FALLBACK_ROWS = 40;
const OVERSCAN = 10;

/** The rows of `count` that a viewport of `height` px scrolled to `scrollTop` shows. */
export function rowWindow(count: number, rowHeight: number, scrollTop: number, height: number): RowWindow {
  const visible = height > 0 ? Math.ceil(height / rowHeight) : FALLBACK_ROWS;
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const end = Math.min(count, first + visible + 2 * OVERSCAN);
  const start = Math.min(first, Math.max(0, end - visible - 2 * OVERSCAN));
  return { start, end, before: start * rowHeight, after: (count - end) * rowHeight };
}

export function useVirtualRows(ref: RefObject<HTMLElement | null>, count: number, rowHeight: number): RowWindow {
  const [viewport, setViewport] = useState({ scrollTop: 0, height: 0 });
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    let frame = 0;
    const read = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => setViewport({ scrollTop: element.scrollTop, height: element.clientHeight }));
    };
    read();
    element.addEventListener("scroll", read, { passive: true });
    const observer = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(read);
    observer?.observe(element);
    return () => {
      cancelAnimationFrame(frame);
      element.removeEventListener("scroll", read);
      observer?.disconnect();
    };
    // The container appears with the first rows (the view shows a loading state before).
  }, [ref, count > 0]);
  return rowWindow(count, rowHeight, viewport.scrollTop, viewport.height);
}
