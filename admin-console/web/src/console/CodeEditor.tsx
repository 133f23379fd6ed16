// CodeMirror 6 for the request body (editable) and the response (read-only). Highlighting
// uses static `tok-*` classes so the colours follow the light/dark theme's CSS variables.
import { useEffect, useRef } from "react";
import { EditorState, Prec, type Extension } from "@codemirror/state";
import {
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  placeholder as placeholderExt,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, foldGutter, foldKeymap, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { json } from "@codemirror/lang-json";
import { classHighlighter } from "@lezer/highlight";

interface Props {
  value: string;
  onChange?: (value: string) => void;
  /** Ctrl/Cmd+Enter inside the editor. */
  onSubmit?: () => void;
  readOnly?: boolean;
  language?: "json" | "text";
  placeholder?: string;
  ariaLabel: string;
  testId?: string;
  /** More extensions, ahead of the defaults (their key bindings win); keep the array stable. */
  extensions?: Extension[];
  /** The editor, once created (and null when it goes). */
  onView?: (view: EditorView | null) => void;
}

export function CodeEditor({
  value,
  onChange,
  onSubmit,
  readOnly,
  language = "json",
  placeholder,
  ariaLabel,
  testId,
  extensions: extra,
  onView,
}: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const callbacks = useRef({ onChange, onSubmit, onView });
  callbacks.current = { onChange, onSubmit, onView };

  useEffect(() => {
    const extensions: Extension[] = [
      ...(extra ?? []),
      lineNumbers(),
      foldGutter(),
      drawSelection(),
      bracketMatching(),
      syntaxHighlighting(classHighlighter),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ "aria-label": ariaLabel }),
      Prec.highest(
        keymap.of([
          {
            key: "Mod-Enter",
            run: () => {
              callbacks.current.onSubmit?.();
              return true;
            },
          },
        ]),
      ),
      keymap.of([...defaultKeymap, ...historyKeymap, ...foldKeymap, indentWithTab]),
    ];
    if (language === "json") extensions.push(json());
    if (readOnly) {
      extensions.push(EditorState.readOnly.of(true), EditorView.editable.of(false));
    } else {
      extensions.push(
        history(),
        indentOnInput(),
        highlightActiveLine(),
        highlightActiveLineGutter(),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) callbacks.current.onChange?.(update.state.doc.toString());
        }),
      );
      if (placeholder) extensions.push(placeholderExt(placeholder));
    }
    const editor = new EditorView({
      state: EditorState.create({ doc: value, extensions }),
      parent: host.current!,
    });
    view.current = editor;
    callbacks.current.onView?.(editor);
    return () => {
      editor.destroy();
      view.current = null;
      callbacks.current.onView?.(null);
    };
    // The editor is rebuilt only when its kind changes; `value` is synced below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [readOnly, language, ariaLabel, placeholder, extra]);

  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div className={`code-editor ${readOnly ? "read-only" : ""}`} ref={host} data-testid={testId} />;
}
