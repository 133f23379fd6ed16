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
    /// Whether a user of this source that is disabled on the cluster may be enabled again: only
    /// when the lifecycle sweep disabled it (an operator's lock-out stays).
    pub reenable: bool,
}

/// A user this proxy created (`managed_by`), as the cluster lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterUser {
    pub name: String,
    /// The `managed_source` mark (`None` from versions that did not set it).
    pub source: Option<String>,
    /// `false` when disabled (Elasticsearch only; OpenSearch users are always enabled).
    pub enabled: bool,
    pub roles: Vec<String>,
}

pub trait SearchUsers: Send + Sync + 'static {
    /// Creates the user, or updates it when this proxy created it; refuses a foreign user.
    fn upsert_user<'a>(&'a self, user: UserSpec<'a>) -> BoxFuture<'a, Result<(), ClusterError>>;
    /// Every user this proxy created (the `managed_by` mark); all others are left out.
    fn managed_users(&self) -> BoxFuture<'_, Result<Vec<ClusterUser>, ClusterError>>;
    /// Disables `user`, a user this proxy created as listed (Elasticsearch's `_disable`;
    /// OpenSearch has none and answers an error): `true` when this call disabled it, `false`
    /// when it was disabled already (an operator's lock-out) or is gone. A user without the
    /// mark, or now of another `managed_source` than listed, is refused, never touched.
    fn disable_user<'a>(
        &'a self,
        user: &'a ClusterUser,
    ) -> BoxFuture<'a, Result<bool, ClusterError>>;
    /// Deletes `user`, a user this proxy created as listed; a disabled one only when
    /// `disabled_by_sweep` (an operator's lock-out is refused). A user without the mark, or now
    /// of another `managed_source` than listed, is refused, never touched; an absent user is
    /// no error.
    fn delete_user<'a>(
        &'a self,
        user: &'a ClusterUser,
        disabled_by_sweep: bool,
    ) -> BoxFuture<'a, Result<(), ClusterError>>;
    /// Takes `roles` away from `user`, a user this proxy created as listed (drift repair), its
    /// other roles, its password and the rest unchanged; never adds a role. A user without the
    /// mark, or now of another `managed_source` than listed, is refused, never touched.
    fn remove_roles<'a>(
        &'a self,
        user: &'a ClusterUser,
        roles: &'a [String],
    ) -> BoxFuture<'a, Result<(), ClusterError>>;
    /// For `/_health`: the cluster answers its health endpoint.
    fn health(&self) -> BoxFuture<'_, Result<(), ClusterError>>;
}
