//! The viewer's console calls: one explicit table, [`VIEWER_CALLS`], of (methods, path pattern,
//! body rule). A relayed call is viewer when an entry matches its method and every path segment
//! and its query and body satisfy the entry's rule; a call no entry matches needs a higher role
//! (docs/access-control.md, "Read-only relay calls"). Nothing is read-only for being a `GET`:
//! Elasticsearch registers acting endpoints under `GET` too (`_refresh`, `_flush`,
//! `_flush/synced`).
//!
//! Path patterns are split on `/` and matched segment by segment, whole: a literal; `{index}`,
//! an index expression (`logs-*`, `a,b`, `remote:logs`, `_all`; other `_` names are APIs);
//! `{id}`, any one segment; `{ids}`, a comma-separated list of specific context ids (never
//! `_all`); `**` (last only), any number of further segments, none included.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

use super::sql;
use crate::relay::percent_decode;

/// How a call's query string and body are judged once its method and path matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyRule {
    /// Any body: the endpoint only reads, whatever the body asks.
    Any,
    /// An SQL call: the JSON body's `query` is one `SELECT`, `SHOW` or `DESCRIBE` statement, or
    /// the body only pages on with a `cursor`; the query string carries only
    /// [`SQL_QUERY_PARAMS`].
    SqlRead,
    /// Releases search contexts (scrolls, points in time, cursors) named one by one: the body is
    /// a JSON object whose only field is this one, holding one id or a list of ids, each
    /// specific (not empty, not `_all`, no `,`); or, on a path with `{ids}`, no body. The query
    /// string carries only [`OUTPUT_PARAMS`] (Elasticsearch also takes the ids, and a whole
    /// body, from `?scroll_id=` and `?source=`).
    ReleaseIds(&'static str),
}

/// One entry of the viewer's set.
#[derive(Debug, Clone, Copy)]
pub struct ViewerCall {
    /// The methods the cluster receives (`HEAD` only where listed).
    pub methods: &'static [&'static str],
    /// The path pattern (module docs); `""` is the cluster root.
    pub path: &'static str,
    pub body: BodyRule,
}

const READ: &[&str] = &["GET", "HEAD"];
/// Endpoints that take a query in a body: `GET` with a body, or `POST`.
const QUERY: &[&str] = &["GET", "POST"];
const POST: &[&str] = &["POST"];
const DELETE: &[&str] = &["DELETE"];

const fn entry(methods: &'static [&'static str], path: &'static str) -> ViewerCall {
    ViewerCall {
        methods,
        path,
        body: BodyRule::Any,
    }
}

const fn ruled(methods: &'static [&'static str], path: &'static str, body: BodyRule) -> ViewerCall {
    ViewerCall {
        methods,
        path,
        body,
    }
}

/// Everything a viewer may send through the console; anything else needs operator (the index
/// operations of `action`) or admin.
pub const VIEWER_CALLS: &[ViewerCall] = &[
    // Cluster and node state.
    entry(READ, ""),
    entry(READ, "/_cat/**"),
    entry(READ, "/_cluster/health/**"),
    entry(READ, "/_cluster/state/**"),
    entry(READ, "/_cluster/stats/**"),
    entry(READ, "/_cluster/settings"),
    entry(READ, "/_cluster/pending_tasks"),
    entry(QUERY, "/_cluster/allocation/explain"),
    entry(READ, "/_nodes/**"),
    entry(READ, "/_remote/info"),
    entry(READ, "/_tasks/**"),
    // Indices: definitions and statistics.
    entry(READ, "/{index}"),
    entry(READ, "/_stats/**"),
    entry(READ, "/{index}/_stats/**"),
    entry(READ, "/_segments"),
    entry(READ, "/{index}/_segments"),
    entry(READ, "/_recovery"),
    entry(READ, "/{index}/_recovery"),
    entry(READ, "/_shard_stores"),
    entry(READ, "/{index}/_shard_stores"),
    entry(READ, "/_mapping/**"),
    entry(READ, "/{index}/_mapping/**"),
    entry(READ, "/_settings/**"),
    entry(READ, "/{index}/_settings/**"),
    entry(READ, "/_alias/**"),
    entry(READ, "/{index}/_alias/**"),
    entry(READ, "/_aliases"),
    entry(READ, "/{index}/_aliases"),
    entry(READ, "/_template/**"),
    entry(READ, "/_index_template/**"),
    entry(READ, "/_component_template/**"),
    entry(READ, "/_data_stream/**"),
    entry(READ, "/_resolve/index/{id}"),
    entry(READ, "/_ingest/pipeline/**"),
    entry(READ, "/_snapshot/**"),
    entry(READ, "/_ilm/policy/**"),
    entry(READ, "/_ilm/status"),
    entry(READ, "/{index}/_ilm/explain"),
    entry(READ, "/_plugins/_ism/explain/**"),
    entry(READ, "/_opendistro/_ism/explain/**"),
    entry(READ, "/_license"),
    entry(READ, "/_xpack"),
    entry(READ, "/_security/_authenticate"),
    entry(READ, "/_plugins/_security/authinfo"),
    entry(READ, "/_opendistro/_security/authinfo"),
    // Documents and searches.
    entry(READ, "/{index}/_doc/{id}"),
    entry(READ, "/{index}/_source/{id}"),
    entry(QUERY, "/_search"),
    entry(QUERY, "/{index}/_search"),
    entry(QUERY, "/_msearch"),
    entry(QUERY, "/{index}/_msearch"),
    entry(QUERY, "/_count"),
    entry(QUERY, "/{index}/_count"),
    entry(QUERY, "/_mget"),
    entry(QUERY, "/{index}/_mget"),
    entry(QUERY, "/_field_caps"),
    entry(QUERY, "/{index}/_field_caps"),
    entry(QUERY, "/_validate/query"),
    entry(QUERY, "/{index}/_validate/query"),
    entry(QUERY, "/{index}/_explain/{id}"),
    entry(QUERY, "/_analyze"),
    entry(QUERY, "/{index}/_analyze"),
    entry(QUERY, "/{index}/_termvectors"),
    entry(QUERY, "/{index}/_termvectors/{id}"),
    entry(QUERY, "/_mtermvectors"),
    entry(QUERY, "/{index}/_mtermvectors"),
    // Scrolls and points in time: paging on, opening, and releasing the caller's own by id.
    entry(QUERY, "/_search/scroll"),
    entry(QUERY, "/_search/scroll/{id}"),
    ruled(DELETE, "/_search/scroll", BodyRule::ReleaseIds("scroll_id")),
    ruled(
        DELETE,
        "/_search/scroll/{ids}",
        BodyRule::ReleaseIds("scroll_id"),
    ),
    entry(POST, "/{index}/_pit"),
    ruled(DELETE, "/_pit", BodyRule::ReleaseIds("id")),
    entry(POST, "/{index}/_search/point_in_time"),
    entry(READ, "/_search/point_in_time/_all"),
    ruled(
        DELETE,
        "/_search/point_in_time",
        BodyRule::ReleaseIds("pit_id"),
    ),
    // SQL (Elasticsearch, OpenSearch, Open Distro): reads, and releasing a cursor.
    ruled(QUERY, "/_sql", BodyRule::SqlRead),
    ruled(QUERY, "/_plugins/_sql", BodyRule::SqlRead),
    ruled(QUERY, "/_opendistro/_sql", BodyRule::SqlRead),
    ruled(QUERY, "/_sql/close", BodyRule::ReleaseIds("cursor")),
    ruled(
        QUERY,
        "/_plugins/_sql/close",
        BodyRule::ReleaseIds("cursor"),
    ),
    ruled(
        QUERY,
        "/_opendistro/_sql/close",
        BodyRule::ReleaseIds("cursor"),
    ),
];

/// Query parameters an SQL call may carry and still be read-only (a `sql=` parameter could hold
/// another statement than the body's).
pub(crate) const SQL_QUERY_PARAMS: &[&str] = &[
    "format",
    "pretty",
    "delimiter",
    "sanitize",
    "error_trace",
    "filter_path",
    "human",
];

/// Query parameters that shape only the answer.
pub(crate) const OUTPUT_PARAMS: &[&str] = &["pretty", "human", "error_trace", "filter_path"];

/// A query parameter no viewer call may carry: `GET /<index>/_doc/<id>?refresh=true` refreshes
/// the shard first.
const ACTING_PARAMS: &[&str] = &["refresh"];

/// The entry matching `method` and the decoded path segments, if any.
pub(crate) fn entry_for(method: &str, parts: &[&str]) -> Option<&'static ViewerCall> {
    VIEWER_CALLS
        .iter()
        .find(|call| call.methods.contains(&method) && path_matches(call.path, parts))
}

impl ViewerCall {
    /// True when [`ViewerCall::allows`] reads the body.
    pub(crate) fn reads_body(&self) -> bool {
        self.body != BodyRule::Any
    }

    /// Whether the call's query string and body (`None`: not read, too large or compressed)
    /// keep it within this entry.
    pub(crate) fn allows(&self, query: Option<&str>, body: Option<&[u8]>) -> bool {
        let names = query_names(query);
        if names
            .iter()
            .any(|name| ACTING_PARAMS.contains(&name.as_str()))
        {
            return false;
        }
        let only = |allowed: &[&str]| names.iter().all(|name| allowed.contains(&name.as_str()));
        match self.body {
            BodyRule::Any => true,
            BodyRule::SqlRead => only(SQL_QUERY_PARAMS) && body.is_some_and(sql::is_read_only_body),
            BodyRule::ReleaseIds(field) => {
                let ids_in_path = self.path.ends_with("{ids}");
                only(OUTPUT_PARAMS)
                    && match body {
                        None => false,
                        Some(body) if body.iter().all(u8::is_ascii_whitespace) => ids_in_path,
                        Some(body) => names_specific_ids(field, body),
                    }
            }
        }
    }
}

/// The decoded names of the query's parameters.
fn query_names(query: Option<&str>) -> Vec<String> {
    query
        .unwrap_or_default()
        .split('&')
        .map(|pair| percent_decode(&pair.split('=').next().unwrap_or_default().replace('+', " ")))
        .filter(|name| !name.is_empty())
        .collect()
}

fn path_matches(pattern: &str, parts: &[&str]) -> bool {
    let pattern = pattern.strip_prefix('/').unwrap_or(pattern);
    let mut wanted = if pattern.is_empty() {
        Vec::new()
    } else {
        pattern.split('/').collect::<Vec<_>>()
    };
    let rest_allowed = wanted.last() == Some(&"**");
    if rest_allowed {
        wanted.pop();
    }
    if parts.len() < wanted.len() || (!rest_allowed && parts.len() != wanted.len()) {
        return false;
    }
    wanted
        .iter()
        .zip(parts)
        .all(|(wanted, part)| match *wanted {
            "{index}" => is_index(part),
            "{id}" => true,
            "{ids}" => part.split(',').all(is_specific_id),
            literal => literal == *part,
        })
}

/// An index expression (`logs-*`, `a,b`, `remote:logs`, `_all`); other `_` names are APIs.
pub(crate) fn is_index(segment: &str) -> bool {
    segment == "_all" || !segment.starts_with('_')
}

/// One context id, not a wildcard for all of them.
fn is_specific_id(id: &str) -> bool {
    let id = id.trim();
    !id.is_empty()
        && !id.eq_ignore_ascii_case("_all")
        && !id.contains(',')
        && !id.chars().any(char::is_control)
}

/// True when `body` is a JSON object whose only field is `field`, holding one specific id or a
/// non-empty list of them. A field given twice or another field is refused (the cluster might
/// read what this check did not).
fn names_specific_ids(field: &str, body: &[u8]) -> bool {
    let mut parser = serde_json::Deserializer::from_slice(body);
    let Ok(ids) = IdsIn(field).deserialize(&mut parser) else {
        return false;
    };
    parser.end().is_ok() && !ids.is_empty() && ids.iter().all(|id| is_specific_id(id))
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Ids {
    One(String),
    Many(Vec<String>),
}

/// Reads `{"<field>": <id or ids>}` and nothing else.
struct IdsIn<'f>(&'f str);

impl<'de> DeserializeSeed<'de> for IdsIn<'_> {
    type Value = Vec<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<String>, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for IdsIn<'_> {
    type Value = Vec<String>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "an object with only the field {}", self.0)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<String>, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            if key != self.0 || found.is_some() {
                return Err(de::Error::custom("another field, or the field twice"));
            }
            found = Some(match map.next_value::<Ids>()? {
                Ids::One(id) => vec![id],
                Ids::Many(ids) => ids,
            });
        }
        found.ok_or_else(|| de::Error::missing_field("ids"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_is_well_formed() {
        for call in VIEWER_CALLS {
            assert!(
                call.path.is_empty() || call.path.starts_with('/'),
                "{}",
                call.path
            );
            let segments: Vec<&str> = call.path.split('/').skip(1).collect();
            for (n, segment) in segments.iter().enumerate() {
                assert!(!segment.is_empty(), "{}", call.path);
                assert!(
                    *segment != "**" || n + 1 == segments.len(),
                    "** only last: {}",
                    call.path
                );
                if segment.starts_with('{') {
                    assert!(
                        matches!(*segment, "{index}" | "{id}" | "{ids}"),
                        "{}",
                        call.path
                    );
                }
            }
            assert!(
                !call.methods.is_empty()
                    && call
                        .methods
                        .iter()
                        .all(|m| ["GET", "HEAD", "POST", "DELETE"].contains(m)),
                "{}",
                call.path
            );
            // Only the release entries read a body by DELETE; no entry writes.
            if call.methods.contains(&"DELETE") {
                assert!(
                    matches!(call.body, BodyRule::ReleaseIds(_)),
                    "{}",
                    call.path
                );
            }
        }
    }

    #[test]
    fn release_bodies_must_name_specific_ids() {
        let call = entry_for("DELETE", &["_search", "scroll"]).unwrap();
        let allows = |body: &str| call.allows(None, Some(body.as_bytes()));
        assert!(allows(r#"{"scroll_id":"abc"}"#));
        assert!(allows(r#"{"scroll_id":["abc","def"]}"#));
        for body in [
            r#"{"scroll_id":"_all"}"#,
            r#"{"scroll_id":["_all"]}"#,
            r#"{"scroll_id":[" _ALL "]}"#,
            r#"{"scroll_id":"a,_all"}"#,
            r#"{"scroll_id":[]}"#,
            r#"{"scroll_id":""}"#,
            r#"{"scroll_id":"a","scroll_id":"_all"}"#,
            r#"{"scroll_id":"a","other":1}"#,
            r#"{"id":"a"}"#,
            r#"{"scroll_id":"a"} {"scroll_id":"_all"}"#,
            "abc",
            "",
        ] {
            assert!(!allows(body), "{body}");
        }
        assert!(!call.allows(None, None), "a body not read is refused");
        assert!(!call.allows(Some("scroll_id=_all"), Some(b"{\"scroll_id\":\"a\"}")));
        assert!(!call.allows(Some("source=x"), Some(b"{\"scroll_id\":\"a\"}")));
        assert!(call.allows(Some("pretty"), Some(b"{\"scroll_id\":\"a\"}")));
        let by_path = entry_for("DELETE", &["_search", "scroll", "a,b"]).unwrap();
        assert!(by_path.allows(None, Some(b"")));
        assert!(entry_for("DELETE", &["_search", "scroll", "a,_all"]).is_none());
        assert!(entry_for("DELETE", &["_search", "scroll", "_all"]).is_none());
        assert!(entry_for("DELETE", &["_search", "point_in_time", "_all"]).is_none());
    }

    #[test]
    fn patterns_match_whole_segments() {
        assert!(path_matches("/_cat/**", &["_cat"]));
        assert!(path_matches("/_cat/**", &["_cat", "indices"]));
        assert!(!path_matches("/_cat/**", &["_catx"]));
        assert!(path_matches("/{index}/_search", &["logs-*,x", "_search"]));
        assert!(!path_matches("/{index}/_search", &["_cluster", "_search"]));
        assert!(path_matches("", &[]));
        assert!(!path_matches("", &["x"]));
        assert!(!path_matches("/_flush", &["_flush", "synced"]));
    }
}
