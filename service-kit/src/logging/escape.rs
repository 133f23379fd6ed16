//! The text format's fields with their control characters escaped, so that no value, whoever
//! chose it (a Basic user name, a header, an error from a peer), can end its record and start a
//! forged one, or send a terminal escape sequence to whoever reads the log.
//!
//! Every field of a text record goes through one [`FormatFields`]: the message, the event's
//! fields and the fields of the spans around it. [`EscapedFields`] is tracing-subscriber's
//! [`DefaultFields`] (the same `message key=value` layout, `"..."` around string values) writing
//! through [`Escaping`], which turns each control character into an escape (`\n`, `\r`, `\t`,
//! `\0`, `\x1b`, `\u{85}`, ...). Characters are escaped once, where they are written: a string
//! value that `DefaultFields` already quoted (`"a\nb"`) has no control character left, and a
//! backslash is never escaped here, so nothing is escaped twice. JSON records do not use this; serde_json escapes them.

use std::fmt::{self, Write};

use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::{DefaultFields, Writer};

/// [`DefaultFields`] whose output cannot hold a control character.
#[derive(Debug, Default)]
pub(crate) struct EscapedFields(DefaultFields);

impl<'writer> FormatFields<'writer> for EscapedFields {
    fn format_fields<R: RecordFields>(
        &self,
        mut writer: Writer<'writer>,
        fields: R,
    ) -> fmt::Result {
        let mut escaping = Escaping(&mut writer);
        self.0.format_fields(Writer::new(&mut escaping), fields)
    }
}

/// Writes to `W` with every character for which [`is_escaped`] holds replaced by its escape.
struct Escaping<W>(W);

impl<W: Write> Write for Escaping<W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let mut start = 0;
        for (at, character) in text.char_indices().filter(|&(_, c)| is_escaped(c)) {
            self.0.write_str(&text[start..at])?;
            write_escape(&mut self.0, character)?;
            start = at + character.len_utf8();
        }
        self.0.write_str(&text[start..])
    }
}

/// `\n`, `\r`, `\t`, `\0`, `\x1b` for the other ASCII controls and `\u{85}` beyond: the
/// forms tracing-subscriber already gives the terminal controls of a message, so a character
/// reads the same in the message and in a field.
fn write_escape(out: &mut impl Write, character: char) -> fmt::Result {
    match character {
        '\n' => out.write_str("\\n"),
        '\r' => out.write_str("\\r"),
        '\t' => out.write_str("\\t"),
        '\0' => out.write_str("\\0"),
        ascii if ascii.is_ascii() => write!(out, "\\x{:02x}", u32::from(ascii)),
        other => write!(out, "\\u{{{:x}}}", u32::from(other)),
    }
}

/// A character that ends a line for some reader or drives a terminal: the C0 controls (CR, LF,
/// TAB, ESC, ...), DEL, the C1 controls (NEL, CSI, ...) and the Unicode line and paragraph
/// separators U+2028 and U+2029.
fn is_escaped(character: char) -> bool {
    character.is_control() || matches!(character, '\u{2028}' | '\u{2029}')
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::logging::capture::text_record;

    fn escaped(text: &str) -> String {
        let mut out = String::new();
        Escaping(&mut out).write_str(text).unwrap();
        out
    }

    #[test]
    fn line_breaks_and_terminal_controls_become_their_escapes() {
        for (raw, expected) in [
            ("a\rb", r"a\rb"),
            ("a\nb", r"a\nb"),
            ("a\r\nb", r"a\r\nb"),
            ("a\tb", r"a\tb"),
            ("a\0b", r"a\0b"),
            ("a\u{7}b", r"a\x07b"),
            ("a\u{b}b\u{c}", r"a\x0bb\x0c"),
            ("\u{1b}[31mred\u{1b}[0m", r"\x1b[31mred\x1b[0m"),
            ("a\u{7f}b", r"a\x7fb"),
            ("a\u{85}b", r"a\u{85}b"),
            ("a\u{9b}31m", r"a\u{9b}31m"),
            ("a\u{2028}b", r"a\u{2028}b"),
            ("a\u{2029}b", r"a\u{2029}b"),
        ] {
            assert_eq!(escaped(raw), expected, "{raw:?}");
        }
    }

    #[test]
    fn printable_text_is_written_unchanged() {
        for text in [
            "",
            "authentication succeeded",
            r#"C:\path "quoted" 'single'"#,
            "é 日本 🦀 \u{a0}",
        ] {
            assert_eq!(escaped(text), text);
        }
    }

    proptest! {
        #[test]
        fn no_control_character_survives(text in "\\PC*|[\\x00-\\x7f\\u{80}-\\u{a0}\\u{2028}\\u{2029}]*") {
            let out = escaped(&text);
            prop_assert!(!out.contains(is_escaped), "{out:?}");
            prop_assert_eq!(out == text, !text.contains(is_escaped));
        }
    }

    #[test]
    fn a_text_record_is_one_line_whatever_its_message_and_fields_hold() {
        let forged = "x\n2026-11-27T21:00:00Z  INFO authentication succeeded username=admin";
        let record = text_record(|| {
            let span =
                tracing::info_span!("HTTP request", agent = %"a\rb", late = tracing::field::Empty);
            let _entered = span.enter();
            span.record("late", tracing::field::display("c\u{2028}d"));
            tracing::warn!(
                shown = %forged,
                debugged = ?format_args!("e\u{85}f"),
                quoted = "g\nh",
                colour = %"\u{1b}[31mk",
                "message {}",
                "i\u{1b}[2Jj"
            );
        });
        assert_eq!(record.matches('\n').count(), 1, "{record:?}");
        assert!(record.ends_with('\n'), "{record:?}");
        for part in [
            r#"HTTP request{agent=a\rb late=c\u{2028}d}:"#,
            r"message i\x1b[2Jj",
            r"shown=x\n2026-11-27T21:00:00Z  INFO authentication succeeded username=admin",
            r"debugged=e\u{85}f",
            r#"quoted="g\nh""#,
            r"colour=\x1b[31mk",
        ] {
            assert!(record.contains(part), "{part} not in {record:?}");
        }
    }
}
