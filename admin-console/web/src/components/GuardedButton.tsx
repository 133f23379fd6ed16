// A button for an action the caller's role may not allow: disabled with the reason
// (`denied`, from `useClusterAccess(...).denied(...)`) as its `data-denied` and as the title of
// a wrapper (a disabled button gets no pointer events, so the wrapper shows the hover text).
import type { ButtonHTMLAttributes } from "react";

interface GuardedButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** Why the caller may not, or null when they may. */
  denied: string | null;
  testId?: string;
}

export function GuardedButton({ denied, testId, disabled, children, ...rest }: GuardedButtonProps) {
  return (
    <span title={denied ?? undefined}>
      <button {...rest} disabled={denied !== null || disabled} data-denied={denied ?? undefined} data-testid={testId}>
        {children}
      </button>
    </span>
  );
}
