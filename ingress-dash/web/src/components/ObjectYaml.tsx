import { useEffect, useRef, useState } from "react";
import { fetchObjectYaml, type ObjectRef } from "../api/objects";
import "../styles/objects.css";

interface Props {
  target: ObjectRef;
  /** The object was deleted: there is no live object to show. */
  deleted?: boolean;
}

type Load =
  | { state: "hidden" }
  | { state: "loading" }
  | { state: "shown"; text: string }
  | { state: "failed"; message: string };

type CopyState = "idle" | "copied" | "failed";

/** How long "Copied" stays on the button. */
export const COPIED_FOR_MS = 1_500;

/**
 * The live object as YAML, read only when asked ("Show YAML"): managedFields removed and
 * annotation values redacted by the server; a Copy button (Clipboard API, else a selection and
 * `execCommand("copy")`, which works outside secure contexts).
 */
export function ObjectYaml({ target, deleted = false }: Props) {
  const [load, setLoad] = useState<Load>({ state: "hidden" });
  const [copy, setCopy] = useState<CopyState>("idle");
  const controller = useRef<AbortController | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const { kind, namespace, name } = target;

  // Another object, or the panel closing: forget what was shown and stop a read in flight.
  useEffect(() => {
    setLoad({ state: "hidden" });
    setCopy("idle");
    return () => {
      controller.current?.abort();
      if (timer.current) clearTimeout(timer.current);
    };
  }, [kind, namespace, name]);

  const show = () => {
    controller.current?.abort();
    const current = new AbortController();
    controller.current = current;
    setLoad({ state: "loading" });
    fetchObjectYaml({ kind, namespace, name }, current.signal).then(
      (text) => {
        if (!current.signal.aborted) setLoad({ state: "shown", text });
      },
      (error: unknown) => {
        if (current.signal.aborted) return;
        setLoad({ state: "failed", message: error instanceof Error ? error.message : String(error) });
      },
    );
  };

  const copyText = async (text: string) => {
    const ok = await copyToClipboard(text);
    setCopy(ok ? "copied" : "failed");
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopy("idle"), COPIED_FOR_MS);
  };

  return (
    <section className="object-yaml" aria-label="YAML" data-testid="object-yaml">
      <div className="section-head">
        <h3>YAML</h3>
        {load.state === "shown" ? (
          <>
            <button type="button" className="small-button" onClick={() => void copyText(load.text)}>
              {copy === "copied" ? "Copied" : "Copy"}
            </button>
            <button type="button" className="small-button" onClick={() => setLoad({ state: "hidden" })}>
              Hide YAML
            </button>
          </>
        ) : (
          <button type="button" className="small-button" onClick={show} disabled={deleted || load.state === "loading"}>
            Show YAML
          </button>
        )}
      </div>
      {deleted && load.state === "hidden" && <p className="muted">The object was deleted; there is no live object to show.</p>}
      {load.state === "loading" && (
        <p className="muted" role="status">
          Loading YAML…
        </p>
      )}
      {load.state === "failed" && (
        <p className="object-error" role="alert">
          {load.message}
        </p>
      )}
      {load.state === "shown" && (
        <>
          {copy === "failed" && (
            <p className="object-error" role="alert">
              Copying failed: select the text and copy it.
            </p>
          )}
          <span className="visually-hidden" role="status">
            {copy === "copied" ? "YAML copied to the clipboard" : ""}
          </span>
          <pre className="yaml-text mono" tabIndex={0} aria-label={`YAML of ${namespace}/${name}`}>
            {load.text}
          </pre>
        </>
      )}
    </section>
  );
}

/** Writes `text` to the clipboard: the Clipboard API where the page may use it, else a selection. */
export async function copyToClipboard(text: string): Promise<boolean> {
  if (typeof navigator !== "undefined" && navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Refused (no secure context, no permission): try the selection below.
    }
  }
  return copyWithSelection(text);
}

function copyWithSelection(text: string): boolean {
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  try {
    area.focus();
    area.select();
    return typeof document.execCommand === "function" && document.execCommand("copy");
  } catch {
    return false;
  } finally {
    area.remove();
  }
}
