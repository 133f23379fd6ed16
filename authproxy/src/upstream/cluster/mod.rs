//! The search cluster as seen by the proxy: its security user API (Elasticsearch's
//! `/_security/user/<name>` or OpenSearch's `/_plugins/_security/api/internalusers/<name>`) and
//! its health, behind a narrow async trait.

mod users;

use futures_util::future::BoxFuture;
use secrecy::SecretString;

use crate::error::ClusterError;
use crate::identity::ManagedUser;

pub use users::SearchClusterClient;

/// Marks users this proxy created, in Elasticsearch `metadata` and OpenSearch `attributes`;
/// a user without it is never overwritten.
pub const MANAGED_BY_KEY: &str = "managed_by";
pub const MANAGED_BY_VALUE: &str = "authproxy";
/// Which kind of sign-in (`basic` or `oidc`) owns a managed user, beside `managed_by`.
pub const MANAGED_SOURCE_KEY: &str = "managed_source";

/// A user to create or update.
#[derive(Debug)]
pub struct UserSpec<'a> {
    pub user: &'a ManagedUser,
    /// Whether a managed user without a `managed_source` mark (made by an older version) may be
    /// taken over by this source.
    pub adopt_unmarked: bool,
    pub password: &'a SecretString,
    pub roles: &'a [String],
    pub email: &'a str,
    pub full_name: &'a str,
}

pub trait SearchUsers: Send + Sync + 'static {
    /// Creates the user, or updates it when this proxy created it; refuses a foreign user.
    fn upsert_user<'a>(&'a self, user: UserSpec<'a>) -> BoxFuture<'a, Result<(), ClusterError>>;
    /// For `/_health`: the cluster answers its health endpoint.
    fn health(&self) -> BoxFuture<'_, Result<(), ClusterError>>;
}
