// CodeMirror pieces of the console's request editor: the request syntax's highlighting, a run
// button in the gutter on each request's first line, the request under the cursor marked,
// and Ctrl/Cmd+Enter to run it.
import { RangeSetBuilder, StateField, type EditorState, type Extension, Prec } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView, GutterMarker, gutter, keymap } from "@codemirror/view";
import { StreamLanguage } from "@codemirror/language";
import { parseRequests, requestAtLine, type ParsedRequest } from "./parse";
import { HTTP_METHODS } from "./history";

const METHOD_RE = new RegExp(`^(${HTTP_METHODS.join("|")})\\b`, "i");

/** Method lines, comments and JSON, tokenised line by line (classHighlighter gives `tok-*`). */
export const requestLanguage = StreamLanguage.define<{ path: boolean }>({
  name: "console-requests",
  startState: () => ({ path: false }),
  token(stream, state) {
    if (stream.sol()) {
      state.path = false;
      stream.eatSpace();
      if (stream.match("#") || stream.match("//")) {
        stream.skipToEnd();
        return "comment";
      }
      if (stream.match(METHOD_RE)) {
        state.path = true;
        return "keyword";
      }
    }
    if (stream.eatSpace()) return null;
    if (state.path) {
      stream.skipToEnd();
      return "url";
    }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) {
      return /^\s*:/.test(stream.string.slice(stream.pos)) ? "propertyName" : "string";
    }
    if (stream.match(/^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/)) return "number";
    if (stream.match(/^(?:true|false)\b/)) return "bool";
    if (stream.match(/^null\b/)) return "null";
    if (stream.match(/^[{}[\]]/)) return "bracket";
    stream.next();
    return null;
  },
});

/** The editor's requests, parsed again on every change (documents are small). */
export const requestsField = StateField.define<ParsedRequest[]>({
  create: (state) => parseRequests(state.doc.toString()),
  update: (value, tr) => (tr.docChanged ? parseRequests(tr.state.doc.toString()) : value),
});

export function requestAtCursor(state: EditorState): ParsedRequest | null {
  const line = state.doc.lineAt(state.selection.main.head).number - 1;
  return requestAtLine(state.field(requestsField), line);
}

class RunMarker extends GutterMarker {
  constructor(readonly line: number) {
    super();
  }
  eq(other: RunMarker) {
    return other.line === this.line;
  }
  toDOM() {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "run-request";
    button.title = "Run this request (Ctrl+Enter)";
    button.setAttribute("aria-label", "Run this request");
    button.textContent = "▶";
    return button;
  }
}

const activeLine = Decoration.line({ class: "cm-request-active" });

function activeDecorations(state: EditorState): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  const request = requestAtCursor(state);
  if (request) {
    for (let n = request.startLine; n <= request.endLine; n++) {
      const line = state.doc.line(n + 1);
      builder.add(line.from, line.from, activeLine);
    }
  }
  return builder.finish();
}

const activeField = StateField.define<DecorationSet>({
  create: activeDecorations,
  update: (value, tr) => (tr.docChanged || tr.selection ? activeDecorations(tr.state) : value),
  provide: (field) => EditorView.decorations.from(field),
});

/** Everything the request editor adds; `run` gets the request to send. */
export function requestEditorExtensions(run: (request: ParsedRequest) => void): Extension[] {
  const runAtCursor = (view: EditorView) => {
    const request = requestAtCursor(view.state);
    if (request) run(request);
    return true;
  };
  return [
    requestLanguage,
    requestsField,
    activeField,
    Prec.highest(keymap.of([{ key: "Mod-Enter", run: runAtCursor }])),
    gutter({
      class: "cm-run-gutter",
      lineMarker(view, line) {
        const n = view.state.doc.lineAt(line.from).number - 1;
        return view.state.field(requestsField).some((r) => r.startLine === n) ? new RunMarker(n) : null;
      },
      lineMarkerChange: (update) => update.docChanged,
      domEventHandlers: {
        mousedown(view, line) {
          const n = view.state.doc.lineAt(line.from).number - 1;
          const request = view.state.field(requestsField).find((r) => r.startLine === n);
          if (!request) return false;
          view.dispatch({ selection: { anchor: line.from } });
          run(request);
          return true;
        },
      },
    }),
  ];
}
