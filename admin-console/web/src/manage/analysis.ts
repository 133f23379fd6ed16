// The logic of the Analyze and Cat views, kept out of the components so tests call it directly:
// the analyze form turned into the request (the server's rules, said before sending), and the
// cat table's filter and sort.
import type { AnalyzeRequest } from "../api/analysis";

export const MAX_TEXT_CHARS = 10_000;
export const MAX_FILTERS = 20;

/** The analyzers every Elasticsearch and OpenSearch node has in core; the pattern, fingerprint
 * and language analyzers need the analysis-common module (most installs have it). */
export const BUILT_IN_ANALYZERS = ["standard", "simple", "whitespace", "stop", "keyword", "pattern", "fingerprint", "english", "french", "german", "spanish"];

export type AnalyzeMode = "analyzer" | "field" | "chain";

export interface AnalyzeForm {
  mode: AnalyzeMode;
  text: string;
  index: string;
  analyzer: string;
  field: string;
  tokenizer: string;
  /** Comma- or space-separated names. */
  filters: string;
  charFilters: string;
  explain: boolean;
}

/** `"lowercase, asciifolding stop"` → the names, in order. */
export function splitNames(text: string): string[] {
  return text.split(/[\s,]+/).filter((name) => name !== "");
}

const NAME = /^[A-Za-z0-9_.-]{1,255}$/;

/** The request the form makes, or why it cannot be sent. */
export function analyzeRequest(form: AnalyzeForm): { request: AnalyzeRequest } | { problem: string } {
  const chars = [...form.text].length;
  if (chars === 0) return { problem: "Type the text to analyse." };
  if (chars > MAX_TEXT_CHARS) return { problem: `The text is ${chars} characters long; the limit is ${MAX_TEXT_CHARS}.` };
  const index = form.index.trim();
  const request: AnalyzeRequest = { text: form.text, explain: form.explain };
  if (index !== "") request.index = index;
  const named = (word: string, name: string) => (NAME.test(name) ? null : `The ${word} "${name}" is not a name: letters, digits, _ - and . only.`);
  if (form.mode === "analyzer") {
    const analyzer = form.analyzer.trim();
    const problem = named("analyzer", analyzer);
    if (problem) return { problem: analyzer === "" ? "Name an analyzer." : problem };
    request.analyzer = analyzer;
  } else if (form.mode === "field") {
    if (index === "") return { problem: "A field is analysed by its index's mapping: name the index." };
    const field = form.field.trim();
    if (field === "") return { problem: "Name the field." };
    request.field = field;
  } else {
    const tokenizer = form.tokenizer.trim();
    if (tokenizer === "") return { problem: "Name a tokenizer." };
    const filters = splitNames(form.filters);
    const charFilters = splitNames(form.charFilters);
    for (const [word, list] of [
      ["filters", filters],
      ["char filters", charFilters],
    ] as const) {
      if (list.length > MAX_FILTERS) return { problem: `${list.length} ${word}; the limit is ${MAX_FILTERS}.` };
    }
    const problem = [named("tokenizer", tokenizer), ...filters.map((f) => named("filter", f)), ...charFilters.map((f) => named("char filter", f))].find((p) => p !== null);
    if (problem) return { problem };
    request.tokenizer = tokenizer;
    if (filters.length) request.filters = filters;
    if (charFilters.length) request.charFilters = charFilters;
  }
  return { request };
}

export type CatRow = ReadonlyArray<string | null>;

/** The rows with a cell containing `filter` (case-insensitive). */
export function filterCatRows(rows: readonly CatRow[], filter: string): CatRow[] {
  const needle = filter.trim().toLowerCase();
  if (needle === "") return [...rows];
  return rows.filter((row) => row.some((cell) => cell !== null && cell.toLowerCase().includes(needle)));
}

/** A cat value as a number when it is one: plain (`12`, `3.5`), a percentage (`87%`) or a size
 * or duration with a unit (`1.2kb`, `3gb`, `15ms`, `2.1s`), else null. */
export function catNumber(cell: string | null): number | null {
  if (cell === null) return null;
  const m = /^(-?\d+(?:\.\d+)?)(%|b|kb|mb|gb|tb|pb|nanos|micros|ms|s|m|h|d)?$/i.exec(cell.trim());
  if (!m) return null;
  const scale: Record<string, number> = {
    b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4, pb: 1024 ** 5,
    nanos: 1e-6, micros: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000,
  };
  return Number(m[1]) * (m[2] ? (scale[m[2].toLowerCase()] ?? 1) : 1);
}

/** The rows sorted by column `at`: numbers as numbers (units understood), else as text; empty
 * cells last either way. */
export function sortCatRows(rows: readonly CatRow[], at: number, order: "asc" | "desc"): CatRow[] {
  const sign = order === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = a[at] ?? null;
    const y = b[at] ?? null;
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    const nx = catNumber(x);
    const ny = catNumber(y);
    if (nx !== null && ny !== null) return (nx - ny) * sign;
    return x.localeCompare(y) * sign;
  });
}
