// The settings editor's logic: what is shown for a value, and the body of a save.

/** A setting's value as text ("5s", "1", "a,b" for a list); null for an unset one. */
export function showValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(String).join(",");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** The changed settings to send: a value typed as text (the cluster parses settings from
 * strings), null to reset to the default; fields left empty are not sent. */
export function settingsEdit(edits: Record<string, string | null>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(edits)) {
    if (value === null) out[key] = null;
    else if (value.trim() !== "") out[key] = value.trim();
  }
  return out;
}
