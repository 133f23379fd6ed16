//! Who sees what (`access:`): in `trusted_headers` mode every request but the probes must carry
//! the signed-in identity from a trusted proxy (service-kit's `identity`), and, when
//! `access.namespaces_by_group` is set, a user sees only the namespaces its groups are mapped to.
//!
//! The decision is a [`Visibility`], made once per request by the [`require_identity`]
//! middleware from the identity's groups and the compiled [`AccessPolicy`]. A limited view is a
//! filter over the same shared watchers (`Selection::Visible`), never watchers of its own.

pub(crate) mod redaction;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use actix_web::HttpMessage;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use globset::{Glob, GlobSet, GlobSetBuilder};
use service_kit::client_address::TrustedProxies;
use service_kit::config::ConfigProblems;
use service_kit::http::error_response;
use service_kit::identity::{AccessMode, Identity, IdentitySource};

use crate::names::is_dns1123_label;

/// `access:` of the settings.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AccessSettings {
    /// `open`: no sign-in, everyone sees everything; `trusted_headers`: the identity comes from
    /// the `X-Auth-Request-*` headers, believed only from `server.trusted_proxies`.
    pub mode: AccessMode,
    /// Group → namespaces (names or globs) its members see. Empty: everyone sees every namespace.
    pub namespaces_by_group: BTreeMap<String, Vec<String>>,
    /// What a user in none of the mapped groups sees; empty: nothing.
    pub default_namespaces: Vec<String>,
}

/// Characters that make a namespace entry a glob rather than a name.
const GLOB_CHARACTERS: &[char] = &['*', '?', '[', ']', '{', '}', '!', ','];

impl AccessSettings {
    /// Entries that can never work: group names a proxy cannot send, namespace entries that
    /// match no namespace name.
    pub(crate) fn validate(&self, problems: &mut ConfigProblems) {
        for (group, patterns) in &self.namespaces_by_group {
            let key = format!("access.namespaces_by_group.{group}");
            problems.check(
                !group.trim().is_empty()
                    && group.trim() == group
                    && !group.contains(',')
                    && !group.chars().any(char::is_control),
                &key,
                "is not a group name a sign-in proxy can send (empty, a comma, a control character or surrounding blanks)",
            );
            validate_patterns(&key, patterns, problems);
        }
        validate_patterns(
            "access.default_namespaces",
            &self.default_namespaces,
            problems,
        );
    }

    /// Valid but probably not meant (as admin-console's `access:`): a mode that refuses every
    /// caller, a mapping that is not used.
    pub(crate) fn warnings(&self, trusted_proxies: &TrustedProxies, warnings: &mut ConfigProblems) {
        let limited = !self.namespaces_by_group.is_empty();
        self.mode
            .warn_without_trusted_proxies(trusted_proxies, warnings);
        match self.mode {
            AccessMode::Open if limited || !self.default_namespaces.is_empty() => warnings.push(
                "access.mode",
                "is open: access.namespaces_by_group and access.default_namespaces are not used \
                 (nobody has groups, everyone sees every namespace); set trusted_headers to \
                 apply them",
            ),
            _ => {}
        }
        warnings.check(
            limited || self.default_namespaces.is_empty(),
            "access.default_namespaces",
            "is not used without access.namespaces_by_group (everyone sees every namespace)",
        );
    }
}

fn validate_patterns(key: &str, patterns: &[String], problems: &mut ConfigProblems) {
    for (index, pattern) in patterns.iter().enumerate() {
        if let Err(reason) = check_pattern(pattern) {
            problems.push(format!("{key}[{index}]"), reason);
        }
    }
}

/// A namespace entry is a DNS-1123 label, or a glob over them (`team-a-*`, `*`).
fn check_pattern(pattern: &str) -> Result<(), String> {
    if !pattern.contains(GLOB_CHARACTERS) {
        return if is_dns1123_label(pattern) {
            Ok(())
        } else {
            Err(format!(
                "\"{pattern}\" is not a valid namespace name (a DNS-1123 label) nor a glob"
            ))
        };
    }
    if !pattern.chars().all(|c| {
        c.is_ascii_lowercase()
            || c.is_ascii_digit()
            || c == '-'
            || c == '^'
            || GLOB_CHARACTERS.contains(&c)
    }) {
        return Err(format!(
            "\"{pattern}\" can never match: namespace names are lower-case letters, digits and '-'"
        ));
    }
    compile(pattern)
        .map(|_| ())
        .map_err(|error| format!("\"{pattern}\" is not a valid glob ({})", error.kind()))
}

fn compile(pattern: &str) -> Result<Glob, globset::Error> {
    Glob::new(pattern)
}

/// The namespaces of one group (or `default_namespaces`), compiled.
#[derive(Debug)]
pub struct NamespacePatterns {
    /// The entries as configured, sorted: what makes two filters equal.
    patterns: Vec<String>,
    /// One entry is `*`: every namespace.
    everything: bool,
    set: GlobSet,
}

impl NamespacePatterns {
    /// Entries were validated; one that still does not compile matches nothing.
    fn new(patterns: &[String]) -> Self {
        let mut sorted = patterns.to_vec();
        sorted.sort();
        sorted.dedup();
        let mut builder = GlobSetBuilder::new();
        for pattern in &sorted {
            if let Ok(glob) = compile(pattern) {
                builder.add(glob);
            }
        }
        Self {
            everything: sorted.iter().any(|pattern| pattern == "*"),
            set: builder.build().unwrap_or_else(|_| GlobSet::empty()),
            patterns: sorted,
        }
    }

    fn admits(&self, namespace: &str) -> bool {
        self.everything || self.set.is_match(namespace)
    }
}

/// The namespaces a limited user sees: the union of its groups' patterns.
#[derive(Debug, Clone, Default)]
pub struct NamespaceFilter {
    sets: Vec<Arc<NamespacePatterns>>,
}

impl NamespaceFilter {
    /// A filter of these entries (names or globs).
    #[cfg(test)]
    pub fn of(patterns: &[&str]) -> Self {
        let owned: Vec<String> = patterns.iter().map(|p| (*p).to_owned()).collect();
        Self {
            sets: vec![Arc::new(NamespacePatterns::new(&owned))],
        }
    }

    pub fn admits(&self, namespace: &str) -> bool {
        self.sets.iter().any(|set| set.admits(namespace))
    }

    /// Admits no namespace at all.
    pub fn is_empty(&self) -> bool {
        self.sets.iter().all(|set| set.patterns.is_empty())
    }

    fn patterns(&self) -> Vec<&str> {
        let mut all: Vec<&str> = self
            .sets
            .iter()
            .flat_map(|set| set.patterns.iter().map(String::as_str))
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }
}

impl PartialEq for NamespaceFilter {
    fn eq(&self, other: &Self) -> bool {
        self.patterns() == other.patterns()
    }
}

impl Eq for NamespaceFilter {}

/// What one caller may see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Visibility {
    /// Every namespace the dashboard watches (no mapping, or a group mapped to `*`).
    Everything,
    Limited(NamespaceFilter),
}

impl Visibility {
    pub fn admits(&self, namespace: &str) -> bool {
        match self {
            Visibility::Everything => true,
            Visibility::Limited(filter) => filter.admits(namespace),
        }
    }
}

/// The caller of a request, as the handlers see it (request extension).
#[derive(Debug, Clone)]
pub struct Viewer {
    pub mode: AccessMode,
    /// `None` in open mode.
    pub user: Option<String>,
    pub email: Option<String>,
    /// As the proxy sent them.
    pub groups: Vec<String>,
    pub visibility: Visibility,
}

/// `GET /api/whoami`: the caller and the namespaces it may see, for the web app's header.
#[derive(Debug, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct WhoAmI {
    #[cfg_attr(test, ts(type = "\"open\" | \"trusted_headers\""))]
    pub mode: &'static str,
    pub user: Option<String>,
    pub email: Option<String>,
    pub groups: Vec<String>,
    /// `"*"`: every namespace the dashboard watches; otherwise the names and globs of the
    /// caller's groups (or `access.default_namespaces`), sorted; empty: none.
    #[cfg_attr(test, ts(type = "string[] | \"*\""))]
    pub namespaces: VisibleNamespaces,
}

/// [`WhoAmI::namespaces`]: `"*"` or a list.
#[derive(Debug, PartialEq, Eq)]
pub enum VisibleNamespaces {
    Every,
    Listed(Vec<String>),
}

impl serde::Serialize for VisibleNamespaces {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            VisibleNamespaces::Every => serializer.serialize_str("*"),
            VisibleNamespaces::Listed(names) => names.serialize(serializer),
        }
    }
}

impl Viewer {
    pub fn whoami(&self) -> WhoAmI {
        WhoAmI {
            mode: self.mode.as_str(),
            user: self.user.clone(),
            email: self.email.clone(),
            groups: self.groups.clone(),
            namespaces: match &self.visibility {
                Visibility::Everything => VisibleNamespaces::Every,
                Visibility::Limited(filter) => VisibleNamespaces::Listed(
                    filter.patterns().into_iter().map(str::to_owned).collect(),
                ),
            },
        }
    }
}

/// `access:` compiled: how requests are identified and what each identity sees.
#[derive(Debug)]
pub struct AccessPolicy {
    source: IdentitySource,
    /// `None`: no `namespaces_by_group`, everyone sees everything.
    groups: Option<GroupRules>,
}

#[derive(Debug)]
struct GroupRules {
    by_group: HashMap<String, Arc<NamespacePatterns>>,
    default: Arc<NamespacePatterns>,
}

impl AccessPolicy {
    pub fn new(settings: &AccessSettings, trusted_proxies: TrustedProxies) -> Self {
        let groups = (!settings.namespaces_by_group.is_empty()).then(|| GroupRules {
            by_group: settings
                .namespaces_by_group
                .iter()
                .map(|(group, patterns)| {
                    (group.clone(), Arc::new(NamespacePatterns::new(patterns)))
                })
                .collect(),
            default: Arc::new(NamespacePatterns::new(&settings.default_namespaces)),
        });
        Self {
            source: IdentitySource::new(settings.mode, trusted_proxies),
            groups,
        }
    }

    /// The union of the identity's groups' namespaces; `default_namespaces` when it is in none
    /// of the mapped groups. Group names are exact and case-sensitive.
    pub fn visibility(&self, identity: &Identity) -> Visibility {
        let Some(rules) = &self.groups else {
            return Visibility::Everything;
        };
        let mut sets: Vec<Arc<NamespacePatterns>> = identity
            .groups
            .iter()
            .filter_map(|group| rules.by_group.get(group).cloned())
            .collect();
        if sets.is_empty() {
            sets.push(rules.default.clone());
        }
        if sets.iter().any(|set| set.everything) {
            return Visibility::Everything;
        }
        Visibility::Limited(NamespaceFilter { sets })
    }

    /// Who the request is from and what it sees; in `trusted_headers` mode a request without a
    /// trusted identity gets 401 `unauthenticated` (the common body).
    pub fn viewer(&self, request: &ServiceRequest) -> Result<Viewer, service_kit::http::Rejection> {
        let peer = request.peer_addr().map(|socket| socket.ip());
        let identity = self
            .source
            .identify(peer, request.headers())
            .inspect_err(|reason| {
                metrics::counter!("ingress_dash_access_denials_total", "reason" => "unauthenticated")
                    .increment(1);
                tracing::info!(
                    peer = peer.map(|p| p.to_string()).unwrap_or_default(),
                    path = request.path(),
                    reason = %reason,
                    "request without a trusted identity refused"
                );
            })
            .map_err(|reason| reason.rejection())?;
        Ok(Viewer {
            mode: self.source.mode,
            visibility: self.visibility(&identity),
            user: identity.user,
            email: identity.email,
            groups: identity.groups,
        })
    }
}

/// Paths that answer without an identity: the readiness probe (liveness and `/_metrics` are
/// served by the shell, outside these routes).
const PROBES: &[&str] = &["/api/health"];

/// Middleware: identifies the caller ([`AccessPolicy::viewer`]) and leaves its [`Viewer`] in the
/// request's extensions for the handlers, or answers 401.
pub async fn require_identity<B: MessageBody>(
    policy: Arc<AccessPolicy>,
    request: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    if PROBES.contains(&request.path()) {
        return Ok(next.call(request).await?.map_into_left_body());
    }
    match policy.viewer(&request) {
        Ok(viewer) => {
            request.extensions_mut().insert(viewer);
            Ok(next.call(request).await?.map_into_left_body())
        }
        Err(rejection) => {
            let response = error_response(&rejection);
            Ok(request.into_response(response).map_into_right_body())
        }
    }
}

#[cfg(test)]
mod tests {
    use service_kit::config::ConfigProblems;

    use super::*;

    /// The section written as JSON (the YAML loader is tested with the settings).
    fn settings(json: &str) -> AccessSettings {
        serde_json::from_str(json).unwrap()
    }

    fn identity(groups: &[&str]) -> Identity {
        Identity {
            user: Some("ann".into()),
            email: None,
            groups: groups.iter().map(|g| (*g).to_owned()).collect(),
        }
    }

    fn policy(json: &str) -> AccessPolicy {
        AccessPolicy::new(&settings(json), TrustedProxies::default())
    }

    fn problems(json: &str) -> String {
        let mut problems = ConfigProblems::new();
        settings(json).validate(&mut problems);
        problems.to_string()
    }

    fn warnings(json: &str, proxies: &[&str]) -> String {
        let mut warnings = ConfigProblems::new();
        let proxies = TrustedProxies::parse(proxies).unwrap();
        settings(json).warnings(&proxies, &mut warnings);
        warnings.to_string()
    }

    #[test]
    fn without_a_mapping_everyone_sees_everything() {
        let open = policy("{}");
        assert_eq!(
            open.visibility(&Identity::anonymous()),
            Visibility::Everything
        );
        let trusted = policy(r#"{"mode": "trusted_headers"}"#);
        assert_eq!(
            trusted.visibility(&identity(&["dev"])),
            Visibility::Everything
        );
    }

    #[test]
    fn a_user_sees_the_union_of_its_groups_namespaces() {
        let policy = policy(
            r#"{"mode": "trusted_headers", "namespaces_by_group": {
                "shop": ["shop", "shop-*"], "pay": ["payments"], "sre": ["*"]},
                "default_namespaces": ["public"]}"#,
        );
        let both = policy.visibility(&identity(&["unmapped", "shop", "pay"]));
        for seen in ["shop", "shop-staging", "payments"] {
            assert!(both.admits(seen), "{seen}");
        }
        for hidden in ["shopping", "kube-system", "public", "payments-eu"] {
            assert!(!both.admits(hidden), "{hidden}");
        }
        // A group mapped to `*` sees everything, whatever else it is in.
        assert_eq!(
            policy.visibility(&identity(&["pay", "sre"])),
            Visibility::Everything
        );
        // In no mapped group: the defaults; group names are case-sensitive.
        let outsider = policy.visibility(&identity(&["Shop"]));
        assert!(outsider.admits("public") && !outsider.admits("shop"));
    }

    #[test]
    fn no_mapped_group_and_no_default_sees_nothing() {
        let policy =
            policy(r#"{"mode": "trusted_headers", "namespaces_by_group": {"shop": ["shop"]}}"#);
        let nobody = policy.visibility(&identity(&[]));
        let Visibility::Limited(filter) = &nobody else {
            panic!("{nobody:?}")
        };
        assert!(filter.is_empty() && !nobody.admits("shop") && !nobody.admits("default"));
    }

    #[test]
    fn filters_compare_by_their_patterns() {
        assert_eq!(
            NamespaceFilter::of(&["b", "a-*"]),
            NamespaceFilter::of(&["a-*", "b", "b"])
        );
        assert_ne!(NamespaceFilter::of(&["a"]), NamespaceFilter::of(&["a-*"]));
        assert!(!NamespaceFilter::of(&["a"]).is_empty());
        assert!(NamespaceFilter::default().is_empty());
    }

    #[test]
    fn the_section_is_validated_with_precise_keys() {
        assert_eq!(problems("{}"), "");
        assert_eq!(
            problems(
                r#"{"mode": "trusted_headers", "namespaces_by_group": {"ops": ["team-*", "x"]}}"#
            ),
            ""
        );
        let found = problems(
            r#"{"mode": "trusted_headers", "namespaces_by_group": {
                "ops": ["Team-A", "", "team-[a", "a/b*", "team_a*", "ok-*"], "a,b": ["x"], " sp": ["x"]},
                "default_namespaces": ["UPPER*"]}"#,
        );
        for key in [
            "access.namespaces_by_group.ops[0]",
            "access.namespaces_by_group.ops[1]",
            "access.namespaces_by_group.ops[2]",
            "access.namespaces_by_group.ops[3]",
            "access.namespaces_by_group.ops[4]",
            "access.namespaces_by_group.a,b:",
            "access.namespaces_by_group. sp:",
            "access.default_namespaces[0]",
        ] {
            assert!(found.contains(key), "{key} missing in:\n{found}");
        }
        assert!(!found.contains("ops[5]"), "{found}");
    }

    #[test]
    fn settings_that_refuse_everyone_or_are_unused_are_warned_about() {
        assert_eq!(warnings("{}", &[]), "");
        let mapped = r#"{"mode": "trusted_headers", "namespaces_by_group": {"ops": ["a"]}}"#;
        assert_eq!(warnings(mapped, &["10.0.0.0/8"]), "");
        assert!(
            warnings(r#"{"mode": "trusted_headers"}"#, &[])
                .starts_with("server.trusted_proxies: is empty")
        );
        let open = warnings(r#"{"namespaces_by_group": {"ops": ["a"]}}"#, &[]);
        assert!(open.starts_with("access.mode: is open"), "{open}");
        let unused = warnings(
            r#"{"mode": "trusted_headers", "default_namespaces": ["a"]}"#,
            &["::1"],
        );
        assert!(
            unused.starts_with("access.default_namespaces: is not used"),
            "{unused}"
        );
    }
}
