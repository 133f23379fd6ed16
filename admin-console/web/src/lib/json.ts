// JSON objects typed by a user (settings, mappings, filters): one verdict for the editor and
// the form that sends them.

export type JsonVerdict = { ok: true; value: Record<string, unknown> | undefined } | { ok: false; error: string };

/** Parses `text` as a JSON object; empty text is no object (`value: undefined`). The error
 * names the field and says what is wrong, with the line and column when the parser knows. */
export function parseJsonObject(text: string, field: string): JsonVerdict {
  if (text.trim() === "") return { ok: true, value: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `${field} is not valid JSON: ${position(text, (e as Error).message)}` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { ok: false, error: `${field} must be a JSON object ({…}), not ${Array.isArray(parsed) ? "a list" : parsed === null ? "null" : `a ${typeof parsed}`}.` };
  }
  return { ok: true, value: parsed as Record<string, unknown> };
}

/** The parser's message with a line and column added when it gives only an offset. */
function position(text: string, message: string): string {
  const at = /position (\d+)/.exec(message);
  if (!at || /line \d+/.test(message)) return message;
  const offset = Number(at[1]);
  const before = text.slice(0, offset).split("\n");
  return `${message} (line ${before.length}, column ${before[before.length - 1].length + 1})`;
}
