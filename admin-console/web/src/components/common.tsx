// Small shared pieces: health badge, loading and error states, empty states.
import type { ReactNode } from "react";
import type { Health } from "../api/wire";
import { ApiError } from "../api/client";

export function HealthBadge({ health, label }: { health: Health | null; label?: string }) {
  const text = health ?? "unknown";
  return (
    <span className={`health-badge health-${text}`} data-health={text}>
      <span className="dot" aria-hidden />
      {label ?? text}
    </span>
  );
}

export function HealthDot({ health }: { health: Health | null }) {
  return <span className={`dot health-${health ?? "unknown"}`} title={health ?? "unknown"} />;
}

export function Loading({ what }: { what: string }) {
  return (
    <div className="state state-loading" role="status">
      <span className="spinner" aria-hidden /> Loading {what}…
    </div>
  );
}

export function ErrorState({ error, onRetry }: { error: Error; onRetry?: () => void }) {
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    <div className="state state-error" role="alert">
      <div>
        <strong>{titleFor(error)}</strong>
        <p>{error.message}</p>
        {code && <code className="muted">{code}</code>}
      </div>
      {onRetry && (
        <button className="btn" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

function titleFor(error: Error): string {
  if (!(error instanceof ApiError)) return "Something went wrong";
  switch (error.code) {
    case "unknown_cluster":
      return "No such cluster";
    case "upstream_unreachable":
      return "The cluster is unreachable";
    case "upstream_timeout":
      return "The cluster did not answer in time";
    case "upstream_error":
      return "The cluster answered with an error";
    case "network_error":
      return "No connection to the admin console";
    default:
      return "Request failed";
  }
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <strong>{title}</strong>
      {children && <div className="muted">{children}</div>}
    </div>
  );
}

export function Card({
  title,
  actions,
  children,
  className,
  testId,
}: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
  testId?: string;
}) {
  return (
    <section className={`card ${className ?? ""}`} data-testid={testId}>
      {(title || actions) && (
        <header className="card-header">
          {title && <h3>{title}</h3>}
          {actions && <div className="card-actions">{actions}</div>}
        </header>
      )}
      <div className="card-body">{children}</div>
    </section>
  );
}

export function Meter({ value, label }: { value: number | null; label: string }) {
  if (value == null) return <span className="muted">–</span>;
  const level = value >= 90 ? "high" : value >= 75 ? "warn" : "ok";
  return (
    <span className="meter" title={`${label}: ${value.toFixed(0)}%`}>
      <span className="meter-track">
        <span className={`meter-fill meter-${level}`} style={{ width: `${Math.min(100, Math.max(0, value))}%` }} />
      </span>
      <span className="meter-value">{Math.round(value)}%</span>
    </span>
  );
}
