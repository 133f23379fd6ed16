import { useEffect, useMemo, useState } from "react";
import { fetchHosts } from "../api/hosts";
import type { HostEntry, HostsReport } from "../api/wire";
import { useListedNamespaces } from "../lib/hooks";
import { daysLeft, describeAttachment, describePathBackend, FLAG_LABELS, formatHostsView, hostFlags, kindsLabel, objectHref, objectLabel, parseHostsView, soonestExpiry, type HostsView } from "../state/hosts";
import { MultiSelect } from "./MultiSelect";
import "../styles/migration.css";
import "../styles/hosts.css";

type Load = { state: "loading" } | { state: "loaded"; report: HostsReport } | { state: "failed"; message: string };

/** A certificate expiring within this many days is shown as soon. */
const SOON_DAYS = 14;

/**
 * Hosts: one row per hostname of the Ingresses and HTTPRoutes the user may see, with what
 * serves it and the flags the server found (conflict, TLS overlap, duplicate rule); a row
 * expands to its objects (links into the table's details panel), paths, backends and TLS.
 */
export function HostsPage() {
  const [view, setView] = useState<HostsView>(() => parseHostsView(window.location.search));
  const [typed, setTyped] = useState(view.search);
  const [load, setLoad] = useState<Load>({ state: "loading" });
  const [round, setRound] = useState(0);
  const listed = useListedNamespaces();
  const key = view.namespaces.join(",");

  useEffect(() => {
    const query = formatHostsView(view);
    if (query !== window.location.search) window.history.replaceState(null, "", `${window.location.pathname}${query}`);
  }, [view]);

  // The search goes to the server once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => setView((v) => (v.search === typed ? v : { ...v, search: typed })), 250);
    return () => clearTimeout(timer);
  }, [typed]);

  useEffect(() => {
    const controller = new AbortController();
    setLoad({ state: "loading" });
    fetchHosts({ namespaces: key ? key.split(",") : [], search: view.search, flaggedOnly: view.flaggedOnly }, controller.signal).then(
      (report) => {
        if (!controller.signal.aborted) setLoad({ state: "loaded", report });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setLoad({ state: "failed", message: error instanceof Error ? error.message : String(error) });
      },
    );
    return () => controller.abort();
  }, [key, view.search, view.flaggedOnly, round]);

  useEffect(() => {
    document.title = "Hosts · ingress-dash";
  }, []);

  const options = useMemo(() => listed.map((n) => ({ value: n, label: n })), [listed]);
  return (
    <div className="app">
      <header className="topbar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">ingress-dash</span>
          <span className="brand-sep">/</span>
          <h1>Hosts</h1>
        </div>
        <nav className="topnav" aria-label="Views">
          <a href="./">Ingresses</a>
          <a href={formatHostsView({ ...view, open: null })} aria-current="page">
            Hosts
          </a>
          <a href="?view=migration">Migration</a>
        </nav>
      </header>
      <main className="migration-page">
        <div className="migration-toolbar">
          <MultiSelect
            label="Namespaces"
            allLabel="All namespaces"
            options={options}
            selected={view.namespaces}
            onChange={(namespaces) => setView((v) => ({ ...v, namespaces }))}
            testId="hosts-namespaces"
          />
          <input
            type="search"
            placeholder="Search hosts, objects, Services"
            aria-label="Search hosts"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            data-testid="hosts-search"
          />
          <label>
            <input
              type="checkbox"
              checked={view.flaggedOnly}
              onChange={(e) => setView((v) => ({ ...v, flaggedOnly: e.target.checked }))}
              data-testid="hosts-flagged"
            />{" "}
            Flagged only
          </label>
          <button type="button" className="small-button" onClick={() => setRound((n) => n + 1)} disabled={load.state === "loading"}>
            Reload
          </button>
        </div>
        {load.state === "loading" ? (
          <p className="muted" role="status">
            Gathering hosts…
          </p>
        ) : load.state === "failed" ? (
          <p className="object-error" role="alert">
            {load.message}
          </p>
        ) : (
          <HostsTable report={load.report} open={view.open} onToggle={(host) => setView((v) => ({ ...v, open: v.open === host ? null : host }))} />
        )}
      </main>
    </div>
  );
}

function HostsTable({ report, open, onToggle }: { report: HostsReport; open: string | null; onToggle: (host: string) => void }) {
  const now = Date.now();
  const { counts } = report;
  return (
    <>
      {report.errors.map((e) => (
        <p key={e.namespace} className="object-error" role="alert">
          {e.namespace}: {e.message} (left out)
        </p>
      ))}
      <p data-testid="hosts-summary">
        {counts.hosts} hosts: {counts.conflicts} with a conflict, {counts.tlsOverlaps} with two TLS Secrets, {counts.duplicates} with a duplicate rule.
        {report.truncated && ` The first ${report.hosts.length} are shown: search to narrow.`}
      </p>
      {report.hosts.length === 0 ? (
        <p className="muted">No hosts.</p>
      ) : (
        <table className="hosts-table" data-testid="hosts-table">
          <thead>
            <tr>
              <th>Host</th>
              <th>Served by</th>
              <th>Flags</th>
              <th className="num">Paths</th>
              <th>Certificate</th>
            </tr>
          </thead>
          <tbody>
            {report.hosts.map((entry) => (
              <HostRows key={entry.host} entry={entry} expanded={open === entry.host} onToggle={() => onToggle(entry.host)} now={now} />
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function expiryText(days: number | null): { text: string; className: string } {
  if (days === null) return { text: "", className: "" };
  if (days < 0) return { text: "expired", className: "host-expiry-gone" };
  return { text: `${days} days left`, className: days <= SOON_DAYS ? "host-expiry-soon" : "" };
}

function HostRows({ entry, expanded, onToggle, now }: { entry: HostEntry; expanded: boolean; onToggle: () => void; now: number }) {
  const expiry = expiryText(soonestExpiry(entry, now));
  const kinds = kindsLabel(entry.objects);
  return (
    <>
      <tr
        className="host-row"
        data-testid="host-row"
        data-host={entry.host}
        aria-expanded={expanded}
        tabIndex={0}
        onClick={onToggle}
        onKeyDown={(e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            onToggle();
          }
        }}
      >
        <td className="mono host-name">{entry.host}</td>
        <td>
          {entry.objects.length} {entry.objects.length === 1 ? "object" : "objects"}
          {kinds && <span className="muted"> ({kinds})</span>}
        </td>
        <td data-testid="host-flags">
          {hostFlags(entry).map((flag) => (
            <span key={flag} className={`host-flag flag-${flag}`} data-flag={flag}>
              {FLAG_LABELS[flag]}
            </span>
          ))}
        </td>
        <td className="num">{entry.paths.length}</td>
        <td className={expiry.className}>{expiry.text}</td>
      </tr>
      {expanded && (
        <tr>
          <td colSpan={5} className="host-detail" data-testid="host-detail">
            <HostDetail entry={entry} now={now} />
          </td>
        </tr>
      )}
    </>
  );
}

function HostDetail({ entry, now }: { entry: HostEntry; now: number }) {
  return (
    <>
      {entry.conflicts.length > 0 && (
        <ul data-testid="host-conflicts">
          {entry.conflicts.map((c) => (
            <li key={c.matched}>
              Conflict on <span className="mono">{c.matched}</span>: claimed by {c.objects.map(objectLabel).join(", ")}
            </li>
          ))}
        </ul>
      )}
      {entry.duplicates.map((d) => (
        <p key={`${d.object} ${d.matched}`} className="explained-warning">
          {objectLabel(d.object)} claims <span className="mono">{d.matched}</span> {d.times} times
        </p>
      ))}
      <h3>Served by</h3>
      <ul data-testid="host-objects">
        {entry.objects.map((o) => (
          <li key={o.key}>
            {o.kind}{" "}
            <a href={objectHref(o)} className="mono" data-key={o.key}>
              {o.namespace}/{o.name}
            </a>
            {o.attachments.length === 0 && o.listeners.length > 0 && <span className="muted"> via listener {o.listeners.join(", ")}</span>}
            {o.attachments.length > 0 && (
              <ul className="plain-list" data-testid="host-attachments">
                {o.attachments.map((a, i) => (
                  <li key={i} className={a.problem ? "explained-warning" : "muted"}>
                    {describeAttachment(a)}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
      <h3>Paths</h3>
      <table data-testid="host-paths">
        <tbody>
          {entry.paths.map((p, i) => (
            <tr key={i}>
              <td className="mono">{p.matched}</td>
              <td className="mono">{objectLabel(p.object)}</td>
              <td className="mono">{p.backends.map(describePathBackend).join(", ") || "no backend"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {entry.tls.length > 0 && (
        <>
          <h3>TLS</h3>
          <ul data-testid="host-tls">
            {entry.tls.map((t, i) => {
              const expiry = expiryText(daysLeft(t.notAfter, now));
              return (
                <li key={i}>
                  Secret <span className="mono">{t.namespace}/{t.secretName}</span> ({objectLabel(t.object)})
                  {t.listener && (
                    <span>
                      {" "}
                      via listener <span className="mono">{t.listener}</span>
                    </span>
                  )}
                  {expiry.text && <span className={expiry.className}> {expiry.text}</span>}
                  {t.certManagerReady === true && <span> · cert-manager Ready</span>}
                  {t.certManagerReady === false && <span className="host-expiry-gone"> · cert-manager not Ready</span>}
                  {t.error && <span className="muted"> · {t.error}</span>}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </>
  );
}
