//! `access:`, `audit:` and a cluster's own `access:` — who may do what, and where state-changing
//! calls are recorded.

use std::path::PathBuf;

use serde::Deserialize;
use service_kit::config::ConfigProblems;
use service_kit::identity::AccessMode;

/// What a caller may do on a cluster, from least to most (`Ord` follows the order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Nothing: the cluster is hidden from the caller.
    None,
    /// Every view and the read-only console calls.
    Viewer,
    /// Also index operations and the allocation lock.
    Operator,
    /// Everything.
    Admin,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Viewer => "viewer",
            Self::Operator => "operator",
            Self::Admin => "admin",
        }
    }
}

/// One entry of a `roles:` list: members of `group` (a name or a glob such as `sre-*`) get `role`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleRule {
    pub group: String,
    pub role: Role,
}

/// `access:` — how callers are identified and what they may do.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AccessSettings {
    /// `open` (no sign-in in front: everyone is admin, except on read-only clusters) or
    /// `trusted_headers` (authproxy's `X-Auth-Request-*` headers from `server.trusted_proxies`).
    pub mode: AccessMode,
    /// The role of a signed-in user no rule gives more (`trusted_headers` only); default viewer.
    pub default_role: Option<Role>,
    /// Group → role, for every cluster without its own `access:`; the highest match wins.
    pub roles: Vec<RoleRule>,
}

/// The default `access.default_role` in `trusted_headers` mode.
pub const DEFAULT_ROLE: Role = Role::Viewer;

impl AccessSettings {
    pub fn default_role(&self) -> Role {
        self.default_role.unwrap_or(DEFAULT_ROLE)
    }

    pub(crate) fn validate(&self, problems: &mut ConfigProblems) {
        validate_rules(&self.roles, "access.roles", problems);
    }

    pub(crate) fn warnings(
        &self,
        trusted_proxies: &service_kit::client_address::TrustedProxies,
        per_cluster: bool,
        warnings: &mut ConfigProblems,
    ) {
        self.mode
            .warn_without_trusted_proxies(trusted_proxies, warnings);
        match self.mode {
            AccessMode::Open
                if self.default_role.is_some() || !self.roles.is_empty() || per_cluster =>
            {
                warnings.push(
                    "access.mode",
                    "is open: access.default_role, access.roles and clusters[].access are not \
                     used (everyone is admin, viewer on read-only clusters); set trusted_headers \
                     to apply them",
                );
            }
            _ => {}
        }
    }
}

/// A cluster's own `access:`, replacing the global `access.roles` (and, when given,
/// `access.default_role`) for that cluster.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClusterAccess {
    /// Default: `access.default_role`.
    pub default_role: Option<Role>,
    pub roles: Vec<RoleRule>,
}

impl ClusterAccess {
    pub(crate) fn validate(&self, at: &str, problems: &mut ConfigProblems) {
        validate_rules(&self.roles, &format!("{at}.roles"), problems);
    }
}

/// `audit:` — the audit log of state-changing calls (always on stdout, target `audit`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuditSettings {
    /// Also append each event, one JSON line, to this file (created when missing).
    pub file: Option<PathBuf>,
}

impl AuditSettings {
    pub(crate) fn validate(&self, problems: &mut ConfigProblems) {
        let Some(file) = &self.file else {
            return;
        };
        if file.as_os_str().is_empty() {
            problems.push("audit.file", "must not be empty when given");
            return;
        }
        problems.check(!file.is_dir(), "audit.file", "is a directory; name a file");
    }

    /// The directory may be mounted only where the service runs, so a missing one is a warning
    /// here (the service itself refuses to start without it).
    pub(crate) fn warnings(&self, warnings: &mut ConfigProblems) {
        let parent = self
            .file
            .as_deref()
            .and_then(std::path::Path::parent)
            .filter(|parent| !parent.as_os_str().is_empty());
        if let Some(parent) = parent {
            warnings.check(
                parent.is_dir(),
                "audit.file",
                "is in a directory that does not exist here; the service will not start without it",
            );
        }
    }
}

fn validate_rules(rules: &[RoleRule], at: &str, problems: &mut ConfigProblems) {
    for (index, rule) in rules.iter().enumerate() {
        let key = format!("{at}[{index}]");
        if rule.group.trim().is_empty() {
            problems.push(format!("{key}.group"), "must not be empty");
        } else if let Err(error) = compile_glob(&rule.group) {
            problems.push(
                format!("{key}.group"),
                format!("is not a valid group name or glob ({})", error.kind()),
            );
        }
        problems.check(
            rule.role != Role::None,
            &format!("{key}.role"),
            "must be viewer, operator or admin (a rule cannot take a role away; leave the group \
             out and set default_role: none)",
        );
    }
}

/// A group pattern: the whole name, case-sensitive; `*`, `?`, `[...]` and `{a,b}` as in shell
/// globs (a group name with none of them matches only itself).
pub(crate) fn compile_glob(pattern: &str) -> Result<globset::GlobMatcher, globset::Error> {
    Ok(globset::GlobBuilder::new(pattern)
        .literal_separator(false)
        .backslash_escape(true)
        .build()?
        .compile_matcher())
}
