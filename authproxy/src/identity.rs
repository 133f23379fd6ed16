//! Who a request is from, once authenticated, whatever the method.

use std::fmt;

use serde_json::{Map, Value};

/// How the caller proved who they are; logged as `method`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    Basic,
    Oidc,
}

impl AuthMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Basic => "basic",
            Self::Oidc => "oidc",
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
