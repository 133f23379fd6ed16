// Generated from the Rust wire types by ingress-dash; do not edit.
// Regenerate with `make wire-types`.

export type ErrorBody = { error: ErrorDetail, };

export type ErrorDetail = { 
/**
 * Stable machine-readable code in snake_case, e.g. `unknown_cluster`.
 */
code: string, 
/**
 * One human sentence; never a stack trace or a secret.
 */
message: string, };

export type IngressRecord = { kind: RecordKind, uid: string, name: string, namespace: string, ingressClassName: string | null, hosts: Array<string>, rules: Array<Rule>, defaultBackend: Backend | null, tls: Array<Tls>, addresses: Array<string>, labels: { [key in string]: string }, annotations: { [key in string]: string }, createdAt: string, resourceVersion: string, links: Array<Link>, 
/**
 * One per distinct (service namespace, name, port) the record routes to.
 */
backends: Array<BackendStatus>, 
/**
 * One per TLS entry that names a Secret (ingresses only).
 */
certificates: Array<CertificateStatus>, 
/**
 * Gateway API routes (HTTPRoute, GRPCRoute, TLSRoute) only.
 */
route: RouteDetail | null, };

export type Rule = { host: string | null, paths: Array<PathRule>, };

export type PathRule = { path: string | null, pathType: string, backend: Backend, };

export type Backend = { "service": { name: string, port: ServicePort, } } | { "resource": ResourceBackend };

export type ServicePort = number | string;

export type ResourceBackend = { apiGroup: string | null, kind: string, name: string, };

export type Tls = { hosts: Array<string>, secretName: string | null, };

export type Link = { host: string, url: string, };

export type RecordKind = "Ingress" | "HTTPRoute" | "GRPCRoute" | "TLSRoute";

export type BackendStatus = { service: string, namespace: string, port: ServicePort | null, state: BackendState, readyEndpoints: number, totalEndpoints: number, 
/**
 * Why the state is `unknown` (the Services or EndpointSlices cannot be read), in words.
 */
error: string | null, };

export type BackendState = "ready" | "degraded" | "no_ready_endpoints" | "missing_service" | "unknown";

export type CertificateStatus = { secretName: string, 
/**
 * The entry's `hosts`.
 */
hosts: Array<string>, source: CertificateSource, 
/**
 * The certificate's DNS subject alternative names (or its common name when it has none).
 */
subjectNames: Array<string>, 
/**
 * RFC 3339.
 */
notBefore: string | null, 
/**
 * RFC 3339.
 */
notAfter: string | null, issuer: string | null, 
/**
 * Hosts of the entry or of the record's rules that no subject name covers.
 */
missingHosts: Array<string>, error: string | null, };

export type CertificateSource = "secret" | "cert_manager" | "not_read";

export type RouteDetail = { parentRefs: Array<ParentRef>, conditions: Array<RouteCondition>, rules: Array<RouteRule>, 
/**
 * Why the route does not work, per parent (empty: nothing found wrong).
 */
diagnosis: Array<RouteFinding>, };

export type ParentRef = { group: string, kind: string, namespace: string, name: string, sectionName: string | null, port: number | null, };

export type RouteCondition = { 
/**
 * The parent as `namespace/name` (with `/section` when the reference names one).
 */
parent: string, type: string, status: string, reason: string, message: string, };

export type RouteRule = { 
/**
 * Each match in words: "PathPrefix /api GET header x-env=canary".
 */
matches: Array<string>, backendRefs: Array<RouteBackendRef>, };

export type RouteBackendRef = { kind: string, name: string, namespace: string, port: number | null, weight: number, };

export type RouteFinding = { 
/**
 * The parent as `namespace/name` (with `/section`); absent: the route as a whole.
 */
parent: string | null, severity: FindingSeverity, code: FindingCode, 
/**
 * In words, with the controller's reason and message quoted where it gave them.
 */
message: string, };

export type FindingSeverity = "error" | "warning";

export type FindingCode = "never_attached" | "not_accepted" | "refs_not_resolved" | "service_missing" | "cross_namespace_without_grant";

export type RouteDiagnosis = { 
/**
 * From the live route's spec and status, and the grants read (not the backends' state:
 * that is the record's `route.diagnosis`).
 */
findings: Array<RouteFinding>, 
/**
 * Target namespaces whose ReferenceGrants were not read, with why.
 */
notRead: Array<NotRead>, };

export type NotRead = { namespace: string, reason: string, };

export type NamespaceError = { namespace: string, code: string, message: string, 
/**
 * The HTTP status the Kubernetes API answered, when it answered one (403, 503, ...).
 */
status?: number, };

export type Snapshot = { items: Array<IngressRecord>, errors: Array<NamespaceError>, 
/**
 * Notices about the whole installation the web app shows once, above the table (e.g. the
 * Gateway API is not installed, so HTTPRoutes are not shown). Not errors: nothing failed.
 */
notices: Array<Notice>, 
/**
 * `certificates.expiry_warning_days`: the web app's default for "certificate expires
 * within N days".
 */
expiryWarningDays: number, 
/**
 * The id of the last stream event whose effect this snapshot shows: a client opens the
 * stream with `lastEventId` set to it and gets every later change exactly once. Only in
 * `GET /api/ingresses` bodies made from the watchers' memory with every watcher of the
 * selection past its first list, and without `search` (the stream has no search).
 */
eventId?: number, };

export type Notice = { 
/**
 * Stable, snake_case: `gateway_api_not_installed`.
 */
code: string, 
/**
 * One sentence for people.
 */
message: string, };

export type RecoveredNotice = { namespace: string, };

export type ResyncNotice = { reason: string, };

export type NamespaceList = { namespaces: Array<string>, };

export type WhoAmI = { mode: "open" | "trusted_headers", user: string | null, email: string | null, groups: Array<string>, 
/**
 * `"*"`: every namespace the dashboard watches; otherwise the names and globs of the
 * caller's groups (or `access.default_namespaces`), sorted; empty: none.
 */
namespaces: string[] | "*", };

export type HealthBody = { status: string, timestamp: string, checks: Checks, };

export type Checks = { kubernetes: KubernetesCheck, };

export type KubernetesCheck = { 
/**
 * Milliseconds.
 */
latency: number, 
/**
 * The breaker's state, beside the specified fields (DECISIONS: visible in health).
 */
circuitBreaker: string, } & ({ "status": "up" } | { "status": "down", error: string, });

export type Reached = { "status": "up" } | { "status": "down", error: string, };

export type IngressAnnotations = { namespace: string, name: string, 
/**
 * `spec.ingressClassName`, else the legacy `kubernetes.io/ingress.class` annotation.
 */
ingressClassName: string | null, 
/**
 * `spec.controller` of that class (or of the default class).
 */
controller: string | null, 
/**
 * The catalogue's name of that controller (`ingress-nginx`), when it knows it.
 */
controllerName: string | null, 
/**
 * Why the controller is not known, or that the default class applies.
 */
controllerNote: string | null, catalogueVersion: string, 
/**
 * In key order (`kubectl.kubernetes.io/last-applied-configuration` left out).
 */
annotations: Array<AnnotationExplanation>, };

export type AnnotationExplanation = { key: string, 
/**
 * `<redacted>` when the redaction rules hide it; at most [`MAX_VALUE_CHARS`] characters.
 */
value: string, 
/**
 * The controller the annotation belongs to (`ingress-nginx`), by its prefix.
 */
controller: string | null, 
/**
 * What it does for that controller.
 */
does: string | null, 
/**
 * `null` for annotations of no controller.
 */
support: Support | null, 
/**
 * The Gateway API field (or policy) that says the same.
 */
gatewayApi: string | null, validity: Validity, 
/**
 * The valid forms, when the value is checked.
 */
expected: string | null, 
/**
 * The documentation the catalogue's entry was written from.
 */
source: string | null, warnings: Array<AnnotationWarning>, };

export type AnnotationWarning = { code: WarningCode, message: string, };

export type WarningCode = "snippet" | "unknown_key" | "other_controller" | "invalid_value";

export type Validity = "valid" | "invalid" | "not_checked";

export type Support = "gateway_api" | "implementation_specific" | "no_equivalent" | "unknown";

export type MigrationReport = { 
/**
 * The annotation catalogue's version (`controller@version`, comma-separated).
 */
catalogueVersion: string, 
/**
 * Why the Ingresses' controllers are unknown (IngressClasses not readable), if so.
 */
classesNote: string | null, totals: MigrationCounts, 
/**
 * By namespace name.
 */
namespaces: Array<NamespaceCounts>, 
/**
 * By number of Ingresses (most first), then key.
 */
annotations: Array<AnnotationUsage>, 
/**
 * By namespace, then name.
 */
ingresses: Array<IngressUsage>, 
/**
 * Namespaces whose Ingresses could not be read: the counts leave them out.
 */
errors: Array<NamespaceError>, };

export type MigrationCounts = { ingresses: number, 
/**
 * Ingresses with at least one controller annotation.
 */
ingressesWithAnnotations: number, 
/**
 * Controller annotations (one per Ingress and key).
 */
annotations: number, gatewayApi: number, implementationSpecific: number, noEquivalent: number, unknown: number, invalid: number, 
/**
 * Annotations of another controller than the one of the Ingress's class: they have no
 * effect today (when the class's controller is known).
 */
ignored: number, };

export type NamespaceCounts = { namespace: string, counts: MigrationCounts, };

export type AnnotationUsage = { key: string, controller: string, support: Support, gatewayApi: string | null, source: string | null, 
/**
 * Ingresses that carry it.
 */
ingresses: number, namespaces: Array<string>, 
/**
 * Of which with an invalid value.
 */
invalid: number, };

export type AnnotationUse = { key: string, 
/**
 * Redacted and bounded as in the explainer.
 */
value: string, support: Support, validity: Validity, warnings: Array<WarningCode>, };

export type IngressUsage = { namespace: string, name: string, ingressClassName: string | null, 
/**
 * `spec.controller` of its class, when known.
 */
controller: string | null, annotations: Array<AnnotationUse>, };

export type HostsReport = { 
/**
 * Sorted by host, at most [`MAX_HOSTS`].
 */
hosts: Array<HostEntry>, 
/**
 * Counts over every host that matched, also those past the limit.
 */
counts: HostCounts, 
/**
 * More hosts matched than were sent.
 */
truncated: boolean, 
/**
 * Namespaces whose records could not be read (left out).
 */
errors: Array<NamespaceError>, };

export type HostCounts = { hosts: number, conflicts: number, tlsOverlaps: number, duplicates: number, };

export type HostEntry = { 
/**
 * Lower-case; `*` for the rules without a host.
 */
host: string, objects: Array<ServingObject>, paths: Array<HostPath>, tls: Array<HostTls>, conflict: boolean, tlsOverlap: boolean, duplicate: boolean, 
/**
 * Each match that two or more objects claim, with which.
 */
conflicts: Array<Conflict>, 
/**
 * Each match one object claims more than once.
 */
duplicates: Array<Duplicate>, };

export type ServingObject = { kind: RecordKind, namespace: string, name: string, 
/**
 * The web app's key of the record (`namespace/name`, `httproute/namespace/name`,
 * `grpcroute/…`, `tlsroute/…`).
 */
key: string, 
/**
 * A route's Gateway listeners: `namespace/gateway` with `/section` when its parentRef
 * names one (and `:port` when it names a port).
 */
listeners: Array<string>, 
/**
 * Each Gateway parentRef of a route with the listeners it attaches to (read from the
 * Gateways for each answer), or why none.
 */
attachments: Array<Attachment>, };

export type Attachment = { gatewayNamespace: string, gateway: string, sectionName: string | null, port: number | null, 
/**
 * The listeners the parentRef selects that accept the route (empty: see `problem`, or
 * the Gateways not read).
 */
listeners: Array<AttachedListener>, 
/**
 * Why no listener: `no such Gateway`, `no such listener`, why each listener it selects
 * does not accept the route, or why the Gateways of its namespace were not read.
 */
problem: string | null, };

export type AttachedListener = { name: string, hostname: string | null, port: number, protocol: string, 
/**
 * `Terminate` or `Passthrough` (HTTPS and TLS listeners).
 */
tlsMode: string | null, 
/**
 * The Secrets (or other objects) its TLS certificates come from, `namespace/name`.
 */
certificateRefs: Array<string>, 
/**
 * What was not checked: `namespace selector not checked`.
 */
note: string | null, };

export type HostPath = { 
/**
 * The match in words, path type first: `PathPrefix /api`, `Exact /login GET`,
 * `ImplementationSpecific /`, `default backend`.
 */
matched: string, 
/**
 * The [`ServingObject::key`] of the object that claims it.
 */
object: string, backends: Array<PathBackend>, };

export type PathBackend = { 
/**
 * `Service`, or the kind of a resource backend.
 */
kind: string, namespace: string, name: string, port: ServicePort | null, 
/**
 * An HTTPRoute backendRef's weight.
 */
weight: number | null, 
/**
 * Services only, as the record says (absent while not known).
 */
state: BackendState | null, readyEndpoints: number, totalEndpoints: number, };

export type HostTls = { namespace: string, secretName: string, 
/**
 * The [`ServingObject::key`] of the object whose TLS entry names it (a route: whose
 * listener does).
 */
object: string, source: CertificateSource, 
/**
 * The leaf certificate's notAfter (RFC 3339), when known.
 */
notAfter: string | null, 
/**
 * cert-manager's `Ready` condition, when the certificate is known from its Certificate.
 */
certManagerReady: boolean | null, error: string | null, 
/**
 * The listener whose certificateRefs name it, `namespace/gateway/listener` (its
 * certificate is not read: `source` is `not_read`).
 */
listener: string | null, };

export type Conflict = { matched: string, 
/**
 * The keys of the objects that claim it.
 */
objects: Array<string>, };

export type Duplicate = { matched: string, object: string, times: number, };
