// Records arrive without their empty parts: the server leaves out every field whose value is
// null, [] or {} (docs/api/ingress-dash.md, "Absent fields"). This is the one place that fills
// them back in, so the rest of the app reads the full shape of the generated wire types.
// It fills the freshly parsed objects in place (no copies: a snapshot may hold 50,000 records).

import type { StreamEvent, StreamEventType } from "./events";
import type { IngressRecord, Snapshot } from "./wire";

/** A parsed JSON object whose fields the decoder may fill in. */
type Loose = Record<string, unknown>;

const EMPTY_LIST = 0;
const EMPTY_MAP = 1;
const NULL = 2;
type Empty = typeof EMPTY_LIST | typeof EMPTY_MAP | typeof NULL;

/** Gives each of `fields` missing from `object` its empty value. */
function fill(object: Loose, fields: readonly (readonly [string, Empty])[]): void {
  for (const [field, empty] of fields) {
    if (object[field] === undefined) object[field] = empty === EMPTY_LIST ? [] : empty === EMPTY_MAP ? {} : null;
  }
}

function each(value: unknown, decode: (item: Loose) => void): void {
  if (Array.isArray(value)) for (const item of value) if (item && typeof item === "object") decode(item as Loose);
}

// Which fields each object of a record may lack, and their empty value.
const RECORD_FIELDS = [
  ["ingressClassName", NULL],
  ["hosts", EMPTY_LIST],
  ["rules", EMPTY_LIST],
  ["defaultBackend", NULL],
  ["tls", EMPTY_LIST],
  ["addresses", EMPTY_LIST],
  ["labels", EMPTY_MAP],
  ["annotations", EMPTY_MAP],
  ["links", EMPTY_LIST],
  ["backends", EMPTY_LIST],
  ["certificates", EMPTY_LIST],
  ["route", NULL],
] as const;
const RULE_FIELDS = [
  ["host", NULL],
  ["paths", EMPTY_LIST],
] as const;
const PATH_FIELDS = [["path", NULL]] as const;
const RESOURCE_FIELDS = [["apiGroup", NULL]] as const;
const TLS_FIELDS = [
  ["hosts", EMPTY_LIST],
  ["secretName", NULL],
] as const;
const BACKEND_STATUS_FIELDS = [
  ["port", NULL],
  ["error", NULL],
] as const;
const CERTIFICATE_FIELDS = [
  ["hosts", EMPTY_LIST],
  ["subjectNames", EMPTY_LIST],
  ["notBefore", NULL],
  ["notAfter", NULL],
  ["issuer", NULL],
  ["missingHosts", EMPTY_LIST],
  ["error", NULL],
] as const;
const ROUTE_FIELDS = [
  ["parentRefs", EMPTY_LIST],
  ["conditions", EMPTY_LIST],
  ["rules", EMPTY_LIST],
  ["diagnosis", EMPTY_LIST],
] as const;
const FINDING_FIELDS = [["parent", NULL]] as const;
const PARENT_REF_FIELDS = [
  ["sectionName", NULL],
  ["port", NULL],
] as const;
const ROUTE_RULE_FIELDS = [
  ["matches", EMPTY_LIST],
  ["backendRefs", EMPTY_LIST],
] as const;
const BACKEND_REF_FIELDS = [["port", NULL]] as const;

function fillBackend(backend: unknown): void {
  const resource = backend && typeof backend === "object" ? (backend as Loose).resource : undefined;
  if (resource && typeof resource === "object") fill(resource as Loose, RESOURCE_FIELDS);
}

/** One record as the server sends it (empty parts left out), filled in place to the full shape. */
export function decodeRecord(raw: unknown): IngressRecord {
  const record = raw as Loose;
  fill(record, RECORD_FIELDS);
  each(record.rules, (rule) => {
    fill(rule, RULE_FIELDS);
    each(rule.paths, (path) => {
      fill(path, PATH_FIELDS);
      fillBackend(path.backend);
    });
  });
  fillBackend(record.defaultBackend);
  each(record.tls, (tls) => fill(tls, TLS_FIELDS));
  each(record.backends, (backend) => fill(backend, BACKEND_STATUS_FIELDS));
  each(record.certificates, (certificate) => fill(certificate, CERTIFICATE_FIELDS));
  const route = record.route;
  if (route && typeof route === "object") {
    const detail = route as Loose;
    fill(detail, ROUTE_FIELDS);
    each(detail.parentRefs, (parent) => fill(parent, PARENT_REF_FIELDS));
    each(detail.rules, (rule) => {
      fill(rule, ROUTE_RULE_FIELDS);
      each(rule.backendRefs, (ref) => fill(ref, BACKEND_REF_FIELDS));
    });
    each(detail.diagnosis, (finding) => fill(finding, FINDING_FIELDS));
  }
  return record as unknown as IngressRecord;
}

/** A snapshot's data, every item filled in place (unless `itemsFilled`: done as they were read). */
export function decodeSnapshot(raw: unknown, itemsFilled = false): Snapshot {
  const snapshot = raw as Loose;
  fill(snapshot, [
    ["items", EMPTY_LIST],
    ["errors", EMPTY_LIST],
    ["notices", EMPTY_LIST],
  ]);
  if (!itemsFilled) for (const item of snapshot.items as unknown[]) decodeRecord(item);
  return snapshot as unknown as Snapshot;
}

/** A stream event from its name and parsed data: the records in it get their full shape. */
export function decodeEvent(type: StreamEventType, data: unknown): StreamEvent {
  switch (type) {
    case "snapshot":
      return { type, data: decodeSnapshot(data) };
    case "added":
    case "modified":
    case "deleted":
      return { type, data: decodeRecord(data) };
    default:
      return { type, data } as StreamEvent;
  }
}
