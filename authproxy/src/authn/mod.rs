//! Who the caller is: HTTP Basic against the local users ([`basic`]), OpenID Connect sign-in
//! ([`oidc`]) and the browser sessions it creates ([`session`]), kept in signed and sealed
//! cookies ([`cookies`]), and API clients' JWT access tokens from the same provider
//! ([`bearer`]).

pub(crate) mod basic;
pub(crate) mod bearer;
pub mod cookies;
pub(crate) mod oidc;
pub(crate) mod refresh;
pub(crate) mod session;
pub(crate) mod tokens;
