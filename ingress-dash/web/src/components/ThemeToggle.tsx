import type { Theme } from "../lib/theme";

const LABEL: Record<Theme, string> = { light: "Light", dark: "Dark" };
const ICON: Record<Theme, string> = { light: "☀", dark: "☾" };

/** Switches between the light and the dark theme; the choice is remembered. */
export function ThemeToggle({ theme, onToggle }: { theme: Theme; onToggle(): void }) {
  const other = theme === "dark" ? "light" : "dark";
  return (
    <button
      type="button"
      className="control theme-toggle"
      onClick={onToggle}
      title={`Theme: ${LABEL[theme]} (click for ${LABEL[other].toLowerCase()})`}
      aria-label={`Switch to the ${LABEL[other].toLowerCase()} theme`}
      data-testid="theme-toggle"
    >
      <span aria-hidden="true">{ICON[theme]}</span> {LABEL[theme]}
    </button>
  );
}
