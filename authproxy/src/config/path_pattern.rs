//! Path patterns and method names of `authorization.request_rules`, compiled as the
//! configuration is read (a bad entry is a configuration problem named by its key and index). A
//! leaf module: the config loader and the `authz::request_rules` decision use it.
//!
//! A pattern is an absolute path of `/`-separated segments, matched against the normalised
//! segments of a request path (`request::path`): a segment `**` matches any number of segments
//! (also none), any other segment is a [`Glob`] for exactly one segment (`*`, `?`, `[a-z]`; `*`
//! never crosses a `/`). Matching ignores ASCII case: Elasticsearch and OpenSearch paths are
//! case-sensitive and their API names and index names lower case, so `/_SECURITY/user` reaches
//! no security API; ignoring case only ever denies more, never less.

use serde::de::{Deserialize, Deserializer, Error as _};

use crate::config::glob::Glob;

/// One `paths:` entry, compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathPattern {
    /// As written, for `/auth/explain` and log records.
    text: String,
    segments: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// `**`.
    AnyDepth,
    One(Glob),
}

impl PathPattern {
    pub fn parse(text: &str) -> Result<Self, String> {
        let Some(rest) = text.strip_prefix('/') else {
            return Err("must start with '/' (a path such as /_security/**)".to_owned());
        };
        if let Some(bad) = text
            .chars()
            .find(|c| c.is_control() || c.is_whitespace() || matches!(c, '%' | ';' | '#' | '&'))
        {
            return Err(format!(
                "must not contain {bad:?}: it is matched against decoded paths without query \
                 or ';' parameters"
            ));
        }
        if text.contains('\\') {
            return Err("must not contain '\\'".to_owned());
        }
        let mut segments = Vec::new();
        // `/` alone is the root; a trailing slash is ignored as it is in requests.
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if !rest.is_empty() {
            for (index, segment) in rest.split('/').enumerate() {
                let at = index + 1;
                match segment {
                    "" => return Err(format!("has an empty segment (segment {at}: '//')")),
                    "." | ".." => {
                        return Err(format!("has a dot segment (segment {at}: {segment:?})"));
                    }
                    "**" => {
                        if segments.last() != Some(&Segment::AnyDepth) {
                            segments.push(Segment::AnyDepth);
                        }
                    }
                    _ if segment.contains("**") => {
                        return Err(format!(
                            "segment {at} ({segment:?}): '**' must be a whole segment"
                        ));
                    }
                    _ => {
                        let glob = Glob::new(&segment.to_ascii_lowercase())
                            .map_err(|error| format!("segment {at} ({segment:?}) {error}"))?;
                        segments.push(Segment::One(glob));
                    }
                }
            }
        }
        Ok(Self {
            text: text.to_owned(),
            segments,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the normalised `path` segments (decoded, no empty or dot segments) match.
    pub fn matches<S: AsRef<str>>(&self, path: &[S]) -> bool {
        let path: Vec<String> = path
            .iter()
            .map(|segment| segment.as_ref().to_ascii_lowercase())
            .collect();
        // One backtrack point for the last `**`, as `Glob` does for `*`: never exponential.
        let (mut p, mut s) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        while s < path.len() {
            match self.segments.get(p) {
                Some(Segment::AnyDepth) => {
                    star = Some((p, s));
                    p += 1;
                }
                Some(Segment::One(glob)) if glob.matches(&path[s]) => {
                    p += 1;
                    s += 1;
                }
                _ => match star {
                    Some((star_p, star_s)) => {
                        p = star_p + 1;
                        s = star_s + 1;
                        star = Some((star_p, star_s + 1));
                    }
                    None => return false,
                },
            }
        }
        self.segments[p..]
            .iter()
            .all(|segment| *segment == Segment::AnyDepth)
    }
}

impl<'de> Deserialize<'de> for PathPattern {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).map_err(D::Error::custom)
    }
}

/// One `methods:` entry: an HTTP method the clusters serve, in upper case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MethodName(&'static str);

/// The methods Elasticsearch and OpenSearch route (others are refused by the cluster itself).
const METHODS: [&str; 7] = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"];

impl MethodName {
    pub fn parse(text: &str) -> Result<Self, String> {
        let upper = text.trim().to_ascii_uppercase();
        METHODS
            .iter()
            .find(|known| **known == upper)
            .map(|known| Self(known))
            .ok_or_else(|| format!("must be one of {}", METHODS.join(", ")))
    }

    pub fn as_str(self) -> &'static str {
        self.0
    }

    /// Whether a request with `method` (any case) is this method; `GET` also covers `HEAD`,
    /// which the clusters answer as a GET.
    pub fn covers(self, method: &str) -> bool {
        method.eq_ignore_ascii_case(self.0)
            || (self.0 == "GET" && method.eq_ignore_ascii_case("HEAD"))
    }
}

impl<'de> Deserialize<'de> for MethodName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(text: &str) -> PathPattern {
        PathPattern::parse(text).unwrap()
    }

    fn path(text: &str) -> Vec<&str> {
        text.split('/').filter(|s| !s.is_empty()).collect()
    }

    #[test]
    fn patterns_match_whole_segments() {
        let security = pattern("/_security/**");
        for yes in [
            "/_security",
            "/_security/user",
            "/_security/user/ann/_password",
        ] {
            assert!(security.matches(&path(yes)), "{yes}");
        }
        for no in ["/", "/_securityx", "/x/_security", "/_sec"] {
            assert!(!security.matches(&path(no)), "{no}");
        }
        let settings = pattern("/_cluster/settings");
        assert!(settings.matches(&path("/_cluster/settings")));
        assert!(settings.matches(&path("/_CLUSTER/Settings")));
        assert!(!settings.matches(&path("/_cluster/settings/x")));
        let index = pattern("/*/_doc/*");
        assert!(index.matches(&path("/logs/_doc/1")));
        assert!(!index.matches(&path("/logs/x/_doc/1")));
        assert!(pattern("/**/_delete_by_query").matches(&path("/a,b/_delete_by_query")));
        assert!(pattern("/**").matches(&path("/")));
        assert!(pattern("/").matches(&path("/")));
        assert!(!pattern("/").matches(&path("/x")));
        assert!(pattern("/logs-*/").matches(&path("/logs-1")));
    }

    #[test]
    fn bad_patterns_are_explained() {
        for (text, expected) in [
            ("_security", "must start with '/'"),
            ("/%5Fsecurity", "must not contain '%'"),
            ("/a;b", "must not contain ';'"),
            ("/a?x=1&y", "must not contain '&'"),
            ("/a//b", "empty segment (segment 2"),
            ("/a/../b", "dot segment (segment 2"),
            ("/a**", "'**' must be a whole segment"),
            ("/[abc", "is never closed"),
            ("/a b", "must not contain ' '"),
        ] {
            let error = PathPattern::parse(text).unwrap_err();
            assert!(error.contains(expected), "{text}: {error}");
        }
        assert!(MethodName::parse("FETCH").unwrap_err().contains("DELETE"));
        assert_eq!(MethodName::parse("delete").unwrap().as_str(), "DELETE");
        assert!(MethodName::parse("GET").unwrap().covers("head"));
        assert!(!MethodName::parse("HEAD").unwrap().covers("GET"));
    }

    #[test]
    fn many_any_depth_segments_stay_fast() {
        let text = format!("{}x", "/a/**".repeat(30)).replace("**x", "**/x");
        let deep = pattern(&text);
        let long: Vec<String> = (0..3000).map(|_| "a".to_owned()).collect();
        assert!(!deep.matches(&long));
    }
}
