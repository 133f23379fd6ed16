import type { ThemeChoice } from "../lib/hooks";

const NEXT: Record<ThemeChoice, ThemeChoice> = { system: "light", light: "dark", dark: "system" };
const LABEL: Record<ThemeChoice, string> = { system: "Auto", light: "Light", dark: "Dark" };
const ICON: Record<ThemeChoice, string> = { system: "◐", light: "☀", dark: "☾" };

/** Cycles system → light → dark. */
export function ThemeToggle({ choice, onChange }: { choice: ThemeChoice; onChange(choice: ThemeChoice): void }) {
  return (
    <button
      type="button"
      className="control theme-toggle"
      onClick={() => onChange(NEXT[choice])}
      title={`Theme: ${LABEL[choice]} (click for ${LABEL[NEXT[choice]].toLowerCase()})`}
      data-testid="theme-toggle"
    >
      <span aria-hidden="true">{ICON[choice]}</span> {LABEL[choice]}
    </button>
  );
}
