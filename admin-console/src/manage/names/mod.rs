//! The names a caller gives (indices, aliases, data streams, templates, tasks, nodes,
//! repositories, snapshots, setting keys, security users and roles), parsed by the rules of their kind before any of them
//! reaches a cluster path or body: "parse, don't validate". Each kind is a type whose only
//! constructor is its `parse`, with the exact rules and messages of the cluster it talks to; its
//! `segment()` is the only way to its path form, so a `String` from the browser cannot reach a
//! `format!("{}/…")` unchecked. The types deliberately have no `Display`: a name goes into a
//! message through `as_str()` and into a path through `segment()`.
//!
//! The percent-encoding of a path segment is private to this module (the kinds' modules use it,
//! nothing outside can), so that nothing a name holds (`/`, `?`, `#`, `%`, `..` inside a longer
//! name) can leave its place in the path.

mod index;
mod node;
mod security;
mod setting;
mod snapshot;
mod template;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

pub(crate) use index::{AliasName, DataStreamName, IndexName};
pub(crate) use node::{NodeId, TaskId};
pub(crate) use security::SecurityName;
pub(crate) use setting::SettingKey;
pub(crate) use snapshot::{RepositoryName, SnapshotName, index_patterns};
pub(crate) use template::TemplateName;

/// Left as they are: letters, digits and RFC 3986's other unreserved characters (`- . _ ~`),
/// and `@` (a path character that template names such as `logs@mappings` carry); everything
/// else is percent-encoded, UTF-8 byte by byte.
const KEPT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'@');

/// A checked name percent-encoded as one path segment.
fn segment(name: &str) -> String {
    utf8_percent_encode(name, KEPT).to_string()
}

#[cfg(test)]
mod tests {
    use super::segment;

    #[test]
    fn a_segment_cannot_leave_its_place_in_the_path() {
        assert_eq!(segment("logs-2026.11_a"), "logs-2026.11_a");
        assert_eq!(segment("logs@mappings-1.x_y~"), "logs@mappings-1.x_y~");
        assert_eq!(segment("x+y%é"), "x%2By%25%C3%A9");
        assert_eq!(segment("a/b?c#d"), "a%2Fb%3Fc%23d");
        assert_eq!(segment("é%2F.x"), "%C3%A9%252F.x");
    }
}
