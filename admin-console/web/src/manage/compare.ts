// The compare view's logic: section titles, the filter (differences only, a name), and values
// written for a table cell.
import type { CompareEntry, CompareSection, CompareSectionKind, CompareState } from "../api/wire";

export const SECTION_TITLES: Record<CompareSectionKind, string> = {
  persistentSettings: "Persistent settings",
  transientSettings: "Transient settings",
  indexTemplates: "Index templates",
  componentTemplates: "Component templates",
  legacyTemplates: "Legacy templates",
  lifecyclePolicies: "Lifecycle policies (ILM / ISM)",
};

export const STATE_LABELS: Record<CompareState, string> = {
  onlyLeft: "only here",
  onlyRight: "only there",
  different: "different",
  same: "same",
};

/** The entries shown: the differences only when asked, and those whose name has every word. */
export function visibleEntries(section: CompareSection, differencesOnly: boolean, filter: string): CompareEntry[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  return section.entries.filter(
    (entry) =>
      (!differencesOnly || entry.state !== "same") && words.every((word) => entry.name.toLowerCase().includes(word)),
  );
}

/** A value for a cell: absent is an em dash, a string as it is, anything else as indented JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2);
}

/** The sections' total of differences, and how many sections one side could not read. */
export function summary(sections: readonly CompareSection[]): { differences: number; unreadable: number } {
  return {
    differences: sections.reduce((sum, section) => sum + section.differences, 0),
    unreadable: sections.filter((section) => section.leftError !== null || section.rightError !== null).length,
  };
}
