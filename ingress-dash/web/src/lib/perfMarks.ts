// Performance marks ("ingress-dash:<name>") for the first snapshot's path from the stream to
// the painted table, read by web/bench and the Rust benchmark through the Performance API
// (and visible in a DevTools profile). Each name is marked once per page load, so a dashboard
// left open for days does not collect entries.

const marked = new Set<string>();

export function markOnce(name: string): void {
  if (marked.has(name) || typeof performance === "undefined" || typeof performance.mark !== "function") return;
  marked.add(name);
  performance.mark(`ingress-dash:${name}`);
}
