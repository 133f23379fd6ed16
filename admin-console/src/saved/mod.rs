//! Saved console queries a team shares (issue 34): the parsed query ([`SavedQuery`]), who may
//! read and edit one ([`Rights`]), the search, and the stores that keep them ([`store`]:
//! embedded or Redis) behind one trait with a version check on every write; the console's tabs
//! per user ([`tabs`]) in the same stores.

pub(crate) mod api;
mod draft;
pub(crate) mod store;
pub(crate) mod tabs;
pub(crate) mod tabs_api;

use serde::{Deserialize, Serialize};
use service_kit::identity::Identity;

use crate::access::AccessPolicy;
use crate::config::Role;

pub(crate) use draft::{Draft, Limits};

/// Who a saved query is for: its owner alone, or the members of one group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Visibility {
    Private,
    Group(String),
}

impl Visibility {
    /// `private` or `group:<name>`; `None` for anything else.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        if text == "private" {
            return Some(Self::Private);
        }
        let group = text.strip_prefix("group:")?;
        let valid = !group.is_empty()
            && group.len() <= 128
            && group.chars().all(|c| !c.is_control() && c != ',');
        valid.then(|| Self::Group(group.to_owned()))
    }
}

impl std::fmt::Display for Visibility {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Private => f.write_str("private"),
            Self::Group(group) => write!(f, "group:{group}"),
        }
    }
}

impl Serialize for Visibility {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Visibility {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text)
            .ok_or_else(|| serde::de::Error::custom("visibility must be private or group:<name>"))
    }
}

/// The cluster id a query is for, or `all`.
pub(crate) const ALL_CLUSTERS: &str = "all";

/// One saved query as stored and answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SavedQuery {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) tags: Vec<String>,
    /// The console text: one or more requests.
    pub(crate) text: String,
    /// A cluster id or `all`.
    pub(crate) cluster: String,
    pub(crate) visibility: Visibility,
    pub(crate) owner: String,
    /// 1 when created, one more on each edit.
    pub(crate) version: u64,
    /// RFC 3339, UTC.
    pub(crate) updated_at: String,
}

/// The caller's name as owner: the user, else the e-mail, else `anonymous` (open mode).
pub(crate) fn owner_of(identity: &Identity) -> String {
    identity
        .user
        .clone()
        .or_else(|| identity.email.clone())
        .unwrap_or_else(|| "anonymous".to_owned())
}

/// What one caller may do with saved queries, from the access policy.
pub(crate) struct Rights<'a> {
    pub(crate) policy: &'a AccessPolicy,
    pub(crate) identity: &'a Identity,
    pub(crate) owner: String,
}

impl<'a> Rights<'a> {
    pub(crate) fn new(policy: &'a AccessPolicy, identity: &'a Identity) -> Self {
        Self {
            policy,
            identity,
            owner: owner_of(identity),
        }
    }

    /// The caller's role on the query's cluster (on `all`: their best role on any).
    pub(crate) fn role_on(&self, cluster: &str) -> Role {
        if cluster == ALL_CLUSTERS {
            self.policy.best_role(self.identity)
        } else {
            self.policy.role(cluster, self.identity)
        }
    }

    /// Admin's rights over the queries of `cluster`: admin on it; for `all`, admin on every
    /// cluster (admin of one cluster is no admin of the others the query is also for).
    fn is_admin_of(&self, cluster: &str) -> bool {
        let role = if cluster == ALL_CLUSTERS {
            self.policy.lowest_role(self.identity)
        } else {
            self.policy.role(cluster, self.identity)
        };
        role == Role::Admin
    }

    fn member_of(&self, group: &str) -> bool {
        self.identity.groups.iter().any(|own| own == group)
    }

    /// Owners see their own; members of the group see a shared query; admins of its cluster
    /// (of every cluster, for a query for `all`) see all; nobody sees a query of a cluster hidden from them.
    pub(crate) fn may_read(&self, query: &SavedQuery) -> bool {
        let role = self.role_on(&query.cluster);
        if role == Role::None {
            return false;
        }
        query.owner == self.owner
            || self.is_admin_of(&query.cluster)
            || matches!(&query.visibility, Visibility::Group(group) if self.member_of(group))
    }

    /// Owners edit their own; members of a shared query's group who hold at least operator on
    /// its cluster edit it; admins of its cluster edit all.
    pub(crate) fn may_edit(&self, query: &SavedQuery) -> bool {
        let role = self.role_on(&query.cluster);
        if role == Role::None {
            return false;
        }
        query.owner == self.owner
            || self.is_admin_of(&query.cluster)
            || (role >= Role::Operator
                && matches!(&query.visibility, Visibility::Group(group) if self.member_of(group)))
    }

    /// Whether the caller may give a query this visibility: only to a group they are in
    /// (admins of the cluster to any).
    pub(crate) fn may_share_with(&self, visibility: &Visibility, cluster: &str) -> bool {
        match visibility {
            Visibility::Private => true,
            Visibility::Group(group) => self.member_of(group) || self.is_admin_of(cluster),
        }
    }
}

/// `GET /api/saved-queries` filters: `q` (in the name, a tag or the text, any case) and
/// `cluster` (the queries of that cluster and those for `all`).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Search {
    pub(crate) q: Option<String>,
    pub(crate) cluster: Option<String>,
    /// `export`: the export document instead of the list.
    pub(crate) format: Option<String>,
}

impl Search {
    pub(crate) fn matches(&self, query: &SavedQuery) -> bool {
        if let Some(cluster) = self.cluster.as_deref().filter(|c| !c.is_empty())
            && query.cluster != cluster
            && query.cluster != ALL_CLUSTERS
        {
            return false;
        }
        let Some(needle) = self.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) else {
            return true;
        };
        let needle = needle.to_lowercase();
        query.name.to_lowercase().contains(&needle)
            || query
                .tags
                .iter()
                .any(|tag| tag.to_lowercase().contains(&needle))
            || query.text.to_lowercase().contains(&needle)
    }
}

#[cfg(test)]
mod tests {
    use service_kit::config::ConfigLoader;

    use super::*;
    use crate::config::Settings;

    fn policy() -> AccessPolicy {
        let settings: Settings = ConfigLoader::new("TEST_UNUSED_PREFIX")
            .with_env(Default::default())
            .load_str(
                "access:
  mode: trusted_headers
  roles: [{group: 'sre-*', role: operator}, {group: dba, role: admin}]
clusters:
  - {id: prod, name: Prod, url: 'http://127.0.0.1:1'}
  - id: team
    name: Team
    url: 'http://127.0.0.1:2'
    access: {default_role: none, roles: [{group: team-a, role: viewer}]}
",
            )
            .unwrap();
        AccessPolicy::new(&settings)
    }

    fn who(user: &str, groups: &[&str]) -> Identity {
        Identity {
            user: Some(user.to_owned()),
            email: None,
            groups: groups.iter().map(|g| (*g).to_owned()).collect(),
        }
    }

    fn query(owner: &str, cluster: &str, visibility: &str) -> SavedQuery {
        SavedQuery {
            id: "q1".to_owned(),
            name: "Health".to_owned(),
            tags: vec!["daily".to_owned()],
            text: "GET _cluster/health".to_owned(),
            cluster: cluster.to_owned(),
            visibility: Visibility::parse(visibility).unwrap(),
            owner: owner.to_owned(),
            version: 1,
            updated_at: "2026-11-28T12:00:00Z".to_owned(),
        }
    }

    #[test]
    fn visibility_is_private_or_a_named_group() {
        assert_eq!(Visibility::parse("private"), Some(Visibility::Private));
        assert_eq!(
            Visibility::parse("group:sre-oncall"),
            Some(Visibility::Group("sre-oncall".to_owned()))
        );
        for bad in ["", "public", "group:", "group:a,b", "group:a\nb", "Private"] {
            assert_eq!(Visibility::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_private_query_is_its_owners_and_the_admins() {
        let policy = policy();
        let private = query("vera", "prod", "private");
        let (vera, otto, ada) = (
            who("vera", &["staff"]),
            who("otto", &["staff", "sre-oncall"]),
            who("ada", &["dba"]),
        );
        assert!(Rights::new(&policy, &vera).may_edit(&private));
        assert!(!Rights::new(&policy, &otto).may_read(&private));
        assert!(Rights::new(&policy, &ada).may_edit(&private));
    }

    #[test]
    fn group_members_read_a_shared_query_and_operators_among_them_edit_it() {
        let policy = policy();
        let shared = query("otto", "prod", "group:staff");
        let vera = who("vera", &["staff"]);
        let sam = who("sam", &["staff", "sre-x"]);
        let outsider = who("olga", &["sre-y"]);
        assert!(Rights::new(&policy, &vera).may_read(&shared));
        assert!(!Rights::new(&policy, &vera).may_edit(&shared), "viewer");
        assert!(
            Rights::new(&policy, &sam).may_edit(&shared),
            "operator in group"
        );
        assert!(!Rights::new(&policy, &outsider).may_read(&shared));
    }

    #[test]
    fn a_query_of_a_hidden_cluster_is_hidden_even_from_its_owner() {
        let policy = policy();
        let team = query("vera", "team", "private");
        assert!(!Rights::new(&policy, &who("vera", &["staff"])).may_read(&team));
        assert!(Rights::new(&policy, &who("vera", &["team-a"])).may_read(&team));
    }

    #[test]
    fn only_members_share_with_a_group() {
        let policy = policy();
        let vera = who("vera", &["staff"]);
        let rights = Rights::new(&policy, &vera);
        assert!(rights.may_share_with(&Visibility::parse("group:staff").unwrap(), "prod"));
        assert!(!rights.may_share_with(&Visibility::parse("group:dba").unwrap(), "prod"));
    }

    #[test]
    fn search_finds_name_tag_or_text_and_keeps_all_cluster_queries() {
        let health = query("vera", "prod", "private");
        let everywhere = query("vera", ALL_CLUSTERS, "private");
        let search = |q: &str, cluster: &str| Search {
            q: Some(q.to_owned()),
            cluster: Some(cluster.to_owned()),
            format: None,
        };
        assert!(search("HEALTH", "").matches(&health));
        assert!(search("dail", "").matches(&health));
        assert!(search("_cluster/", "prod").matches(&health));
        assert!(!search("nodes", "").matches(&health));
        assert!(!search("", "other").matches(&health));
        assert!(search("", "other").matches(&everywhere));
    }
}
