// Who is signed in (`GET /api/whoami`, loaded once by the app shell) and their role per
// cluster, for every component that shows or disables something by role.
import { createContext, useContext, type ReactNode } from "react";
import type { WhoAmI } from "../api/wire";
import { denial, roleOn, type Role } from "./access";

/** undefined while loading or when whoami failed: then nothing is disabled (the server decides). */
const WhoAmIContext = createContext<WhoAmI | undefined>(undefined);

export function WhoAmIProvider({ value, children }: { value: WhoAmI | undefined; children: ReactNode }) {
  return <WhoAmIContext.Provider value={value}>{children}</WhoAmIContext.Provider>;
}

export function useWhoAmI(): WhoAmI | undefined {
  return useContext(WhoAmIContext);
}

export interface ClusterAccess {
  /** The caller's role on the cluster; undefined while unknown. */
  role: Role | undefined;
  /** Why the caller may not do what needs `need`, or null (also while the role is unknown). */
  denied: (need: Role) => string | null;
}

export function useClusterAccess(clusterId: string): ClusterAccess {
  const whoami = useWhoAmI();
  const role = whoami ? roleOn(whoami, clusterId) : undefined;
  return { role, denied: (need) => (role ? denial(role, need) : null) };
}
