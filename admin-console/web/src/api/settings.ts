// Cluster settings: persistent and transient settings as flat keys, the defaults on
// request, and setting or resetting one (docs/api/admin-console.md, "Cluster settings").
import { announceSettingsChanged } from "../lib/settingsChanged";
import { cluster, request } from "./client";
import type { ClusterSettings, PutSettingBody, SettingScope } from "./wire";

export type SettingValue = PutSettingBody["value"];

export const settingsApi = {
  get: (id: string, includeDefaults: boolean, signal?: AbortSignal) =>
    request<ClusterSettings>(`${cluster(id)}/settings${includeDefaults ? "?includeDefaults=true" : ""}`, undefined, signal),
  /** Sets (or with `null` resets) one setting; then tells the views showing settings (`onSettingsChanged`). */
  put: async (id: string, scope: SettingScope, key: string, value: SettingValue) => {
    const answer = await request<ClusterSettings>(`${cluster(id)}/settings`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ scope, key, value } satisfies PutSettingBody),
    });
    announceSettingsChanged(id, key);
    return answer;
  },
};
