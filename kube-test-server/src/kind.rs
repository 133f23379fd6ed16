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

    /// The API group (`""` for the core group).
    pub fn group(self) -> &'static str {
        match self {
            Kind::Namespace => "",
            Kind::Ingress => "networking.k8s.io",
        }
    }

    /// The resource as error messages name it: `namespaces`, `ingresses.networking.k8s.io`.
    pub fn qualified_resource(self) -> String {
        match self.group() {
            "" => self.plural().to_owned(),
            group => format!("{}.{group}", self.plural()),
        }
    }

    pub fn plural(self) -> &'static str {
        match self {
            Kind::Namespace => "namespaces",
            Kind::Ingress => "ingresses",
        }
    }
}
