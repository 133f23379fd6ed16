//! Who a request is from, once authenticated, whatever the method.

pub mod headers;

use std::fmt;

use serde_json::{Map, Value};

/// How the caller proved who they are; logged as `method`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthMethod {
    Basic,
    Oidc,
    /// An API client's JWT access token from the OIDC provider (`oidc.bearer`).
    Bearer,
}

impl AuthMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Basic => "basic",
            Self::Oidc => "oidc",
            Self::Bearer => "bearer",
        }
    }
}

impl fmt::Display for AuthMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An authenticated identity and the claims role mappings are evaluated against.
#[derive(Debug, Clone, PartialEq)]
pub struct Identity {
    pub username: String,
    pub email: String,
    pub name: String,
    pub groups: Vec<String>,
    pub method: AuthMethod,
    /// Every claim by name (`sub`, `email`, `groups`, ... for OIDC; the local user's fields for
    /// Basic), for `role_mappings[].claim`.
    pub claims: Map<String, Value>,
}

impl Identity {
    /// An identity from a local user; its claims are `username`, `preferred_username`, `sub`,
    /// `email`, `name` and `groups`.
    pub fn local(username: &str, email: &str, name: &str, groups: &[String]) -> Self {
        let mut claims = Map::new();
        for claim in ["username", "preferred_username", "sub"] {
            claims.insert(claim.to_owned(), Value::from(username));
        }
        claims.insert("email".to_owned(), Value::from(email));
        claims.insert("name".to_owned(), Value::from(name));
        claims.insert("groups".to_owned(), Value::from(groups.to_vec()));
        Self {
            username: username.to_owned(),
            email: email.to_owned(),
            name: name.to_owned(),
            groups: groups.to_vec(),
            method: AuthMethod::Basic,
            claims,
        }
    }
}

/// `email_verified` is false (a boolean, or the string some providers send).
pub fn email_unverified(claims: &Map<String, Value>) -> bool {
    match claims.get("email_verified") {
        Some(Value::Bool(verified)) => !verified,
        Some(Value::String(text)) => text.eq_ignore_ascii_case("false"),
        _ => false,
    }
}

/// The search-cluster user managed for one identity. Local Basic users, OIDC users and bearer
/// token clients are separate name spaces: the source is part of the credential cache key and is recorded on the
/// cluster user (`managed_source`), so an identity-provider user named like a local user never
/// receives the local user's cached credential or cluster user (the cluster user belongs to the
/// source that created it; the other gets 409 `search_user_conflict`). Built only from an
/// [`Identity`], so a bare name can never be used where a managed user is meant.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ManagedUser {
    source: AuthMethod,
    name: String,
}

impl ManagedUser {
    pub fn of(identity: &Identity) -> Self {
        Self {
            source: identity.method,
            name: identity.username.clone(),
        }
    }

    /// The cluster user's name (the identity's user name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Which kind of sign-in owns the cluster user.
    pub fn source(&self) -> AuthMethod {
        self.source
    }

    /// The store key of the cached credential (also the encryption's associated data):
    /// `authproxy:credential:<source>:<name>`.
    pub fn store_key(&self) -> String {
        format!("authproxy:credential:{}:{}", self.source, self.name)
    }
}

impl fmt::Display for ManagedUser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}
