//! Claim-to-role mapping: each rule tests its own claim against a glob; the roles of every
//! matching rule are united, in rule order; no match gives the default roles.

use serde_json::Value;

use crate::config::RoleMapping;
use crate::config::glob::Glob;
use crate::identity::Identity;

/// The compiled `role_mappings` and `default_search_roles`.
#[derive(Debug, Clone)]
pub struct RoleMapper {
    /// Each mapping's claim, pattern (as written, for [`RoleMapper::explain`]), compiled
    /// pattern and roles.
    rules: Vec<(String, String, Glob, Vec<String>)>,
    default_roles: Vec<String>,
}

impl RoleMapper {
    /// Rules with an invalid pattern were rejected by validation; here they are skipped.
    pub fn new(rules: &[RoleMapping], default_roles: &[String]) -> Self {
        let rules = rules
            .iter()
            .filter_map(|rule| {
                let glob = Glob::new(&rule.pattern).ok()?;
                Some((
                    rule.claim.clone(),
                    rule.pattern.clone(),
                    glob,
                    rule.search_roles.clone(),
                ))
            })
            .collect();
        Self {
            rules,
            default_roles: default_roles.to_vec(),
        }
    }

    /// The roles for `identity`: the union of every matching rule's roles in rule order
    /// (without duplicates), else the default roles.
    pub fn roles_for(&self, identity: &Identity) -> Vec<String> {
        let mut roles: Vec<String> = Vec::new();
        // An address the provider has not verified proves nothing about who this is.
        let email_unverified = crate::identity::email_unverified(&identity.claims);
        for (claim, _, glob, rule_roles) in &self.rules {
            if claim == "email" && email_unverified {
                continue;
            }
            let matched = identity
                .claims
                .get(claim)
                .is_some_and(|value| claim_matches(value, glob));
            if matched {
                for role in rule_roles {
                    if !roles.contains(role) {
                        roles.push(role.clone());
                    }
                }
            }
        }
        if roles.is_empty() {
            self.default_roles.clone()
        } else {
            roles
        }
    }
}

/// Why an identity gets its roles (`GET /auth/explain`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RolesExplained {
    /// The roles, in the order [`RoleMapper::roles_for`] gives them, each with the mappings that
    /// gave it.
    pub roles: Vec<MappedRole>,
    /// No mapping matched: the roles are `default_search_roles`.
    pub default_roles: bool,
    /// Mappings on `email` are skipped: the provider says the address is not verified.
    pub email_unverified: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MappedRole {
    pub role: String,
    /// `role_mappings[i]: <claim> matches "<pattern>"` for each mapping that gave the role.
    pub from: Vec<String>,
}

impl RoleMapper {
    /// What [`RoleMapper::roles_for`] decides, with the reason for each role.
    pub fn explain(&self, identity: &Identity) -> RolesExplained {
        let email_unverified = crate::identity::email_unverified(&identity.claims);
        let mut roles: Vec<MappedRole> = Vec::new();
        for (index, (claim, pattern, glob, rule_roles)) in self.rules.iter().enumerate() {
            if claim == "email" && email_unverified {
                continue;
            }
            let matched = identity
                .claims
                .get(claim)
                .is_some_and(|value| claim_matches(value, glob));
            if !matched {
                continue;
            }
            let why = format!("role_mappings[{index}]: {claim} matches {pattern:?}");
            for role in rule_roles {
                match roles.iter_mut().find(|mapped| &mapped.role == role) {
                    Some(mapped) => mapped.from.push(why.clone()),
                    None => roles.push(MappedRole {
                        role: role.clone(),
                        from: vec![why.clone()],
                    }),
                }
            }
        }
        let default_roles = roles.is_empty();
        if default_roles {
            roles = self
                .default_roles
                .iter()
                .map(|role| MappedRole {
                    role: role.clone(),
                    from: vec!["default_search_roles".to_owned()],
                })
                .collect();
        }
        RolesExplained {
            roles,
            default_roles,
            email_unverified,
        }
    }
}

/// A string claim matches itself; a list matches when one of its items does; numbers and
/// booleans match their JSON text.
fn claim_matches(value: &Value, glob: &Glob) -> bool {
    match value {
        Value::String(text) => glob.matches(text),
        Value::Array(items) => items.iter().any(|item| claim_matches(item, glob)),
        Value::Number(number) => glob.matches(&number.to_string()),
        Value::Bool(flag) => glob.matches(if *flag { "true" } else { "false" }),
        Value::Null | Value::Object(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(claim: &str, pattern: &str, roles: &[&str]) -> RoleMapping {
        RoleMapping {
            claim: claim.to_owned(),
            pattern: pattern.to_owned(),
            search_roles: roles.iter().map(|r| (*r).to_owned()).collect(),
        }
    }

    #[test]
    fn roles_are_the_union_of_matches_else_the_defaults() {
        let mapper = RoleMapper::new(
            &[
                rule("groups", "admins", &["superuser", "kibana_user"]),
                rule("email", "*@example.com", &["kibana_user", "reader"]),
                rule("groups", "nobody", &["never"]),
            ],
            &["default_reader".to_owned()],
        );
        let admin = Identity::local("ann", "ann@example.com", "Ann", &["admins".to_owned()]);
        assert_eq!(
            mapper.roles_for(&admin),
            ["superuser", "kibana_user", "reader"]
        );
        let other = Identity::local("bob", "bob@other.org", "Bob", &[]);
        assert_eq!(mapper.roles_for(&other), ["default_reader"]);
        // email_verified: false never satisfies an email rule.
        let mut unverified = Identity::local("eve", "eve@example.com", "Eve", &[]);
        unverified
            .claims
            .insert("email_verified".to_owned(), serde_json::Value::Bool(false));
        assert_eq!(mapper.roles_for(&unverified), ["default_reader"]);
    }

    #[test]
    fn the_explanation_names_the_mappings_behind_each_role() {
        let mapper = RoleMapper::new(
            &[
                rule("groups", "admins", &["superuser", "kibana_user"]),
                rule("email", "*@example.com", &["kibana_user", "reader"]),
            ],
            &["default_reader".to_owned()],
        );
        let admin = Identity::local("ann", "ann@example.com", "Ann", &["admins".to_owned()]);
        let explained = mapper.explain(&admin);
        assert_eq!(
            explained
                .roles
                .iter()
                .map(|r| r.role.as_str())
                .collect::<Vec<_>>(),
            mapper.roles_for(&admin)
        );
        assert_eq!(
            explained.roles[1].from,
            [
                r#"role_mappings[0]: groups matches "admins""#,
                r#"role_mappings[1]: email matches "*@example.com""#
            ]
        );
        assert!(!explained.default_roles);
        let mut unverified = Identity::local("eve", "eve@example.com", "Eve", &[]);
        unverified
            .claims
            .insert("email_verified".to_owned(), serde_json::Value::Bool(false));
        let explained = mapper.explain(&unverified);
        assert!(explained.default_roles && explained.email_unverified);
        assert_eq!(explained.roles[0].role, "default_reader");
        assert_eq!(explained.roles[0].from, ["default_search_roles"]);
    }
}
