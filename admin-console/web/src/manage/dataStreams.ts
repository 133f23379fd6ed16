// The logic of the Data streams view, kept out of the component so tests call it directly: the
// name rules (the server's: an index name, not `.ds-…`), the filter, and the words of a row.
import type { DataStreamRow } from "../api/wire";
import { nameProblem } from "../views/indexForms";

/** Why `name` cannot be a new data stream's name, or null: the index name rules (lowercase, no
 * \ / * ? " < > | , # : or spaces, not starting with - _ +), and not the backing indices'
 * `.ds-` prefix. */
export function dataStreamNameProblem(name: string): string | null {
  const problem = nameProblem(name, "index");
  if (problem) return problem.replace(/\bindex name\b/g, "data stream name");
  if (name.startsWith(".ds-")) return "The data stream name must not start with .ds- (the prefix of backing indices).";
  return null;
}

/** The rows whose name, template or a backing index contains `filter` (case-insensitive). */
export function filterDataStreams(rows: readonly DataStreamRow[], filter: string): DataStreamRow[] {
  const needle = filter.trim().toLowerCase();
  if (needle === "") return [...rows];
  return rows.filter(
    (row) =>
      row.name.toLowerCase().includes(needle) ||
      (row.template ?? "").toLowerCase().includes(needle) ||
      row.backingIndices.some((index) => index.name.toLowerCase().includes(needle)),
  );
}

/** The write index: the last backing index, as the cluster lists them. */
export function writeIndex(row: DataStreamRow): string | null {
  return row.backingIndices.length ? row.backingIndices[row.backingIndices.length - 1].name : null;
}

/** What a rollover did, in words. */
export function rolloverSummary(name: string, oldIndex: string | null, newIndex: string | null, rolledOver: boolean): string {
  if (!rolledOver) return `${name} was not rolled over.`;
  return `${name} rolled over: ${newIndex ?? "a new index"} is the write index now${oldIndex ? ` (was ${oldIndex})` : ""}.`;
}
