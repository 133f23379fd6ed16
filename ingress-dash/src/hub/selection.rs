//! Which namespaces a subscriber of the hub wants ([`Selection`]), from the `namespaces` query
//! parameter: comma-separated DNS-1123 labels, absent or `*` for all.

use std::collections::BTreeSet;

use crate::access::{NamespaceFilter, Visibility};
use crate::error::Error;
use crate::names::is_dns1123_label;

/// Which namespaces a request wants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    All,
    Only(BTreeSet<String>),
    /// Every namespace a limited user may see (`access.namespaces_by_group`): served by the same
    /// watchers as `All`, filtered.
    Visible(NamespaceFilter),
}

impl Selection {
    pub fn contains(&self, namespace: &str) -> bool {
        match self {
            Selection::All => true,
            Selection::Only(namespaces) => namespaces.contains(namespace),
            Selection::Visible(filter) => filter.admits(namespace),
        }
    }

    /// What a caller with `visibility` gets for this request: "all" becomes the visible ones;
    /// named namespaces must all be visible, else 403 `forbidden` (whether or not they exist, so
    /// a limited user cannot probe for names).
    pub fn within(self, visibility: &Visibility) -> Result<Self, Error> {
        let Visibility::Limited(filter) = visibility else {
            return Ok(self);
        };
        match self {
            Selection::All | Selection::Visible(_) => Ok(Selection::Visible(filter.clone())),
            Selection::Only(names) => {
                let hidden: Vec<String> = names
                    .iter()
                    .filter(|name| !filter.admits(name))
                    .cloned()
                    .collect();
                if hidden.is_empty() {
                    Ok(Selection::Only(names))
                } else {
                    Err(Error::NamespaceNotVisible(hidden))
                }
            }
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

    #[test]
    fn a_limited_caller_gets_its_visible_namespaces_and_403_for_others() {
        let limited = Visibility::Limited(NamespaceFilter::of(&["shop", "team-*"]));
        let all = Selection::All.within(&limited).unwrap();
        assert!(all.contains("shop") && all.contains("team-x") && !all.contains("kube-system"));
        let named = Selection::parse(Some("shop,team-b"), &[], 5).unwrap();
        assert_eq!(named.clone().within(&limited).unwrap(), named);
        let refused = Selection::parse(Some("shop,secret,kube-system"), &[], 5)
            .unwrap()
            .within(&limited);
        assert!(
            matches!(&refused, Err(Error::NamespaceNotVisible(hidden)) if hidden == &["kube-system", "secret"]),
            "{refused:?}"
        );
        // Without a mapping nothing changes.
        assert_eq!(
            Selection::All.within(&Visibility::Everything).unwrap(),
            Selection::All
        );
    }
}
