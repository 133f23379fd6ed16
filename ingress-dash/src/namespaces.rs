//! The `namespaces` query parameter: comma-separated DNS-1123 labels, absent or `*` for all.

use std::collections::BTreeSet;

use crate::error::Error;
pub use crate::labels::is_dns1123_label;

/// The body of `GET /api/namespaces`: the namespaces a client may ask for, sorted.
#[derive(Debug, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct NamespaceList {
    pub namespaces: Vec<String>,
}

/// Which namespaces a request wants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    All,
    Only(BTreeSet<String>),
}

impl Selection {
    pub fn contains(&self, namespace: &str) -> bool {
        match self {
            Selection::All => true,
            Selection::Only(namespaces) => namespaces.contains(namespace),
        }
    }

    /// Parses the parameter; `watched` is the configured list (empty: any namespace), `max`
    /// caps how many one request may name.
    pub fn parse(parameter: Option<&str>, watched: &[String], max: usize) -> Result<Self, Error> {
        let text = parameter.map(str::trim).unwrap_or_default();
        if text.is_empty() || text == "*" {
            return Ok(Selection::All);
        }
        let mut namespaces = BTreeSet::new();
        for name in text
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
        {
            if !is_dns1123_label(name) {
                return Err(Error::InvalidNamespace(name.to_owned()));
            }
            if !watched.is_empty() && !watched.iter().any(|w| w == name) {
                return Err(Error::NamespaceNotWatched(name.to_owned()));
            }
            namespaces.insert(name.to_owned());
        }
        if namespaces.len() > max {
            return Err(Error::TooManyNamespaces { max });
        }
        if namespaces.is_empty() {
            return Ok(Selection::All);
        }
        Ok(Selection::Only(namespaces))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_or_star_means_all_and_lists_are_deduplicated() {
        assert_eq!(Selection::parse(None, &[], 5).unwrap(), Selection::All);
        assert_eq!(Selection::parse(Some("*"), &[], 5).unwrap(), Selection::All);
        let only = Selection::parse(Some("b, a,b"), &[], 5).unwrap();
        assert_eq!(
            only,
            Selection::Only(BTreeSet::from(["a".to_owned(), "b".to_owned()]))
        );
    }

    #[test]
    fn bad_names_unwatched_names_and_too_many_are_refused() {
        assert!(
            matches!(Selection::parse(Some("a,B"), &[], 5), Err(Error::InvalidNamespace(n)) if n == "B")
        );
        assert!(matches!(
            Selection::parse(Some("x"), &["a".into()], 5),
            Err(Error::NamespaceNotWatched(_))
        ));
        assert!(matches!(
            Selection::parse(Some("a,b,c"), &[], 2),
            Err(Error::TooManyNamespaces { max: 2 })
        ));
    }
}
