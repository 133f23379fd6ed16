//! Property tests of the parsers that read untrusted input: the `namespaces` parameter and
//! `Last-Event-ID`. (ingress-dash parses no label selector: the web app filters by labels on
//! the records it already has.) Each must never panic, refuse what is invalid and accept what
//! is valid.

use std::collections::BTreeSet;

use ingress_dash::error::Error;
use ingress_dash::http::stream::parse_event_id;
use ingress_dash::hub::selection::Selection;
use ingress_dash::names::is_dns1123_label;
use proptest::prelude::*;

/// A valid DNS-1123 label.
fn label() -> impl Strategy<Value = String> {
    "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
}

/// A non-empty name that is not a DNS-1123 label (and holds no separator).
fn invalid_label() -> impl Strategy<Value = String> {
    prop_oneof![
        // A character labels may not hold, somewhere.
        "[a-z0-9-]{0,10}[A-Z_.@/:%\u{e9}\u{1F600}][a-z0-9-]{0,10}",
        // A leading or trailing hyphen.
        "-[a-z0-9-]{0,20}",
        "[a-z0-9-]{0,20}-",
        // Too long.
        "[a-z0-9]{64,100}",
        // An inner blank (outer ones are trimmed).
        "[a-z0-9]{1,5}[ \t][a-z0-9]{1,5}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_namespaces_parameter_is_parsed_or_refused_without_panic(
        text in any::<String>(),
        watched in prop::collection::vec(label(), 0..4),
        max in 1usize..60,
    ) {
        match Selection::parse(Some(&text), &watched, max) {
            Ok(Selection::All) => {}
            Ok(Selection::Visible(_)) => prop_assert!(false, "parsing never limits: {text:?}"),
            Ok(Selection::Only(names)) => {
                // Whatever is accepted is a bounded set of valid, watched labels.
                prop_assert!(!names.is_empty() && names.len() <= max);
                for name in &names {
                    prop_assert!(is_dns1123_label(name), "{name:?}");
                    prop_assert!(watched.is_empty() || watched.contains(name));
                }
            }
            Err(error) => {
                let expected = matches!(
                    error,
                    Error::InvalidNamespace(_)
                        | Error::NamespaceNotWatched(_)
                        | Error::TooManyNamespaces { .. }
                );
                prop_assert!(expected, "{error:?}");
            }
        }
    }

    #[test]
    fn lists_of_valid_labels_are_accepted(
        names in prop::collection::vec(label(), 1..50),
        padding in "[ ]{0,2}",
    ) {
        let text = names.iter().map(|name| format!("{padding}{name}{padding}")).collect::<Vec<_>>().join(",");
        let expected: BTreeSet<String> = names.iter().cloned().collect();
        prop_assert_eq!(
            Selection::parse(Some(&text), &[], 50).unwrap(),
            Selection::Only(expected)
        );
    }

    #[test]
    fn one_invalid_name_refuses_the_whole_list(
        names in prop::collection::vec(label(), 0..10),
        bad in invalid_label(),
        position in any::<prop::sample::Index>(),
    ) {
        let mut names = names;
        let at = position.index(names.len() + 1);
        names.insert(at, bad.clone());
        let text = names.join(",");
        match Selection::parse(Some(&text), &[], 50) {
            Err(Error::InvalidNamespace(name)) => prop_assert!(!is_dns1123_label(&name)),
            other => prop_assert!(false, "{text:?} gave {other:?}"),
        }
    }

    #[test]
    fn more_distinct_names_than_the_maximum_are_refused(
        names in prop::collection::btree_set(label(), 2..30),
    ) {
        let text = names.iter().cloned().collect::<Vec<_>>().join(",");
        let max = names.len() - 1;
        let refused = matches!(
            Selection::parse(Some(&text), &[], max),
            Err(Error::TooManyNamespaces { .. })
        );
        prop_assert!(refused, "{text:?} with at most {max}");
    }

    #[test]
    fn names_outside_the_configured_list_are_refused(
        watched in prop::collection::btree_set(label(), 1..5),
        other in label(),
    ) {
        prop_assume!(!watched.contains(&other));
        let watched: Vec<String> = watched.into_iter().collect();
        let text = format!("{},{other}", watched[0]);
        let refused = matches!(
            Selection::parse(Some(&text), &watched, 50),
            Err(Error::NamespaceNotWatched(name)) if name == other
        );
        prop_assert!(refused, "{text:?} outside {watched:?}");
    }

    #[test]
    fn any_event_id_is_parsed_or_ignored_without_panic(text in any::<String>()) {
        if let Some(id) = parse_event_id(&text) {
            // Only a plain decimal number (blanks around it aside) is an id.
            let digits = text.trim_matches([' ', '\t']);
            prop_assert!(digits.bytes().all(|byte| byte.is_ascii_digit()));
            prop_assert_eq!(digits.trim_start_matches('0').parse::<u64>().unwrap_or(0), id);
        }
    }

    #[test]
    fn every_id_the_service_writes_is_read_back(id in any::<u64>(), blanks in "[ \t]{0,3}") {
        prop_assert_eq!(parse_event_id(&id.to_string()), Some(id));
        prop_assert_eq!(parse_event_id(&format!("{blanks}{id}{blanks}")), Some(id));
    }

    #[test]
    fn signs_texts_and_overflows_are_not_ids(
        id in any::<u64>(),
        prefix in "[+-]|0x|[a-z]",
        beyond in 1u128..1_000_000,
    ) {
        prop_assert_eq!(parse_event_id(&format!("{prefix}{id}")), None);
        prop_assert_eq!(parse_event_id(&format!("{id}.5")), None);
        prop_assert_eq!(parse_event_id(&(u128::from(u64::MAX) + beyond).to_string()), None);
        prop_assert_eq!(parse_event_id(""), None);
    }
}
