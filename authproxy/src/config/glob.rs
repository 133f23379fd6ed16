//! Shell-style globs for the claim patterns of `user_management.role_mappings`. A leaf module:
//! configuration validation and the role mapper both use it.
//!
//! Not `globset`: its `{a,b}` alternation cannot be turned off (a pattern written as text would
//! start granting roles to other values), `**` next to `/` matches across group paths, `?`
//! matches one byte rather than one character, and a reversed range is an error here accepted.

/// A shell-style glob: `*` (any run), `?` (one character), `[abc]`, `[a-z]`, `[!a-z]`; `\`
/// escapes the next character. Matches the whole value, case-sensitively.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    tokens: Vec<Token>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Literal(char),
    AnyOne,
    AnyRun,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GlobError {
    #[error("is not a valid glob: '[' at character {0} is never closed")]
    UnclosedClass(usize),
    #[error("is not a valid glob: the class at character {0} is empty")]
    EmptyClass(usize),
    #[error("is not a valid glob: it ends with a lone '\\'")]
    TrailingEscape,
    #[error("must not be empty (use * to match every value)")]
    Empty,
}

impl Glob {
    pub fn new(pattern: &str) -> Result<Self, GlobError> {
        if pattern.is_empty() {
            return Err(GlobError::Empty);
        }
        let chars: Vec<char> = pattern.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '*' => {
                    if tokens.last() != Some(&Token::AnyRun) {
                        tokens.push(Token::AnyRun);
                    }
                }
                '?' => tokens.push(Token::AnyOne),
                '\\' => {
                    i += 1;
                    let escaped = *chars.get(i).ok_or(GlobError::TrailingEscape)?;
                    tokens.push(Token::Literal(escaped));
                }
                '[' => {
                    let (token, end) = parse_class(&chars, i)?;
                    tokens.push(token);
                    i = end;
                }
                literal => tokens.push(Token::Literal(literal)),
            }
            i += 1;
        }
        Ok(Self { tokens })
    }

    pub fn matches(&self, value: &str) -> bool {
        let chars: Vec<char> = value.chars().collect();
        // Iterative matching with one backtrack point for the last `*`: linear in practice,
        // never exponential whatever the pattern.
        let (mut t, mut c) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        while c < chars.len() {
            match self.tokens.get(t) {
                Some(Token::AnyRun) => {
                    star = Some((t, c));
                    t += 1;
                }
                Some(token) if token.matches_one(chars[c]) => {
                    t += 1;
                    c += 1;
                }
                _ => match star {
                    Some((star_t, star_c)) => {
                        t = star_t + 1;
                        c = star_c + 1;
                        star = Some((star_t, star_c + 1));
                    }
                    None => return false,
                },
            }
        }
        self.tokens[t..].iter().all(|token| *token == Token::AnyRun)
    }
}

/// Parses `[...]` starting at `start`; returns the token and the index of the closing `]`.
fn parse_class(chars: &[char], start: usize) -> Result<(Token, usize), GlobError> {
    let mut i = start + 1;
    let negated = matches!(chars.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let Some(&c) = chars.get(i) else {
            return Err(GlobError::UnclosedClass(start + 1));
        };
        if c == ']' && !first {
            break;
        }
        if c == ']' && first && chars.get(i + 1).is_none() {
            return Err(GlobError::UnclosedClass(start + 1));
        }
        first = false;
        if chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(|&end| end != ']') {
            ranges.push((c, chars[i + 2]));
            i += 3;
        } else {
            ranges.push((c, c));
            i += 1;
        }
    }
    if ranges.is_empty() {
        return Err(GlobError::EmptyClass(start + 1));
    }
    Ok((Token::Class { negated, ranges }, i))
}

impl Token {
    fn matches_one(&self, c: char) -> bool {
        match self {
            Self::Literal(literal) => *literal == c,
            Self::AnyOne => true,
            Self::AnyRun => false,
            Self::Class { negated, ranges } => {
                ranges.iter().any(|&(low, high)| low <= c && c <= high) != *negated
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(pattern: &str) -> Glob {
        Glob::new(pattern).unwrap()
    }

    #[test]
    fn globs_match_whole_values() {
        assert!(glob("*@example.com").matches("ann@example.com"));
        assert!(!glob("*@example.com").matches("ann@example.com.evil"));
        assert!(glob("team-?").matches("team-a"));
        assert!(!glob("team-?").matches("team-ab"));
        assert!(glob("[a-c]*").matches("bob"));
        assert!(!glob("[!a-c]*").matches("bob"));
        assert!(glob("a*b*c").matches("aXXbYYc"));
        assert!(!glob("a*b*c").matches("aXXbYY"));
        assert!(glob("\\*").matches("*"));
        assert!(!glob("\\*").matches("x"));
        assert!(glob("*").matches(""));
    }

    #[test]
    fn invalid_globs_are_explained() {
        assert_eq!(Glob::new("[abc"), Err(GlobError::UnclosedClass(1)));
        assert_eq!(Glob::new("x\\"), Err(GlobError::TrailingEscape));
        assert_eq!(Glob::new(""), Err(GlobError::Empty));
    }

    #[test]
    fn pathological_patterns_stay_fast() {
        let pattern = glob(&format!("{}c", "a*".repeat(30)));
        assert!(!pattern.matches(&format!("{}b", "a".repeat(5000))));
    }
}
