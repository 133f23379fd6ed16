import { useEffect, useState } from "react";
import { fetchRouteDiagnosis, kindPath } from "../api/objects";
import type { IngressRecord, NotRead, RouteFinding } from "../api/wire";

const FINDING_LABELS: Record<RouteFinding["code"], string> = {
  never_attached: "Never attached",
  not_accepted: "Not accepted",
  refs_not_resolved: "References not resolved",
  service_missing: "Service missing",
  cross_namespace_without_grant: "No ReferenceGrant",
};

type Grants = { findings: RouteFinding[]; notRead: NotRead[] } | { failed: string } | null;

/** Whether a backendRef of the route points to another namespace (a ReferenceGrant is needed). */
function crossesNamespaces(record: IngressRecord): boolean {
  return (record.route?.rules ?? []).some((rule) => rule.backendRefs.some((ref) => ref.namespace !== record.namespace));
}

/**
 * "Why it does not work": the record's findings (live with the stream) and, for a route with a
 * cross-namespace backendRef, the ReferenceGrants the server reads on demand. Shown only when
 * something is wrong or could not be checked; every text from the cluster is rendered as text.
 */
export function RouteDiagnosis({ record }: { record: IngressRecord }) {
  const [grants, setGrants] = useState<Grants>(null);
  // The grants are read on demand for routes (HTTPRoute, GRPCRoute, TLSRoute), not Ingresses.
  const kind = kindPath(record.kind);
  const crosses = kind !== "ingresses" && crossesNamespaces(record);
  const { namespace, name } = record;

  useEffect(() => {
    setGrants(null);
    if (!crosses) return;
    const controller = new AbortController();
    fetchRouteDiagnosis(kind, namespace, name, controller.signal).then(
      (answer) => {
        if (!controller.signal.aborted) setGrants({ findings: answer.findings.filter((f) => f.code === "cross_namespace_without_grant"), notRead: answer.notRead });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setGrants({ failed: error instanceof Error ? error.message : String(error) });
      },
    );
    return () => controller.abort();
  }, [kind, namespace, name, crosses]);

  const findings = [...(record.route?.diagnosis ?? []), ...(grants && "findings" in grants ? grants.findings : [])];
  const notes = grants && "notRead" in grants ? grants.notRead.map((n) => `ReferenceGrants of ${n.namespace} not checked: ${n.reason}`) : [];
  if (grants && "failed" in grants) notes.push(`ReferenceGrants not checked: ${grants.failed}`);
  if (findings.length === 0 && notes.length === 0) return null;
  return (
    <section data-testid="details-diagnosis" aria-labelledby="details-diagnosis-title">
      <h3 id="details-diagnosis-title">Why it does not work</h3>
      {findings.length > 0 && (
        <ul className="plain-list">
          {findings.map((f, i) => (
            <li key={i} data-finding={f.code}>
              <span className={`badge badge-${f.severity === "error" ? "danger" : "warn"}`}>{FINDING_LABELS[f.code] ?? f.code}</span>{" "}
              {f.parent && <span className="muted small mono">{f.parent} </span>}
              <span>{f.message}</span>
            </li>
          ))}
        </ul>
      )}
      {notes.map((note, i) => (
        <p key={i} className="muted small" data-testid="diagnosis-note">
          {note}
        </p>
      ))}
    </section>
  );
}
