// The request editor's completion: methods at the start of a request line, API paths (and
// index and alias names) after the method, body keys inside the JSON.
import type { Completion, CompletionContext, CompletionResult, CompletionSource } from "@codemirror/autocomplete";
import { HTTP_METHODS } from "../history";
import { isCommentLine, methodOfLine, parseRequests } from "../parse";
import { bodyKind, keyContext, keysFor } from "./body";
import { pathOptions, type Endpoint, type Names } from "./paths";

export interface CompletionData {
  endpoints: () => Endpoint[];
  /** Index and alias names; fetched once per console session by the caller. */
  names: () => Promise<Names>;
}

const KIND_TYPE = { endpoint: "keyword", index: "variable", alias: "variable" } as const;

export function consoleCompletion(data: CompletionData): CompletionSource {
  return async (context: CompletionContext): Promise<CompletionResult | null> => {
    const { state, pos } = context;
    const line = state.doc.lineAt(pos);
    const before = line.text.slice(0, pos - line.from);
    if (isCommentLine(before)) return null;

    // `METHOD path…`: complete the path segment under the cursor.
    const head = /^(\s*)([A-Za-z]+)(\s+)(\S*)$/.exec(before);
    if (head && methodOfLine(`${head[2]} x`)) {
      const method = head[2].toUpperCase();
      const typed = head[4];
      const needsNames = !typed.includes("?");
      const names = needsNames ? await data.names().catch(() => ({ indices: [], aliases: [] })) : { indices: [], aliases: [] };
      const found = pathOptions(data.endpoints(), method, typed, names);
      if (!found || found.options.length === 0) return null;
      const options: Completion[] = found.options.map((option) => ({
        label: option.label,
        type: KIND_TYPE[option.kind],
        detail: option.kind === "endpoint" ? option.detail : option.kind,
        boost: option.kind === "endpoint" ? 0 : option.label.startsWith(".") ? -2 : -1,
      }));
      return { from: pos - found.prefix.length, options, validFor: /^[^/?\s]*$/ };
    }

    // The start of a request line, outside any body: the methods.
    const lineIndex = line.number - 1;
    const owner = [...parseRequests(state.doc.toString())].reverse().find((r) => r.startLine < lineIndex) ?? null;
    const bodyStart = owner ? Math.min(state.doc.line(owner.startLine + 1).to + 1, state.doc.length) : 0;
    const word = /^\s*([A-Za-z]*)$/.exec(before);
    if (word && (!owner || bodyIsComplete(state.doc.sliceString(bodyStart, line.from)))) {
      if (word[1] === "" && !context.explicit) return null;
      return {
        from: pos - word[1].length,
        options: HTTP_METHODS.map((m) => ({ label: m, type: "keyword", apply: `${m} ` })),
        validFor: /^[A-Za-z]*$/,
      };
    }

    // Inside a body: keys.
    if (!owner || pos < bodyStart) return null;
    const kind = bodyKind(owner.method, owner.path);
    const ndjson = kind === "bulk" || kind === "msearch";
    const start = ndjson ? line.from : bodyStart;
    const text = stripComments(state.doc.sliceString(start, pos));
    const at = keyContext(text);
    if (!at) return null;
    const keys = keysFor(kind, at.parents);
    if (keys.length === 0) return null;
    if (!at.quoted && at.prefix === "" && !context.explicit) return null;
    const from = pos - (text.length - at.from);
    return {
      from,
      options: keys.map((key) => ({
        label: at.quoted ? `"${key}"` : key,
        displayLabel: key,
        type: "property",
        apply: `"${key}": `,
      })),
      validFor: at.quoted ? /^"?[\w.]*"?$/ : /^[\w.]*$/,
    };
  };
}

/** Comment lines blanked (keeping offsets) so the key scanner does not read them. */
function stripComments(text: string): string {
  return text
    .split("\n")
    .map((line) => (isCommentLine(line) ? " ".repeat(line.length) : line))
    .join("\n");
}

/** True when `text` (a body so far) holds no unclosed object or array: a new request may start. */
export function bodyIsComplete(text: string): boolean {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (const line of text.split("\n")) {
    if (isCommentLine(line)) continue;
    for (const c of line) {
      if (inString) {
        if (escaped) escaped = false;
        else if (c === "\\") escaped = true;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") depth--;
    }
    inString = false;
  }
  return depth <= 0;
}
