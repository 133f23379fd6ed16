// jsdom has no layout: every element measures 0 × 0, so a virtualised grid would draw nothing.
// The grid tests give every element the size of a scroller in view, and take it back after.

/** Every element measures `width` × `height` until {@link unstubElementSize}. */
export function stubElementSize(width = 1200, height = 640) {
  Object.defineProperty(HTMLElement.prototype, "clientWidth", { configurable: true, get: () => width });
  Object.defineProperty(HTMLElement.prototype, "clientHeight", { configurable: true, get: () => height });
}

/** Puts jsdom's own (zero) sizes back. */
export function unstubElementSize() {
  delete (HTMLElement.prototype as { clientWidth?: number }).clientWidth;
  delete (HTMLElement.prototype as { clientHeight?: number }).clientHeight;
}
