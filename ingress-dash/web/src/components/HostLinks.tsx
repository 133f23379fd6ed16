import type { IngressRecord } from "../api/wire";

/**
 * Each host, as a link with the scheme the backend derived from TLS (`links`); wildcard hosts
 * have no link and show as text.
 */
export function HostLinks({ record }: { record: IngressRecord }) {
  if (record.hosts.length === 0) return <span className="muted">*</span>;
  const urls = new Map(record.links.map((l) => [l.host, l.url]));
  return (
    <span className="hosts" title={record.hosts.join(", ")}>
      {record.hosts.map((host, i) => {
        const url = urls.get(host);
        return (
          <span key={host}>
            {i > 0 && ", "}
            {url ? (
              <a href={url} target="_blank" rel="noopener noreferrer" onClick={(e) => e.stopPropagation()}>
                {host}
              </a>
            ) : (
              <span className="wildcard">{host}</span>
            )}
          </span>
        );
      })}
    </span>
  );
}
