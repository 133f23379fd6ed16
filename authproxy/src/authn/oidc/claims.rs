//! From verified claims to an [`Identity`]: the user name from `oidc.username_claim` (then
//! `email`, then `sub`), groups from `oidc.groups_claim`, and every claim kept for role mappings.
//! An address the provider marks `email_verified: false` is dropped entirely: it names no user,
//! satisfies no `email` rule and is not passed on (anyone can type any address into a profile).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value};

use crate::identity::{AuthMethod, Identity, email_unverified};

/// The payload of a (verified) JWT as a claim map.
pub fn payload_of(jwt: &str) -> Option<Map<String, Value>> {
    let payload = jwt.split('.').nth(1)?;
    let bytes = URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// `None` when no claim gives a usable user name.
pub fn identity_from_claims(
    mut claims: Map<String, Value>,
    username_claim: &str,
    groups_claim: &str,
) -> Option<Identity> {
    if email_unverified(&claims) {
        claims.remove("email");
    }
    let text = |claims: &Map<String, Value>, name: &str| {
        claims
            .get(name)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|value| !value.is_empty())
            .map(str::to_owned)
    };
    let username = [username_claim, "email", "sub"]
        .iter()
        .find_map(|name| text(&claims, name))
        .filter(|name| is_usable_username(name))?;
    let email = text(&claims, "email").unwrap_or_default();
    let name = text(&claims, "name").unwrap_or_else(|| username.clone());
    let groups = match claims.get(groups_claim) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        Some(Value::String(one)) if !one.is_empty() => vec![one.clone()],
        _ => Vec::new(),
    };
    // Role mappings may name `username` and `groups` as for local users.
    claims.insert("username".to_owned(), Value::from(username.clone()));
    claims
        .entry("groups".to_owned())
        .or_insert_with(|| Value::from(groups.clone()));
    Some(Identity {
        username,
        email,
        name,
        groups,
        method: AuthMethod::Oidc,
        claims,
    })
}

/// A name both search clusters accept for a user and that is safe in a Basic credential.
fn is_usable_username(name: &str) -> bool {
    name.len() <= 507 && !name.contains(':') && !name.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn claims(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn username_falls_back_to_email_then_sub() {
        let identity = identity_from_claims(
            claims(json!({"sub": "u1", "preferred_username": "alice", "email": "a@x.io", "groups": ["ops"]})),
            "preferred_username",
            "groups",
        )
        .unwrap();
        assert_eq!(identity.username, "alice");
        assert_eq!(identity.groups, ["ops"]);
        assert_eq!(identity.claims["username"], "alice");
        let by_email = identity_from_claims(
            claims(json!({"sub": "u1", "email": "a@x.io"})),
            "preferred_username",
            "groups",
        )
        .unwrap();
        assert_eq!(by_email.username, "a@x.io");
        let by_sub =
            identity_from_claims(claims(json!({"sub": "u1"})), "preferred_username", "groups")
                .unwrap();
        assert_eq!(by_sub.username, "u1");
        assert!(identity_from_claims(claims(json!({"sub": "a:b"})), "x", "groups").is_none());
    }

    #[test]
    fn an_unverified_email_is_dropped() {
        for verified in [json!(false), json!("false")] {
            let identity = identity_from_claims(
                claims(
                    json!({"sub": "u1", "email": "ceo@example.com", "email_verified": verified}),
                ),
                "preferred_username",
                "groups",
            )
            .unwrap();
            assert_eq!(
                identity.username, "u1",
                "not named by the unverified address"
            );
            assert_eq!(identity.email, "");
            assert!(identity.claims.get("email").is_none());
        }
        let verified = identity_from_claims(
            claims(json!({"sub": "u1", "email": "a@example.com", "email_verified": true})),
            "preferred_username",
            "groups",
        )
        .unwrap();
        assert_eq!(verified.email, "a@example.com");
    }

    #[test]
    fn a_single_group_string_is_a_list_of_one() {
        let identity = identity_from_claims(
            claims(json!({"sub": "u", "roles": "admin"})),
            "sub",
            "roles",
        )
        .unwrap();
        assert_eq!(identity.groups, ["admin"]);
    }
}
