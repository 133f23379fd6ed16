// The details panel's sections about what is behind a record: its backend Services, its
// certificates, and an HTTPRoute's parents, conditions and rules.

import type { BackendState, CertificateStatus, IngressRecord, Tls } from "../api/wire";
import { RouteDiagnosis } from "./RouteDiagnosis";
import {
  BACKEND_STATE_LABELS,
  CERTIFICATE_SOURCE_LABELS,
  describeBackendService,
  describeParent,
  describeRouteBackendRef,
  formatRelative,
  type BadgeTone,
} from "../state/describe";
import { DAY_MS, summariseRoute } from "../state/health";

const BACKEND_TONES: Record<BackendState, BadgeTone> = {
  ready: "ok",
  degraded: "warn",
  no_ready_endpoints: "danger",
  missing_service: "danger",
  unknown: "info",
};

/** Each backend Service with its state and ready/total endpoints. */
export function BackendsSection({ record }: { record: IngressRecord }) {
  const backends = record.backends ?? [];
  return (
    <section data-testid="details-backends">
      <h3>Backends</h3>
      {backends.length === 0 ? (
        <p className="muted">No backend Services.</p>
      ) : (
        <table className="mini-table">
          <thead>
            <tr>
              <th>Service</th>
              <th>State</th>
              <th className="num">Ready</th>
            </tr>
          </thead>
          <tbody>
            {backends.map((b) => (
              <tr key={`${b.namespace}/${b.service}:${b.port ?? ""}`} data-service={b.service} data-state={b.state}>
                <td className="mono">{describeBackendService(b, record.namespace)}</td>
                <td>
                  <span className={`badge badge-${BACKEND_TONES[b.state]}`}>{BACKEND_STATE_LABELS[b.state]}</span>
                  {b.error && <div className="muted small">{b.error}</div>}
                </td>
                <td className="num">
                  {b.state === "missing_service" || b.state === "unknown" ? (
                    <span className="muted">—</span>
                  ) : (
                    `${b.readyEndpoints}/${b.totalEndpoints}`
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Pairs each TLS entry with the certificate status of its Secret (in order, by secret name). */
function pairCertificates(tls: readonly Tls[], certificates: readonly CertificateStatus[]): { entry: Tls; certificate: CertificateStatus | null }[] {
  const unused = [...certificates];
  return tls.map((entry) => {
    if (entry.secretName === null) return { entry, certificate: null };
    const index = unused.findIndex((c) => c.secretName === entry.secretName);
    return { entry, certificate: index < 0 ? null : (unused.splice(index, 1)[0] ?? null) };
  });
}

/** Per TLS entry: the Secret, where its certificate was read from, names, validity, issuer, gaps. */
export function CertificatesSection({ record, now, warningDays }: { record: IngressRecord; now: number; warningDays: number }) {
  if (record.tls.length === 0)
    return (
      <section>
        <h3>TLS</h3>
        <p className="muted">No TLS: hosts are served over plain HTTP.</p>
      </section>
    );
  return (
    <section data-testid="details-certificates">
      <h3>TLS and certificates</h3>
      {pairCertificates(record.tls, record.certificates ?? []).map(({ entry, certificate }, i) => (
        <div className="cert" key={i} data-secret={entry.secretName ?? ""}>
          <div className="cert-head">
            <span className="mono">{entry.secretName ?? <span className="muted">controller default certificate</span>}</span>
            <span className="muted"> · {entry.hosts.length ? entry.hosts.join(", ") : "all hosts"}</span>
          </div>
          {certificate && <CertificateFacts certificate={certificate} now={now} warningDays={warningDays} />}
        </div>
      ))}
    </section>
  );
}

function CertificateFacts({ certificate: c, now, warningDays }: { certificate: CertificateStatus; now: number; warningDays: number }) {
  const notAfter = c.notAfter ? Date.parse(c.notAfter) : NaN;
  const notBefore = c.notBefore ? Date.parse(c.notBefore) : NaN;
  const expired = !Number.isNaN(notAfter) && notAfter <= now;
  const expiring = !expired && !Number.isNaN(notAfter) && notAfter - now <= warningDays * DAY_MS;
  return (
    <>
      {c.missingHosts.length > 0 && (
        <p className="cert-warning" role="note" data-testid="missing-hosts">
          <span className="badge badge-warn">Host not covered</span> {c.missingHosts.join(", ")}{" "}
          {c.missingHosts.length > 1 ? "are" : "is"} not covered by this certificate: clients get a name mismatch.
        </p>
      )}
      {c.error && (
        <p className={c.source === "not_read" ? "muted" : "cert-error"} role="note">
          {c.error}
        </p>
      )}
      <dl className="facts cert-facts">
        <dt>Source</dt>
        <dd>{CERTIFICATE_SOURCE_LABELS[c.source]}</dd>
        {c.source !== "not_read" && (
          <>
            <dt>Names</dt>
            <dd className="mono">{c.subjectNames.length ? c.subjectNames.join(", ") : <span className="muted">unknown</span>}</dd>
            <dt>Not before</dt>
            <dd>
              {c.notBefore ?? <span className="muted">unknown</span>}
              {!Number.isNaN(notBefore) && <span className="muted"> ({formatRelative(notBefore, now)})</span>}
            </dd>
            <dt>Not after</dt>
            <dd>
              {c.notAfter ?? <span className="muted">unknown</span>}
              {!Number.isNaN(notAfter) && <span className="muted"> ({formatRelative(notAfter, now)})</span>}{" "}
              {expired && <span className="badge badge-danger">Expired</span>}
              {expiring && <span className="badge badge-warn">Expires within {warningDays} days</span>}
            </dd>
            <dt>Issuer</dt>
            <dd className="mono">{c.issuer ?? <span className="muted">unknown</span>}</dd>
          </>
        )}
      </dl>
    </>
  );
}

const CONDITION_TONES: Record<string, BadgeTone> = { True: "ok", False: "warn", Unknown: "info" };

/** An HTTPRoute's parents and the conditions they report, then its rules: matches and backend refs. */
export function RouteSections({ record }: { record: IngressRecord }) {
  const route = record.route;
  if (!route) return null;
  const summary = summariseRoute(route.conditions);
  return (
    <>
      <RouteDiagnosis record={record} />
      <section data-testid="details-parents">
        <h3>Parent gateways</h3>
        {route.parentRefs.length === 0 ? (
          <p className="muted">No parentRefs: the route attaches to no gateway.</p>
        ) : (
          <ul className="plain-list mono">
            {route.parentRefs.map((p, i) => (
              <li key={i}>{describeParent(p)}</li>
            ))}
          </ul>
        )}
      </section>
      <section data-testid="details-conditions">
        <h3>Conditions</h3>
        {route.conditions.length === 0 ? (
          <p className="muted">No status: no gateway controller has reported on this route.</p>
        ) : (
          <table className="mini-table">
            <thead>
              <tr>
                <th>Type</th>
                <th>Status</th>
                <th>Reason and message</th>
              </tr>
            </thead>
            <tbody>
              {route.conditions.map((c, i) => {
                const negative = summary.problems.includes(c);
                return (
                  <tr key={i} className={negative ? "condition-problem" : undefined} data-condition={c.type}>
                    <td>
                      {c.type}
                      <div className="muted small mono">{c.parent}</div>
                    </td>
                    <td>
                      <span className={`badge badge-${negative ? "warn" : c.type === "PartiallyInvalid" ? "ok" : (CONDITION_TONES[c.status] ?? "info")}`}>
                        {c.status}
                      </span>
                    </td>
                    <td>
                      <strong>{c.reason}</strong>
                      {c.message && <div>{c.message}</div>}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
      <section data-testid="details-route-rules">
        <h3>Rules</h3>
        {route.rules.length === 0 && <p className="muted">No rules.</p>}
        {route.rules.map((rule, i) => (
          <div className="rule" key={i}>
            <div className="rule-host">{rule.matches.length ? rule.matches.join(" · ") : <span className="muted">every request (PathPrefix /)</span>}</div>
            {rule.backendRefs.length === 0 ? (
              <p className="muted">No backendRefs: the rule forwards nowhere (unless a filter answers).</p>
            ) : (
              <ul className="plain-list mono">
                {rule.backendRefs.map((ref, j) => (
                  <li key={j}>
                    → {describeRouteBackendRef(ref, record.namespace)}
                    {rule.backendRefs.length > 1 && <span className="muted"> (weight {ref.weight})</span>}
                  </li>
                ))}
              </ul>
            )}
          </div>
        ))}
      </section>
    </>
  );
}
