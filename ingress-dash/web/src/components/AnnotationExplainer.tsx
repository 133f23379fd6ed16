import { useEffect, useState } from "react";
import { fetchIngressAnnotations, SUPPORT_LABELS } from "../api/migration";
import type { IngressAnnotations } from "../api/wire";
import "../styles/migration.css";

interface Props {
  namespace: string;
  name: string;
  /** The Ingress was deleted: nothing to ask the server. */
  deleted?: boolean;
}

type Load = { state: "loading" } | { state: "loaded"; answer: IngressAnnotations } | { state: "failed"; message: string };

/**
 * Each annotation of an Ingress explained for the controller of its class: what it does, whether
 * its value is valid, where it goes in the Gateway API, and warnings (snippets, likely typos,
 * annotations of another controller). Read from the server when the panel opens.
 */
export function AnnotationExplainer({ namespace, name, deleted = false }: Props) {
  const [load, setLoad] = useState<Load>({ state: "loading" });

  useEffect(() => {
    if (deleted) return;
    const controller = new AbortController();
    setLoad({ state: "loading" });
    fetchIngressAnnotations(namespace, name, controller.signal).then(
      (answer) => {
        if (!controller.signal.aborted) setLoad({ state: "loaded", answer });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setLoad({ state: "failed", message: error instanceof Error ? error.message : String(error) });
      },
    );
    return () => controller.abort();
  }, [namespace, name, deleted]);

  return (
    <section className="annotation-explainer" aria-label="Annotations explained" data-testid="annotation-explainer">
      <h3>Annotations explained</h3>
      {deleted ? (
        <p className="muted">The ingress was deleted.</p>
      ) : load.state === "loading" ? (
        <p className="muted" role="status">
          Loading…
        </p>
      ) : load.state === "failed" ? (
        <p className="object-error" role="alert">
          {load.message}
        </p>
      ) : (
        <Explained answer={load.answer} />
      )}
    </section>
  );
}

function Explained({ answer }: { answer: IngressAnnotations }) {
  const controller = answer.controllerName ?? answer.controller;
  return (
    <>
      <p className="explainer-controller" data-testid="explainer-controller">
        {controller ? (
          <>
            Controller: <span className="mono">{controller}</span>
            {answer.ingressClassName && (
              <>
                {" "}
                (class <span className="mono">{answer.ingressClassName}</span>)
              </>
            )}
          </>
        ) : (
          "Controller unknown."
        )}
        {answer.controllerNote && <span className="muted"> {answer.controllerNote}</span>}
      </p>
      {answer.annotations.length === 0 ? (
        <p className="muted">No annotations</p>
      ) : (
        <ul className="explained-list">
          {answer.annotations.map((a) => (
            <li key={a.key} data-testid="explained-annotation" data-support={a.support ?? "none"} data-validity={a.validity}>
              <div className="explained-head">
                <span className="mono explained-key">{a.key}</span>
                {a.support && <span className={`support-badge support-${a.support}`}>{SUPPORT_LABELS[a.support]}</span>}
                {a.validity === "valid" && <span className="validity-ok">valid</span>}
                {a.validity === "invalid" && <span className="validity-bad">invalid value</span>}
              </div>
              <div className="mono explained-value">{a.value}</div>
              {a.does && <p className="explained-does">{a.does}</p>}
              {a.gatewayApi && (
                <p className="explained-gateway">
                  Gateway API: <span>{a.gatewayApi}</span>
                </p>
              )}
              {a.expected && a.validity === "invalid" && <p className="muted">Expected {a.expected}.</p>}
              {a.warnings.map((w) => (
                <p key={w.code} className={`explained-warning warning-${w.code}`} role="note">
                  {w.message}
                </p>
              ))}
              {a.source && (
                <a className="explained-source" href={a.source} target="_blank" rel="noopener noreferrer">
                  Documentation
                </a>
              )}
            </li>
          ))}
        </ul>
      )}
      <p className="muted explained-version">Catalogue {answer.catalogueVersion}</p>
    </>
  );
}
