//! The `namespaces` query parameter: comma-separated DNS-1123 labels, absent or `*` for all.

use std::collections::BTreeSet;

use crate::error::Error;

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

    /// A stable text for cache keys.
    pub fn cache_key(&self) -> String {
        match self {
            Selection::All => "*".to_owned(),
            Selection::Only(namespaces) => namespaces.iter().cloned().collect::<Vec<_>>().join(","),
        }
    }
}

/// RFC 1123 label: 1-63 lower-case alphanumerics or '-', starting and ending alphanumeric.
pub fn is_dns1123_label(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 63
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes[0] != b'-'
        && bytes[bytes.len() - 1] != b'-'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_validated() {
        assert!(is_dns1123_label("team-a1"));
        for bad in ["", "-a", "a-", "A", "a_b", "a.b", &"a".repeat(64)] {
            assert!(!is_dns1123_label(bad), "{bad}");
        }
    }

    #[test]
    fn absent_or_star_means_all_and_lists_are_deduplicated() {
        assert_eq!(Selection::parse(None, &[], 5).unwrap(), Selection::All);
        assert_eq!(Selection::parse(Some("*"), &[], 5).unwrap(), Selection::All);
        let only = Selection::parse(Some("b, a,b"), &[], 5).unwrap();
        assert_eq!(only.cache_key(), "a,b");
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
