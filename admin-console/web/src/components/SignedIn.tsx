// The top bar's identity: who is signed in and their role on the cluster being viewed, or
// "open access" when the console runs without sign-in.
import { roleOn } from "../lib/access";
import { useWhoAmI } from "../lib/whoami";

export function SignedIn({ clusterId }: { clusterId: string | null }) {
  const whoami = useWhoAmI();
  if (!whoami) return null;
  const role = clusterId ? roleOn(whoami, clusterId) : null;
  // A role below admin is worth showing in open mode too (read-only clusters).
  const rolePill = role && role !== "none" && (whoami.mode !== "open" || role !== "admin") && (
    <span className={`pill access-role access-role-${role}`} data-testid="identity-role" title={`Your role on this cluster: ${role}`}>
      {role}
    </span>
  );
  if (whoami.mode === "open") {
    return (
      <span className="identity" data-testid="identity">
        <span className="pill" title="No sign-in (access.mode: open): everyone who reaches the console has full access, except on read-only clusters.">
          open access
        </span>
        {rolePill}
      </span>
    );
  }
  const details = [
    whoami.user,
    whoami.email,
    whoami.groups.length > 0 ? `Groups: ${whoami.groups.join(", ")}` : "No groups",
  ].filter(Boolean);
  return (
    <span className="identity" data-testid="identity">
      <span className="identity-user" title={details.join("\n")} data-testid="identity-user">
        <span className="identity-avatar" aria-hidden>
          {(whoami.user ?? "?").slice(0, 1).toUpperCase()}
        </span>
        {whoami.user}
      </span>
      {rolePill}
    </span>
  );
}
