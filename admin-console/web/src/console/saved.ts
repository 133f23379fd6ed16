// The Saved tab's logic, without React: the form's fields into a draft, the visibilities the
// caller may pick, and whether loading a query would throw away text nobody saved.
import type { SavedQuery, SavedQueryDraft, Visibility } from "../api/savedQueries";

/** `"a, b ,a"` → `["a", "b"]`: trimmed, distinct, empty ones dropped. */
export function parseTags(input: string): string[] {
  const tags: string[] = [];
  for (const raw of input.split(",")) {
    const tag = raw.trim();
    if (tag !== "" && !tags.includes(tag)) tags.push(tag);
  }
  return tags;
}

/** `private` and one `group:<name>` per group of the caller. */
export function visibilityChoices(groups: readonly string[]): Visibility[] {
  return ["private", ...groups.filter((g) => g !== "" && !g.includes(",")).map((g) => `group:${g}` as Visibility)];
}

export interface SaveForm {
  name: string;
  tags: string;
  visibility: Visibility;
  /** For this cluster only, else for all clusters. */
  thisClusterOnly: boolean;
}

/** The draft to send, or why not (checked again by the server). */
export function draftFrom(form: SaveForm, text: string, clusterId: string): { draft: SavedQueryDraft } | { problem: string } {
  const name = form.name.trim();
  if (name === "") return { problem: "Give the query a name." };
  if (text.trim() === "") return { problem: "The editor is empty: there is nothing to save." };
  return {
    draft: {
      name,
      tags: parseTags(form.tags),
      text,
      cluster: form.thisClusterOnly ? clusterId : "all",
      visibility: form.visibility,
    },
  };
}

/**
 * Whether replacing the editor's `text` loses work: it does unless the text is empty, the
 * console's starting text, or exactly what was last loaded or saved (`baseline`).
 */
export function hasUnsavedText(text: string, baseline: string | null, defaultText: string): boolean {
  const t = text.trim();
  return t !== "" && t !== defaultText.trim() && t !== (baseline ?? "").trim();
}

/** The form prefilled from a stored query, for editing it. */
export function formOf(query: SavedQuery): SaveForm {
  return {
    name: query.name,
    tags: query.tags.join(", "),
    visibility: query.visibility,
    thisClusterOnly: query.cluster !== "all",
  };
}

/** "2 created, 1 skipped (Nodes: you already have this query)". */
export function importSummary(report: { created: unknown[]; skipped: { name: string | null; reason: string }[] }): string {
  const created = `${report.created.length} created`;
  if (report.skipped.length === 0) return created;
  const reasons = report.skipped.map((s) => `${s.name ?? "unnamed"}: ${s.reason}`).join("; ");
  return `${created}, ${report.skipped.length} skipped (${reasons})`;
}
