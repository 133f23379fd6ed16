//! Who may do what: the role of a caller on a cluster ([`AccessPolicy`]), the role a request
//! needs ([`action`]), and the middleware that compares the two on every request ([`guard`]).
//!
//! Roles, least to most: `none` (the cluster is hidden), `viewer` (every view, the console calls
//! of [`viewer`]'s table), `operator` (also index operations and the allocation lock), `admin`
//! (everything).

pub(crate) mod action;
pub(crate) mod guard;
pub(crate) mod reason;
mod sql;
pub(crate) mod viewer;

use std::collections::HashMap;

use globset::GlobMatcher;
use service_kit::identity::{AccessMode, Identity};

use crate::config::{Role, RoleRule, Settings, compile_glob};

/// A group → role mapping with its default.
#[derive(Debug, Clone)]
struct RoleMap {
    default_role: Role,
    rules: Vec<(GlobMatcher, Role)>,
}

impl RoleMap {
    fn new(default_role: Role, rules: &[RoleRule]) -> Self {
        Self {
            default_role,
            // Validation refused the patterns that do not compile.
            rules: rules
                .iter()
                .filter_map(|rule| Some((compile_glob(&rule.group).ok()?, rule.role)))
                .collect(),
        }
    }

    /// The highest role among the default and every rule matching one of the groups.
    fn role_of(&self, groups: &[String]) -> Role {
        self.rules
            .iter()
            .filter(|(glob, _)| groups.iter().any(|group| glob.is_match(group.as_str())))
            .map(|(_, role)| *role)
            .fold(self.default_role, Role::max)
    }
}

#[derive(Debug, Clone)]
struct ClusterRules {
    read_only: bool,
    /// `environment: production`: state-changing calls need a reason.
    production: bool,
    /// The cluster's own mapping, else the global one.
    roles: Option<RoleMap>,
}

/// The configured access rules, built once.
#[derive(Debug, Clone)]
pub(crate) struct AccessPolicy {
    mode: AccessMode,
    global: RoleMap,
    clusters: HashMap<String, ClusterRules>,
}

impl AccessPolicy {
    pub(crate) fn new(settings: &Settings) -> Self {
        let access = &settings.access;
        let default_role = access.default_role();
        let clusters = settings
            .clusters
            .iter()
            .map(|cluster| {
                let roles = cluster
                    .access
                    .as_ref()
                    .map(|own| RoleMap::new(own.default_role.unwrap_or(default_role), &own.roles));
                (
                    cluster.id.clone(),
                    ClusterRules {
                        read_only: cluster.read_only,
                        production: cluster.is_production(),
                        roles,
                    },
                )
            })
            .collect();
        Self {
            mode: access.mode,
            global: RoleMap::new(default_role, &access.roles),
            clusters,
        }
    }

    pub(crate) fn mode(&self) -> AccessMode {
        self.mode
    }

    pub(crate) fn knows(&self, cluster: &str) -> bool {
        self.clusters.contains_key(cluster)
    }

    /// Whether `cluster` is configured with `environment: production`.
    pub(crate) fn is_production(&self, cluster: &str) -> bool {
        self.clusters
            .get(cluster)
            .is_some_and(|rules| rules.production)
    }

    /// The caller's role on `cluster`. `open`: admin (viewer on a read-only cluster).
    /// `trusted_headers`: the highest of the default role and every matching rule of the
    /// cluster's mapping (its own, else the global one), at most viewer on a read-only cluster.
    /// An unknown cluster gets the global mapping (its handler answers 404 anyway).
    pub(crate) fn role(&self, cluster: &str, identity: &Identity) -> Role {
        let rules = self.clusters.get(cluster);
        let role = match self.mode {
            AccessMode::Open => Role::Admin,
            AccessMode::TrustedHeaders => rules
                .and_then(|rules| rules.roles.as_ref())
                .unwrap_or(&self.global)
                .role_of(&identity.groups),
        };
        if rules.is_some_and(|rules| rules.read_only) {
            role.min(Role::Viewer)
        } else {
            role
        }
    }

    /// The caller's highest role on any configured cluster (`none` when there are none).
    pub(crate) fn best_role(&self, identity: &Identity) -> Role {
        self.clusters
            .keys()
            .map(|cluster| self.role(cluster, identity))
            .max()
            .unwrap_or(Role::None)
    }

    /// The caller's lowest role over every configured cluster (`none` when there are none):
    /// what they may do on all clusters at once.
    pub(crate) fn lowest_role(&self, identity: &Identity) -> Role {
        self.clusters
            .keys()
            .map(|cluster| self.role(cluster, identity))
            .min()
            .unwrap_or(Role::None)
    }
}

/// The 403 message: which role the call needs where, and which the caller has.
pub(crate) fn denial_message(needed: Role, cluster: &str, has: Role) -> String {
    format!(
        "This needs the {} role on cluster {cluster}; you have {}.",
        needed.as_str(),
        has.as_str()
    )
}

#[cfg(test)]
mod tests {
    use service_kit::config::ConfigLoader;

    use super::*;

    fn policy(yaml: &str) -> AccessPolicy {
        let settings: Settings = ConfigLoader::new("TEST_UNUSED_PREFIX")
            .with_env(Default::default())
            .load_str(yaml)
            .unwrap();
        AccessPolicy::new(&settings)
    }

    fn who(groups: &[&str]) -> Identity {
        Identity {
            user: Some("u".to_owned()),
            email: None,
            groups: groups.iter().map(|group| (*group).to_owned()).collect(),
        }
    }

    const CLUSTERS: &str = "clusters:
  - {id: prod, name: Prod, url: 'http://127.0.0.1:1'}
  - {id: archive, name: Archive, url: 'http://127.0.0.1:2', read_only: true}
  - id: team
    name: Team
    url: 'http://127.0.0.1:3'
    access:
      default_role: none
      roles: [{group: team-a, role: admin}]
";

    #[test]
    fn open_mode_is_admin_except_on_read_only_clusters() {
        let open = policy(CLUSTERS);
        let anyone = Identity::anonymous();
        assert_eq!(open.role("prod", &anyone), Role::Admin);
        assert_eq!(open.role("team", &anyone), Role::Admin);
        assert_eq!(open.role("archive", &anyone), Role::Viewer);
    }

    #[test]
    fn groups_map_to_the_highest_matching_role() {
        let trusted = policy(&format!(
            "access:
  mode: trusted_headers
  roles:
    - {{group: 'sre-*', role: operator}}
    - {{group: dba, role: admin}}
    - {{group: 'sre-leads', role: viewer}}
{CLUSTERS}"
        ));
        assert_eq!(
            trusted.role("prod", &who(&[])),
            Role::Viewer,
            "default viewer"
        );
        assert_eq!(trusted.role("prod", &who(&["sre-leads"])), Role::Operator);
        assert_eq!(trusted.role("prod", &who(&["sre-x", "dba"])), Role::Admin);
        assert_eq!(
            trusted.role("prod", &who(&["SRE-x"])),
            Role::Viewer,
            "case-sensitive"
        );
        assert_eq!(
            trusted.role("prod", &who(&["xsre-a"])),
            Role::Viewer,
            "whole name"
        );
        // Read-only caps every role; the per-cluster mapping replaces the global one.
        assert_eq!(trusted.role("archive", &who(&["dba"])), Role::Viewer);
        assert_eq!(trusted.role("team", &who(&["dba"])), Role::None);
        assert_eq!(trusted.role("team", &who(&["team-a"])), Role::Admin);
        // Unknown clusters take the global mapping.
        assert_eq!(trusted.role("nope", &who(&["dba"])), Role::Admin);
    }

    #[test]
    fn the_default_role_applies_and_clusters_inherit_it() {
        let trusted = policy(
            "access: {mode: trusted_headers, default_role: none}
clusters:
  - {id: a, name: A, url: 'http://127.0.0.1:1'}
  - id: b
    name: B
    url: 'http://127.0.0.1:2'
    access: {roles: [{group: ops, role: operator}]}
",
        );
        assert_eq!(trusted.role("a", &who(&["ops"])), Role::None);
        assert_eq!(trusted.role("b", &who(&["x"])), Role::None);
        assert_eq!(trusted.role("b", &who(&["ops"])), Role::Operator);
    }

    #[test]
    fn denials_name_the_roles() {
        assert_eq!(
            denial_message(Role::Operator, "prod", Role::Viewer),
            "This needs the operator role on cluster prod; you have viewer."
        );
    }
}
