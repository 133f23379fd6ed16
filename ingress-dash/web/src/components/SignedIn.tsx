// The header's identity: who the front door signed in (access.mode: trusted_headers) and the
// namespaces they may see. Nothing in open mode, where nobody is signed in and everyone sees all.
import type { WhoAmI } from "../api/wire";
import { useWhoAmI } from "../lib/hooks";

/** The tooltip: the user, e-mail, groups and the namespaces (names or globs) they may see. */
export function identityDetails(whoami: WhoAmI): string {
  const namespaces =
    whoami.namespaces === "*"
      ? "Namespaces: all watched"
      : whoami.namespaces.length > 0
        ? `Namespaces: ${whoami.namespaces.join(", ")}`
        : "Namespaces: none (no group of yours is mapped to any)";
  return [whoami.user, whoami.email, whoami.groups.length > 0 ? `Groups: ${whoami.groups.join(", ")}` : "No groups", namespaces]
    .filter(Boolean)
    .join("\n");
}

export function SignedIn() {
  const whoami = useWhoAmI();
  if (!whoami || whoami.mode === "open" || !whoami.user) return null;
  const limited = whoami.namespaces !== "*";
  return (
    <span className="identity" data-testid="identity" title={identityDetails(whoami)}>
      <span className="identity-avatar" aria-hidden="true">
        {whoami.user.slice(0, 1).toUpperCase()}
      </span>
      <span className="identity-user" data-testid="identity-user">
        {whoami.user}
      </span>
      {limited && (
        <span className="identity-scope" data-testid="identity-scope">
          {whoami.namespaces.length === 1 ? whoami.namespaces[0] : `${whoami.namespaces.length} namespaces`}
        </span>
      )}
    </span>
  );
}
