//! The on-demand reads of one kind in a few namespaces beside an object (a route's backend
//! namespaces' ReferenceGrants, the Gateways a Hosts answer's routes name): namespaces the
//! caller may not see or a namespace-scoped install does not watch are not read (and do not
//! use up the budget), at most a budget of namespaces are read, at once, each through the
//! retries and breaker; a failed list is said in words.

use std::collections::BTreeMap;

use futures_util::future::BoxFuture;

use crate::access::Viewer;
use crate::http::state::AppState;
use crate::kube::client::{KubeApi, KubeError};

/// One namespace's list call, answering `T` (the objects as JSON, or more).
pub(crate) type ListCall<T> =
    for<'a> fn(&'a dyn KubeApi, &'a str) -> BoxFuture<'a, Result<T, KubeError>>;

/// What is read, and how it is named when it fails.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NamespaceReads {
    /// The retries' and breaker's name of the call (`list_gateways`).
    pub call: &'static str,
    /// `plural.group`, as RBAC names it.
    pub resource: &'static str,
    /// `group/version plural`, as discovery serves it.
    pub served: &'static str,
    /// Namespaces read per request at most.
    pub budget: usize,
}

/// Why a namespace's objects were not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unread {
    /// Not a namespace the caller may see, or one the install does not watch: why.
    NotShown(&'static str),
    /// Past the budget.
    OverBudget,
    /// The list failed: why, in words.
    ListFailed(String),
}

/// Each of `namespaces` with what its list call answered, or why its objects were not read.
pub(crate) async fn read<T>(
    state: &AppState,
    viewer: &Viewer,
    namespaces: impl IntoIterator<Item = String>,
    reads: NamespaceReads,
    list: ListCall<T>,
) -> BTreeMap<String, Result<T, Unread>> {
    let mut answers = BTreeMap::new();
    let mut readable = Vec::new();
    for namespace in namespaces {
        if let Some(reason) = super::unreadable_namespace(state, viewer, &namespace) {
            answers.insert(namespace, Err(Unread::NotShown(reason)));
        } else if readable.len() >= reads.budget {
            answers.insert(namespace, Err(Unread::OverBudget));
        } else {
            readable.push(namespace);
        }
    }
    let api = state.api.as_ref();
    let lists = futures_util::future::join_all(
        readable
            .iter()
            .map(|namespace| (state.resilience).call(reads.call, move || list(api, namespace))),
    )
    .await;
    for (namespace, listed) in readable.into_iter().zip(lists) {
        let listed = listed.map_err(|error| {
            Unread::ListFailed(super::list_failure(&error, reads.resource, reads.served))
        });
        answers.insert(namespace, listed);
    }
    answers
}
