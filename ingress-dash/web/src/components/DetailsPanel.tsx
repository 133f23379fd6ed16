import { useState } from "react";
import type { IngressRecord } from "../api/wire";
import { describeBackend, formatAge, formatClock } from "../state/describe";
import { BackendsSection, CertificatesSection, RouteSections } from "./StatusSections";
import { kindPath } from "../api/objects";
import { ObjectEvents } from "./ObjectEvents";
import { ObjectYaml } from "./ObjectYaml";
import { AnnotationExplainer } from "./AnnotationExplainer";
import { isRouteKind } from "../state/kinds";

interface Props {
  record: IngressRecord;
  /** When the ingress was deleted; the panel then shows its last known state. */
  deletedAt: number | null;
  now: number;
  /** Certificates expiring within this many days are flagged. */
  warningDays: number;
  onClose(): void;
}

/**
 * Everything about one ingress or HTTPRoute: rules (an HTTPRoute's parents, conditions, matches
 * and backend refs), backend Services, TLS and certificates, addresses, labels and annotations.
 */
export function DetailsPanel({ record, deletedAt, now, warningDays, onClose }: Props) {
  const isRoute = isRouteKind(record.kind);
  const urls = new Map(record.links.map((l) => [l.host, l.url]));
  const labels = Object.entries(record.labels).sort(([a], [b]) => a.localeCompare(b));
  const annotations = Object.entries(record.annotations).sort(([a], [b]) => a.localeCompare(b));
  const target = { kind: kindPath(record.kind), namespace: record.namespace, name: record.name };

  return (
    <aside className="details" aria-label={`${record.kind} ${record.namespace}/${record.name}`} data-testid="details" data-kind={record.kind}>
      <header className="details-head">
        <div className="details-title">
          <span className="details-kind">{record.kind}</span>
          <h2>{record.name}</h2>
          <span className="details-ns">{record.namespace}</span>
        </div>
        <button type="button" className="icon-button" onClick={onClose} aria-label="Close details" title="Close (Esc)">
          ✕
        </button>
      </header>
      {deletedAt !== null && (
        <div className="notice notice-deleted" role="status">
          Deleted at {formatClock(deletedAt)}. This is its last known state.
        </div>
      )}
      <div className="details-body">
        <CopyCommand command={`kubectl -n ${record.namespace} get ${record.kind.toLowerCase()} ${record.name} -o yaml`} />

        <dl className="facts">
          {isRoute ? (
            <>
              <dt>Hostnames</dt>
              <dd>{record.hosts.length ? record.hosts.join(", ") : <span className="muted">any (the listener's)</span>}</dd>
            </>
          ) : (
            <>
              <dt>Class</dt>
              <dd>{record.ingressClassName ?? <span className="muted">none</span>}</dd>
            </>
          )}
          <dt>Age</dt>
          <dd>
            {formatAge(record.createdAt, now)} <span className="muted">({record.createdAt})</span>
          </dd>
          {!isRoute && (
            <>
              <dt>Address</dt>
              <dd className="mono">{record.addresses.length ? record.addresses.join(", ") : <span className="muted">pending</span>}</dd>
            </>
          )}
          <dt>Resource version</dt>
          <dd className="mono">{record.resourceVersion}</dd>
          <dt>UID</dt>
          <dd className="mono">{record.uid}</dd>
        </dl>

        <ObjectEvents target={target} now={now} deleted={deletedAt !== null} />

        {isRoute && <RouteSections record={record} />}

        {!isRoute && (
          <section>
            <h3>Rules</h3>
            {record.rules.length === 0 && !record.defaultBackend && <p className="muted">No rules and no default backend.</p>}
            {record.rules.map((rule, i) => {
              const url = rule.host ? urls.get(rule.host) : undefined;
              return (
                <div className="rule" key={i}>
                  <div className="rule-host">
                    {rule.host === null ? (
                      <span className="muted">any host</span>
                    ) : url ? (
                      <a href={url} target="_blank" rel="noopener noreferrer">
                        {url}
                      </a>
                    ) : (
                      <span title="Wildcard hosts have no single URL">{rule.host}</span>
                    )}
                  </div>
                  <table className="mini-table">
                    <tbody>
                      {rule.paths.map((p, j) => (
                        <tr key={j}>
                          <td className="mono path-cell">{p.path ?? "/"}</td>
                          <td className="type-cell" title={p.pathType}>
                            {p.pathType === "ImplementationSpecific" ? "Impl.-specific" : p.pathType}
                          </td>
                          <td className="mono">→ {describeBackend(p.backend)}</td>
                        </tr>
                      ))}
                      {rule.paths.length === 0 && (
                        <tr>
                          <td className="muted" colSpan={3}>
                            No paths
                          </td>
                        </tr>
                      )}
                    </tbody>
                  </table>
                </div>
              );
            })}
            {record.defaultBackend && (
              <div className="rule">
                <div className="rule-host muted">Default backend (requests no rule matches)</div>
                <p className="mono">→ {describeBackend(record.defaultBackend)}</p>
              </div>
            )}
          </section>
        )}

        <BackendsSection record={record} />

        {!isRoute && <CertificatesSection record={record} now={now} warningDays={warningDays} />}

        <section>
          <h3>Labels</h3>
          {labels.length === 0 ? (
            <p className="muted">None</p>
          ) : (
            <ul className="chips">
              {labels.map(([k, v]) => (
                <li key={k} className="chip mono">
                  {k}={v}
                </li>
              ))}
            </ul>
          )}
        </section>

        <section>
          <h3>Annotations</h3>
          {annotations.length === 0 ? (
            <p className="muted">None</p>
          ) : (
            <dl className="annotations">
              {annotations.map(([k, v]) => (
                <div key={k}>
                  <dt className="mono">{k}</dt>
                  <dd className="mono">{v}</dd>
                </div>
              ))}
            </dl>
          )}
        </section>

        {!isRoute && annotations.length > 0 && (
          <AnnotationExplainer namespace={record.namespace} name={record.name} deleted={deletedAt !== null} />
        )}

        <ObjectYaml target={target} deleted={deletedAt !== null} />
      </div>
    </aside>
  );
}

function CopyCommand({ command }: { command: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(command);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      // Clipboard needs a secure context; the command stays selectable.
    }
  };
  return (
    <div className="command">
      <code className="mono">{command}</code>
      <button type="button" className="small-button" onClick={copy}>
        {copied ? "Copied" : "Copy"}
      </button>
    </div>
  );
}
