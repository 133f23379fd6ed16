import { useEffect, useState } from "react";
import { fetchObjectEvents, type ObjectEvent, type ObjectRef } from "../api/objects";
import { formatAge } from "../state/describe";
import "../styles/objects.css";

interface Props {
  target: ObjectRef;
  now: number;
  /** The object was deleted: nothing to ask the server. */
  deleted?: boolean;
}

type Load = { state: "loading" } | { state: "loaded"; events: ObjectEvent[] } | { state: "failed"; message: string };

/**
 * The object's recent events (Warning only unless "All types" is ticked), newest first, read when
 * the panel opens; "Reload" reads them again.
 */
export function ObjectEvents({ target, now, deleted = false }: Props) {
  const [all, setAll] = useState(false);
  const [load, setLoad] = useState<Load>({ state: "loading" });
  const [round, setRound] = useState(0);
  const { kind, namespace, name } = target;

  useEffect(() => {
    if (deleted) return;
    const controller = new AbortController();
    setLoad({ state: "loading" });
    fetchObjectEvents({ kind, namespace, name }, all, controller.signal).then(
      (events) => {
        if (!controller.signal.aborted) setLoad({ state: "loaded", events });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setLoad({ state: "failed", message: error instanceof Error ? error.message : String(error) });
      },
    );
    return () => controller.abort();
  }, [kind, namespace, name, all, deleted, round]);

  return (
    <section className="object-events" aria-label="Events" data-testid="object-events">
      <div className="section-head">
        <h3>Events</h3>
        <label className="toggle">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} disabled={deleted} /> All types
        </label>
        <button type="button" className="small-button" onClick={() => setRound((n) => n + 1)} disabled={deleted || load.state === "loading"}>
          Reload
        </button>
      </div>
      {deleted ? (
        <p className="muted">The object was deleted; its events are no longer read.</p>
      ) : load.state === "loading" ? (
        <p className="muted" role="status">
          Loading events…
        </p>
      ) : load.state === "failed" ? (
        <p className="object-error" role="alert">
          {load.message}
        </p>
      ) : load.events.length === 0 ? (
        <p className="muted">{all ? "No events" : "No warning events"}</p>
      ) : (
        <table className="mini-table events-table">
          <thead>
            <tr>
              <th>Type</th>
              <th>Reason</th>
              <th>Message</th>
              <th title="Occurrences">Count</th>
              <th title="Since the last occurrence">Age</th>
            </tr>
          </thead>
          <tbody>
            {load.events.map((event, i) => (
              <tr key={i} data-event-type={event.type} data-testid="object-event">
                <td>
                  <span className={event.type === "Warning" ? "event-type event-warning" : "event-type"}>{event.type || "?"}</span>
                </td>
                <td className="mono">{event.reason}</td>
                <td className="event-message" title={event.source ? `Reported by ${event.source}` : undefined}>
                  {event.message}
                </td>
                <td className="num" title={`${event.count} occurrences`}>
                  {event.count}
                </td>
                <td className="event-age" title={event.lastTimestamp ?? undefined}>{event.lastTimestamp ? formatAge(event.lastTimestamp, now) : "?"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
