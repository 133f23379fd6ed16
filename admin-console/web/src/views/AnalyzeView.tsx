// Analyze: how the cluster turns a text into tokens, by an analyzer, by an index's field (its
// mapping's analyzer) or by a chain of a tokenizer, token filters and char filters named one by
// one; the tokens as a table and, with "Explain", every step's output. Viewer: it only reads.
import { useState } from "react";
import { analysisApi } from "../api/analysis";
import type { AnalysisStep, AnalyzeResult, AnalyzedToken } from "../api/wire";
import { useTitle } from "../lib/router";
import { EmptyState, ErrorState } from "../components/common";
import { analyzeRequest, BUILT_IN_ANALYZERS, MAX_TEXT_CHARS, type AnalyzeForm, type AnalyzeMode } from "../manage/analysis";
import "../styles/cluster-ops.css";

const MODES: ReadonlyArray<{ id: AnalyzeMode; label: string }> = [
  { id: "analyzer", label: "Analyzer" },
  { id: "field", label: "Field of an index" },
  { id: "chain", label: "Tokenizer and filters" },
];

/** A row of its own in the wrapping form. */
const FULL = { flexBasis: "100%" } as const;

/** A checkbox or radio beside its words. */
const INLINE = { display: "inline-flex", alignItems: "center", gap: 6, flexDirection: "row" } as const;

const STEP_WORDS: Record<AnalysisStep["kind"], string> = {
  charFilter: "Char filter",
  tokenizer: "Tokenizer",
  tokenFilter: "Token filter",
  analyzer: "Analyzer",
};

function TokenTable({ tokens, testId }: { tokens: readonly AnalyzedToken[]; testId: string }) {
  if (tokens.length === 0) return <p className="muted">No tokens.</p>;
  return (
    <div className="table-wrap">
      <table className="table" data-testid={testId}>
        <thead>
          <tr>
            <th className="num">Position</th>
            <th>Token</th>
            <th className="num">Start</th>
            <th className="num">End</th>
            <th>Type</th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((token, at) => (
            <tr key={at} data-testid="analyze-token">
              <td className="num">{token.position ?? ""}</td>
              <td className="mono" data-testid="analyze-token-text">
                {token.token}
              </td>
              <td className="num">{token.startOffset ?? ""}</td>
              <td className="num">{token.endOffset ?? ""}</td>
              <td className="mono">{token.type ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function AnalyzeView({ clusterId }: { clusterId: string }) {
  useTitle(`${clusterId} · Analyze`);
  const [form, setForm] = useState<AnalyzeForm>({
    mode: "analyzer",
    text: "",
    index: "",
    analyzer: "standard",
    field: "",
    tokenizer: "standard",
    filters: "lowercase",
    charFilters: "",
    explain: false,
  });
  const [result, setResult] = useState<AnalyzeResult | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (change: Partial<AnalyzeForm>) => setForm((f) => ({ ...f, ...change }));
  const built = analyzeRequest(form);
  const problem = "problem" in built ? built.problem : null;

  const run = async () => {
    if ("problem" in built) return;
    setBusy(true);
    setError(null);
    try {
      setResult(await analysisApi.analyze(clusterId, built.request));
    } catch (e) {
      setResult(null);
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="view" data-testid="analyze-view">
      <form
        className="ops-form"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <div className="toolbar" style={FULL} role="radiogroup" aria-label="Analyse with">
          {MODES.map((mode) => (
            <label key={mode.id} style={INLINE}>
              <input type="radio" name="analyze-mode" checked={form.mode === mode.id} onChange={() => set({ mode: mode.id })} data-testid={`analyze-mode-${mode.id}`} /> {mode.label}
            </label>
          ))}
        </div>
        <label className="ops-field" style={FULL}>
          <span>Text ({[...form.text].length} of {MAX_TEXT_CHARS} characters)</span>
          <textarea className="mono" rows={3} value={form.text} onChange={(e) => set({ text: e.target.value })} spellCheck={false} data-testid="analyze-text" />
        </label>
        <label className="ops-field">
          <span>Index {form.mode === "field" ? "" : "(optional: its own analyzers and filters)"}</span>
          <input className="mono" value={form.index} onChange={(e) => set({ index: e.target.value })} autoComplete="off" spellCheck={false} data-testid="analyze-index" />
        </label>
        {form.mode === "analyzer" && (
          <label className="ops-field">
            <span>Analyzer</span>
            <input className="mono" list="analyze-analyzers" value={form.analyzer} onChange={(e) => set({ analyzer: e.target.value })} autoComplete="off" spellCheck={false} data-testid="analyze-analyzer" />
            <datalist id="analyze-analyzers">
              {BUILT_IN_ANALYZERS.map((name) => (
                <option key={name} value={name} />
              ))}
            </datalist>
          </label>
        )}
        {form.mode === "field" && (
          <label className="ops-field">
            <span>Field</span>
            <input className="mono" value={form.field} onChange={(e) => set({ field: e.target.value })} autoComplete="off" spellCheck={false} data-testid="analyze-field" />
          </label>
        )}
        {form.mode === "chain" && (
          <>
            <label className="ops-field">
              <span>Char filters (names, in order)</span>
              <input className="mono" value={form.charFilters} onChange={(e) => set({ charFilters: e.target.value })} placeholder="html_strip" autoComplete="off" spellCheck={false} data-testid="analyze-char-filters" />
            </label>
            <label className="ops-field">
              <span>Tokenizer</span>
              <input className="mono" value={form.tokenizer} onChange={(e) => set({ tokenizer: e.target.value })} autoComplete="off" spellCheck={false} data-testid="analyze-tokenizer" />
            </label>
            <label className="ops-field">
              <span>Token filters (names, in order)</span>
              <input className="mono" value={form.filters} onChange={(e) => set({ filters: e.target.value })} placeholder="lowercase, asciifolding" autoComplete="off" spellCheck={false} data-testid="analyze-filters" />
            </label>
          </>
        )}
        <div className="toolbar" style={FULL}>
          <label style={INLINE}>
            <input type="checkbox" checked={form.explain} onChange={(e) => set({ explain: e.target.checked })} data-testid="analyze-explain" /> Explain (every step's output)
          </label>
          <span className="spacer" />
          {form.text !== "" && problem && <span className="ops-error" data-testid="analyze-problem">{problem}</span>}
          <button type="submit" className="btn btn-primary btn-small" disabled={problem !== null || busy} data-testid="analyze-run">
            {busy ? "Analysing…" : "Analyze"}
          </button>
        </div>
      </form>
      {error ? (
        <div data-testid="analyze-error">
          <ErrorState error={error} />
        </div>
      ) : result === null ? (
        <EmptyState title="Nothing analysed yet">Type a text, choose how to analyse it, then Analyze.</EmptyState>
      ) : (
        <>
          <h3>Tokens ({result.tokens.length})</h3>
          <TokenTable tokens={result.tokens} testId="analyze-tokens" />
          {result.steps.length > 0 && (
            <div data-testid="analyze-steps">
              {result.steps.map((step, at) => (
                <section key={at} data-testid="analyze-step" data-step-kind={step.kind}>
                  <h4>
                    {STEP_WORDS[step.kind]} <span className="mono">{step.name}</span>
                  </h4>
                  {step.kind === "charFilter" ? (
                    <pre className="mono">{step.filteredText.join("\n")}</pre>
                  ) : (
                    <TokenTable tokens={step.tokens} testId="analyze-step-tokens" />
                  )}
                </section>
              ))}
            </div>
          )}
        </>
      )}
    </div>
  );
}
