//! The search cluster as seen by the proxy: its security user API (Elasticsearch's
//! `/_security/user/<name>` or OpenSearch's `/_plugins/_security/api/internalusers/<name>`) and
//! its health, behind a narrow async trait.

mod users;

use futures_util::future::BoxFuture;
use secrecy::SecretString;
use service_kit::relay_client::RelayError;

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

/// Why a call to the search cluster failed: the classification decides the answer (the error
/// module maps it), the source keeps what the transport said.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum ClusterError {
    #[error(
        "its TLS certificate is not trusted (name the CA that signed it in search.tls.ca_file)"
    )]
    UntrustedCertificate(#[source] RelayError),
    #[error("the connection was refused or failed")]
    Unreachable(#[source] RelayError),
    #[error("time-out")]
    Timeout,
    #[error("the connection broke")]
    Broken(#[source] RelayError),
    /// An answer that is not what the API documents (its status, its body), described.
    #[error("{0}")]
    BadResponse(String),
    #[error("the administrative credentials were rejected")]
    AdminRejected,
    #[error("user {0:?} exists and is not managed by this proxy")]
    ForeignUser(String),
    #[error("user {name:?} belongs to {owner} sign-ins")]
    OtherSource { name: String, owner: &'static str },
    /// A managed user an operator disabled on the cluster (Elasticsearch `enabled: false`): an
    /// upsert, which sets `enabled: true`, would undo that lock-out.
    #[error("user {0:?} is disabled on the cluster")]
    DisabledUser(String),
}

impl ClusterError {
    /// Classifies a transport error: connect → unreachable (saying so when it was the
    /// certificate), time-out → time-out.
    pub fn from_transport(error: &reqwest::Error) -> Self {
        Self::from_relay(RelayError::from_reqwest(error))
    }

    /// Classifies a failed call to the cluster, forwarded or made with reqwest.
    pub fn from_relay(error: RelayError) -> Self {
        match error {
            RelayError::Timeout => Self::Timeout,
            RelayError::Connect {
                untrusted_certificate: true,
                ..
            } => Self::UntrustedCertificate(error),
            RelayError::Connect { .. } => Self::Unreachable(error),
            RelayError::Broken(_) => Self::Broken(error),
        }
    }
}

pub trait SearchUsers: Send + Sync + 'static {
    /// Creates the user, or updates it when this proxy created it; refuses a foreign user.
    fn upsert_user<'a>(&'a self, user: UserSpec<'a>) -> BoxFuture<'a, Result<(), ClusterError>>;
    /// For `/_health`: the cluster answers its health endpoint.
    fn health(&self) -> BoxFuture<'_, Result<(), ClusterError>>;
}
