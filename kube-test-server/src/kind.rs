//! The object kinds this server holds, named as the API names them.

/// The two kinds this server holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Namespace,
    Ingress,
}

impl Kind {
    pub fn api_version(self) -> &'static str {
        match self {
            Kind::Namespace => "v1",
            Kind::Ingress => "networking.k8s.io/v1",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Namespace => "Namespace",
            Kind::Ingress => "Ingress",
        }
    }

    pub fn plural(self) -> &'static str {
        match self {
            Kind::Namespace => "namespaces",
            Kind::Ingress => "ingresses",
        }
    }
}
