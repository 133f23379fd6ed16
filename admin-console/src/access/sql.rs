//! Whether an SQL console call only reads: its JSON body's `query` is a `SELECT` (or `SHOW`,
//! `DESCRIBE`), or it only pages on with a `cursor`.

use serde::Deserialize;

/// The most body read to decide; a larger SQL body is not treated as read-only.
pub(crate) const MAX_SQL_BODY: usize = 64 * 1024;

/// The fields that matter. Derived deserialisation refuses a field given twice, so
/// `{"query":"SELECT 1","query":"DELETE …"}` cannot read as a SELECT here and as a DELETE on the
/// cluster.
#[derive(Deserialize)]
struct SqlBody {
    query: Option<String>,
    cursor: Option<String>,
}

/// True when `body` (a JSON object) asks only to read.
pub(crate) fn is_read_only_body(body: &[u8]) -> bool {
    if body.len() > MAX_SQL_BODY {
        return false;
    }
    let Ok(parsed) = serde_json::from_slice::<SqlBody>(body) else {
        return false;
    };
    match (parsed.query, parsed.cursor) {
        (Some(query), _) => is_read_only_statement(&query),
        (None, Some(_)) => true,
        (None, None) => false,
    }
}

/// One statement whose first keyword is SELECT, SHOW, DESCRIBE or DESC (after comments and
/// opening parentheses); a `;` anywhere but at the end (a second statement) is refused.
pub(crate) fn is_read_only_statement(query: &str) -> bool {
    let text = skip_comments(query);
    let text = text.trim_start_matches(|c: char| c == '(' || c.is_whitespace());
    let keyword: String = text
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .collect::<String>()
        .to_ascii_lowercase();
    if !matches!(keyword.as_str(), "select" | "show" | "describe" | "desc") {
        return false;
    }
    let rest = &text[keyword.len()..];
    if !rest.is_empty() && !rest.starts_with(|c: char| c.is_whitespace() || c == '*' || c == '(') {
        return false;
    }
    let body = text.trim_end().trim_end_matches(';');
    !body.contains(';')
}

/// `query` without its leading whitespace, `-- …` lines and `/* … */` blocks.
fn skip_comments(mut text: &str) -> &str {
    loop {
        text = text.trim_start();
        if let Some(rest) = text.strip_prefix("--") {
            text = rest.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(rest) = text.strip_prefix("/*") {
            text = rest.split_once("*/").map_or("", |(_, after)| after);
        } else {
            return text;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_are_read_only() {
        for query in [
            "SELECT * FROM logs",
            "  select count(*) from logs;",
            "SELECT*FROM x",
            "(SELECT 1)",
            "-- a comment\nSELECT 1",
            "/* x */ select 1",
            "SHOW TABLES",
            "DESCRIBE logs",
        ] {
            assert!(is_read_only_statement(query), "{query}");
        }
        for query in [
            "DELETE FROM logs",
            "SELECT 1; DELETE FROM logs",
            "selectx FROM y",
            "/* SELECT */ DELETE FROM logs",
            "-- SELECT\nDELETE FROM logs",
            "/* unterminated SELECT 1",
            "",
            "INSERT INTO x SELECT 1",
            "UPDATE x SET a = 1",
        ] {
            assert!(!is_read_only_statement(query), "{query}");
        }
    }

    #[test]
    fn bodies_are_parsed_strictly() {
        assert!(is_read_only_body(br#"{"query":"SELECT 1","fetch_size":5}"#));
        assert!(is_read_only_body(br#"{"cursor":"abc"}"#));
        assert!(!is_read_only_body(br#"{"query":"DELETE FROM x"}"#));
        assert!(!is_read_only_body(
            br#"{"query":"SELECT 1","query":"DELETE FROM x"}"#
        ));
        assert!(!is_read_only_body(br#"{}"#));
        assert!(!is_read_only_body(b"SELECT 1"));
        assert!(!is_read_only_body(br#"{"query":5}"#));
        let mut large = br#"{"query":"SELECT 1","pad":""#.to_vec();
        large.extend(std::iter::repeat_n(b'a', MAX_SQL_BODY));
        large.extend(br#""}"#);
        assert!(!is_read_only_body(&large));
    }
}
