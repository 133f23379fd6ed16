// Kubernetes label selectors, as `kubectl get -l` takes them: `app=web`, `tier!=db`, `canary`,
// `!canary`, `env in (prod,staging)`, `env notin (dev)`, joined by commas.

export type Requirement =
  | { op: "exists" | "notExists"; key: string }
  | { op: "in" | "notIn"; key: string; values: string[] };

export type ParsedSelector = { ok: true; requirements: Requirement[] } | { ok: false; error: string };

// A qualified name with an optional DNS prefix (`app.kubernetes.io/name`), as label keys are.
const KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

export function parseLabelSelector(text: string): ParsedSelector {
  const requirements: Requirement[] = [];
  for (const part of splitTopLevel(text)) {
    const term = part.trim();
    if (term === "") continue;
    const parsed = parseRequirement(term);
    if (typeof parsed === "string") return { ok: false, error: parsed };
    requirements.push(parsed);
  }
  return { ok: true, requirements };
}

/** Splits on commas that are not inside `( … )`. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (c === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function parseRequirement(term: string): Requirement | string {
  const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(term);
  if (set) {
    const [, key = "", op, list = ""] = set;
    const values = list.split(",").map((v) => v.trim());
    const bad = checkKey(key) ?? values.map(checkValue).find((e) => e !== undefined);
    if (bad) return bad;
    return { op: op === "in" ? "in" : "notIn", key, values };
  }
  const equality = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
  if (equality) {
    const [, key = "", op, value = ""] = equality;
    const bad = checkKey(key) ?? checkValue(value);
    if (bad) return bad;
    return { op: op === "!=" ? "notIn" : "in", key, values: [value] };
  }
  if (term.startsWith("!")) {
    const key = term.slice(1).trim();
    return checkKey(key) ?? { op: "notExists", key };
  }
  return checkKey(term) ?? { op: "exists", key: term };
}

function checkKey(key: string): string | undefined {
  return KEY.test(key) ? undefined : `"${key}" is not a valid label key`;
}

function checkValue(value: string): string | undefined {
  return VALUE.test(value) && value.length <= 63 ? undefined : `"${value}" is not a valid label value`;
}

export function matchesSelector(labels: Readonly<Record<string, string>>, requirements: readonly Requirement[]): boolean {
  for (const r of requirements) {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key);
    switch (r.op) {
      case "exists":
        if (!has) return false;
        break;
      case "notExists":
        if (has) return false;
        break;
      case "in":
        if (!has || !r.values.includes(labels[r.key] as string)) return false;
        break;
      case "notIn":
        // As in Kubernetes: `k!=v` and `k notin (…)` also match objects without the label.
        if (has && r.values.includes(labels[r.key] as string)) return false;
        break;
    }
  }
  return true;
}
