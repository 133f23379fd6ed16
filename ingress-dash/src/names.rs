//! Kubernetes name rules, shared by the configuration and the request parameters.

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
}
