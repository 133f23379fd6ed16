//! What an incoming request may be believed to say: the original request behind a trusted
//! reverse proxy ([`forwarded`]), the path the cluster will read ([`path`]), where a browser may be sent afterwards ([`redirect`]), and
//! whether a browser request comes from this service's own pages ([`same_origin`]).

pub(crate) mod forwarded;
pub(crate) mod path;
pub(crate) mod redirect;
pub(crate) mod same_origin;
