// The production guard's client side (docs/admin-console.md, "Production clusters"): a cluster
// configured with `environment: production` refuses every change without a typed reason in the
// `X-Change-Reason` header (428 `change_reason_required`). The confirmation dialogs ask for it
// and run their action with `runWithReason`; any other change the server refuses for want of a
// reason asks through the prompt the app shell registers (`setReasonPrompter`), then is sent
// again once; the console asks before sending a write.
import { createContext, useContext, useSyncExternalStore } from "react";

export const CHANGE_REASON_HEADER = "X-Change-Reason";
export const MAX_REASON_CHARS = 500;

// Control characters, and the invisible or direction-changing ones the server refuses too.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/u;

/** Why `text` cannot be sent as a reason, or null when it can (the same rules as the server). */
export function reasonProblem(text: string): string | null {
  const reason = text.trim();
  if (reason === "") return "Say why you make this change.";
  if (FORBIDDEN.test(reason)) return "Write the reason on one line, without control or invisible characters.";
  const length = [...reason].length;
  if (length > MAX_REASON_CHARS) return `At most ${MAX_REASON_CHARS} characters (${length} now).`;
  return null;
}

/** The header carrying `reason`: UTF-8, percent-encoded (browsers send only Latin-1 headers). */
export function reasonHeaders(reason: string): Record<string, string> {
  return { [CHANGE_REASON_HEADER]: encodeURIComponent(reason.trim()) };
}

/** Whether the cluster whose views are shown is a production one (set by the cluster layout). */
export const ProductionContext = createContext(false);

export function useProduction(): boolean {
  return useContext(ProductionContext);
}

// The environment of each cluster seen, for the console, which lives outside the cluster layout.
const production = new Map<string, boolean>();
const listeners = new Set<() => void>();

export function noteEnvironment(clusterId: string, environment: string | null | undefined) {
  const isProduction = environment === "production";
  if (production.get(clusterId) === isProduction) return;
  production.set(clusterId, isProduction);
  listeners.forEach((listener) => listener());
}

export function useIsProduction(clusterId: string): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => production.get(clusterId) ?? false,
  );
}

// The reason a confirmed dialog's action runs with: the dialogs are modal, so the changes made
// while it runs are that action's.
let pending: string | null = null;

/** Runs `action` with `reason` sent on each of its changes (calls other than GET and HEAD). */
export async function runWithReason<T>(reason: string | null, action: () => Promise<T> | T): Promise<T> {
  if (reason === null) return action();
  pending = reason;
  try {
    return await action();
  } finally {
    pending = null;
  }
}

/** The reason headers of a call made now with `method` (none for reads or without a reason). */
export function pendingReasonHeaders(method: string | undefined): Record<string, string> {
  const read = method === undefined || ["GET", "HEAD"].includes(method.toUpperCase());
  return pending !== null && !read ? reasonHeaders(pending) : {};
}

/** Asks the user for a reason: `message` says why (the server's words); null when cancelled. */
export type ReasonPrompter = (message: string) => Promise<string | null>;

let prompter: ReasonPrompter | null = null;

export function setReasonPrompter(next: ReasonPrompter | null) {
  prompter = next;
}

export function askReason(message: string): Promise<string | null> {
  return prompter ? prompter(message) : Promise.resolve(null);
}
