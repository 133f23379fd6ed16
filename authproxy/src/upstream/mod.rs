//! The search cluster behind the proxy: its client (the security user API and health,
//! [`cluster`]) and the managed users each identity is given there ([`managed`]).

pub(crate) mod cluster;
pub(crate) mod managed;
