//! One user-supplied name as one path segment below the cluster URL: every module checks the
//! name by its own kind's rules first (index, alias, template, repository, snapshot), then
//! encodes it here, so that nothing a name holds (`/`, `?`, `#`, `%`, `..` inside a longer name)
//! can leave its place in the path.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

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
pub(crate) fn segment(name: &str) -> String {
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
