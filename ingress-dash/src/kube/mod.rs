//! The Kubernetes API: the client behind a narrow trait, the kinds read beside ingresses, and
//! every call's retry policy, breaker and list cache.

pub(crate) mod client;
pub(crate) mod ingress_classes;
pub(crate) mod kind_calls;
pub(crate) mod kind_types;
pub(crate) mod list_cache;
pub(crate) mod object_reads;
pub(crate) mod resilience;
pub(crate) mod watched_kinds;
