import { useEffect, useMemo, useState } from "react";
import { fetchMigrationReport, migrationUrl, SUPPORT_LABELS } from "../api/migration";
import type { MigrationCounts, MigrationReport } from "../api/wire";
import { useListedNamespaces } from "../lib/hooks";
import { MultiSelect } from "./MultiSelect";
import "../styles/migration.css";

/** Namespace names are DNS-1123 labels; anything else in a pasted URL is dropped. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** `?view=migration&namespaces=a,b`: the chosen namespaces. */
export function parseMigrationNamespaces(search: string): string[] {
  const value = new URLSearchParams(search).get("namespaces");
  return value ? [...new Set(value.split(","))].filter((n) => NAMESPACE.test(n)) : [];
}

function formatMigrationQuery(namespaces: readonly string[]): string {
  const query = new URLSearchParams({ view: "migration" });
  if (namespaces.length > 0) query.set("namespaces", namespaces.join(","));
  return `?${query.toString().replace(/%2C/g, ",")}`;
}

type Load = { state: "loading" } | { state: "loaded"; report: MigrationReport } | { state: "failed"; message: string };

const COUNT_COLUMNS: readonly [keyof MigrationCounts, string][] = [
  ["ingresses", "Ingresses"],
  ["ingressesWithAnnotations", "With controller annotations"],
  ["annotations", "Annotations"],
  ["gatewayApi", SUPPORT_LABELS.gateway_api],
  ["implementationSpecific", SUPPORT_LABELS.implementation_specific],
  ["noEquivalent", SUPPORT_LABELS.no_equivalent],
  ["unknown", SUPPORT_LABELS.unknown],
  ["invalid", "Invalid values"],
  ["ignored", "Ignored (another controller's)"],
];

/**
 * Migration readiness: the controller annotations on the Ingresses the user may see, per
 * namespace and per annotation, each classified for a move to the Gateway API; exported as CSV
 * or JSON by the server.
 */
export function MigrationPage() {
  const [namespaces, setNamespaces] = useState<string[]>(() => parseMigrationNamespaces(window.location.search));
  const [load, setLoad] = useState<Load>({ state: "loading" });
  const [round, setRound] = useState(0);
  const listed = useListedNamespaces();
  const key = namespaces.join(",");

  useEffect(() => {
    const query = formatMigrationQuery(namespaces);
    if (query !== window.location.search) window.history.replaceState(null, "", `${window.location.pathname}${query}`);
  }, [namespaces]);

  useEffect(() => {
    const controller = new AbortController();
    setLoad({ state: "loading" });
    fetchMigrationReport(key ? key.split(",") : [], controller.signal).then(
      (report) => {
        if (!controller.signal.aborted) setLoad({ state: "loaded", report });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setLoad({ state: "failed", message: error instanceof Error ? error.message : String(error) });
      },
    );
    return () => controller.abort();
  }, [key, round]);

  useEffect(() => {
    document.title = "Migration · ingress-dash";
  }, []);

  const options = useMemo(() => listed.map((n) => ({ value: n, label: n })), [listed]);
  return (
    <div className="app">
      <header className="topbar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">ingress-dash</span>
          <span className="brand-sep">/</span>
          <h1>Migration readiness</h1>
        </div>
        <nav className="topnav" aria-label="Views">
          <a href="./">Ingresses</a>
          <a href="?view=hosts">Hosts</a>
          <a href={formatMigrationQuery(namespaces)} aria-current="page">
            Migration
          </a>
        </nav>
      </header>
      <main className="migration-page">
        <div className="migration-toolbar">
          <MultiSelect label="Namespaces" allLabel="All namespaces" options={options} selected={namespaces} onChange={setNamespaces} testId="migration-namespaces" />
          <a className="small-button" href={migrationUrl(namespaces, "csv")} download="ingress-migration.csv" data-testid="export-csv">
            Export CSV
          </a>
          <a className="small-button" href={migrationUrl(namespaces, "json")} download="ingress-migration.json" data-testid="export-json">
            Export JSON
          </a>
          <button type="button" className="small-button" onClick={() => setRound((n) => n + 1)} disabled={load.state === "loading"}>
            Reload
          </button>
        </div>
        {load.state === "loading" ? (
          <p className="muted" role="status">
            Counting annotations…
          </p>
        ) : load.state === "failed" ? (
          <p className="object-error" role="alert">
            {load.message}
          </p>
        ) : (
          <Report report={load.report} />
        )}
      </main>
    </div>
  );
}

function Report({ report }: { report: MigrationReport }) {
  const { totals } = report;
  return (
    <>
      {report.classesNote && (
        <p className="explained-warning" role="note">
          Controllers unknown: {report.classesNote}
        </p>
      )}
      {report.errors.map((e) => (
        <p key={e.namespace} className="object-error" role="alert">
          {e.namespace}: {e.message} (not counted)
        </p>
      ))}
      <p data-testid="migration-summary">
        {totals.annotations} controller annotations on {totals.ingressesWithAnnotations} of {totals.ingresses} ingresses:{" "}
        {totals.gatewayApi} map to a Gateway API field, {totals.implementationSpecific} need an implementation policy, {totals.noEquivalent} have no
        equivalent, {totals.unknown} are unknown keys; {totals.invalid} invalid values; {totals.ignored} belong to another controller than their ingress's class.
      </p>
      <h2>By namespace</h2>
      <table data-testid="migration-namespaces-table">
        <thead>
          <tr>
            <th>Namespace</th>
            {COUNT_COLUMNS.map(([k, label]) => (
              <th key={k} className="num">
                {label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {report.namespaces.map(({ namespace, counts }) => (
            <tr key={namespace} data-testid="migration-namespace-row">
              <td className="mono">{namespace}</td>
              {COUNT_COLUMNS.map(([k]) => (
                <td key={k} className="num">
                  {counts[k]}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <h2>By annotation</h2>
      {report.annotations.length === 0 ? (
        <p className="muted">No controller annotations.</p>
      ) : (
        <table data-testid="migration-annotations-table">
          <thead>
            <tr>
              <th>Annotation</th>
              <th>Controller</th>
              <th>Classification</th>
              <th>Gateway API</th>
              <th className="num">Ingresses</th>
              <th className="num">Invalid</th>
              <th>Namespaces</th>
            </tr>
          </thead>
          <tbody>
            {report.annotations.map((a) => (
              <tr key={a.key} data-testid="migration-annotation-row">
                <td className="mono">{a.source ? <a href={a.source} target="_blank" rel="noopener noreferrer">{a.key}</a> : a.key}</td>
                <td>{a.controller}</td>
                <td>
                  <span className={`support-badge support-${a.support}`}>{SUPPORT_LABELS[a.support]}</span>
                </td>
                <td>{a.gatewayApi ?? ""}</td>
                <td className="num">{a.ingresses}</td>
                <td className="num">{a.invalid}</td>
                <td className="mono">{a.namespaces.join(", ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>By ingress</h2>
      <IngressRows report={report} />
      <p className="muted explained-version">Catalogue {report.catalogueVersion}</p>
    </>
  );
}

/** Ingresses shown on the page at most; the exports carry every one. */
export const MAX_INGRESS_ROWS = 500;

function IngressRows({ report }: { report: MigrationReport }) {
  if (report.ingresses.length === 0) return <p className="muted">No ingress carries controller annotations.</p>;
  const shown = report.ingresses.slice(0, MAX_INGRESS_ROWS);
  return (
    <>
      <table data-testid="migration-ingresses-table">
        <thead>
          <tr>
            <th>Ingress</th>
            <th>Class</th>
            <th>Controller</th>
            <th>Annotations</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((ingress) => (
            <tr key={`${ingress.namespace}/${ingress.name}`} data-testid="migration-ingress-row">
              <td className="mono">
                {ingress.namespace}/{ingress.name}
              </td>
              <td className="mono">{ingress.ingressClassName ?? ""}</td>
              <td className="mono">{ingress.controller ?? "unknown"}</td>
              <td>
                <ul className="migration-uses">
                  {ingress.annotations.map((a) => (
                    <li key={a.key}>
                      <span className="mono">{a.key}</span> <span className={`support-badge support-${a.support}`}>{SUPPORT_LABELS[a.support]}</span>
                      {a.validity === "invalid" && <span className="validity-bad"> invalid value</span>}
                      {a.warnings.length > 0 && <span className="muted"> ({a.warnings.join(", ").replaceAll("_", " ")})</span>}
                    </li>
                  ))}
                </ul>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {report.ingresses.length > shown.length && (
        <p className="muted" data-testid="migration-ingresses-more">
          {shown.length} of {report.ingresses.length} ingresses shown; the CSV and JSON exports carry every one.
        </p>
      )}
    </>
  );
}
