// Number, size and time formatting for display (local time).
export function formatCount(n: number | null | undefined): string {
  if (n == null) return "–";
  return n.toLocaleString("en-US");
}

export function formatCompact(n: number | null | undefined): string {
  if (n == null) return "–";
  return Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 }).format(n);
}

const UNITS = ["B", "KB", "MB", "GB", "TB", "PB"];
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes == null) return "–";
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${UNITS[unit]}`;
}

export function formatPercent(p: number | null | undefined): string {
  if (p == null) return "–";
  return `${Math.round(p)}%`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

export function formatLocalTime(unixMs: number): string {
  const d = new Date(unixMs);
  return d.toLocaleString(undefined, {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}
