//! The role a request needs.
//!
//! Console (relay) calls are judged by their method and their path *segments*, split as the
//! cluster splits them and then percent-decoded, and matched whole: `/_search_evil` is not
//! `_search`, and a path the relay would refuse (a `.`/`..` segment, a backslash, an encoded `/`)
//! is never read-only. The index operations below are operator; a viewer may make exactly the
//! calls of the table in [`super::viewer`] (method, path and body); anything else needs admin.

use actix_web::http::Method;

use super::viewer::{ViewerCall, entry_for, is_index};
use crate::config::Role;
use crate::relay::percent_decode;

/// How a relayed call is judged: its method, the path after `/proxy` exactly as received (raw,
/// not decoded), its query string and, when its viewer entry has a body rule, the body.
pub(crate) struct RelayCall<'a> {
    pub(crate) method: &'a Method,
    pub(crate) raw_tail: Option<&'a str>,
    pub(crate) query: Option<&'a str>,
}

impl RelayCall<'_> {
    fn segments(&self) -> Option<Vec<String>> {
        segments(self.raw_tail?)
    }

    /// The viewer entry the method and path match, unless the path is an index operation.
    fn viewer_entry(&self) -> Option<&'static ViewerCall> {
        let segments = self.segments()?;
        let parts: Vec<&str> = segments.iter().map(String::as_str).collect();
        if is_operator_endpoint(&parts) {
            return None;
        }
        entry_for(self.method.as_str(), &parts)
    }

    /// True when the decision depends on the body (an SQL call, releasing scrolls or points in
    /// time): the body must be read first (at most [`super::sql::MAX_SQL_BODY`]) and given to
    /// [`RelayCall::needs`].
    pub(crate) fn needs_body(&self) -> bool {
        self.viewer_entry().is_some_and(ViewerCall::reads_body)
    }

    /// The role this call needs; `body` is the body when [`RelayCall::needs_body`] (None: not
    /// read, e.g. too large or compressed).
    pub(crate) fn needs(&self, body: Option<&[u8]>) -> Role {
        let Some(segments) = self.segments() else {
            return Role::Admin;
        };
        let parts: Vec<&str> = segments.iter().map(String::as_str).collect();
        if is_operator_endpoint(&parts) {
            return match *self.method {
                Method::GET | Method::HEAD | Method::POST => Role::Operator,
                _ => Role::Admin,
            };
        }
        match entry_for(self.method.as_str(), &parts) {
            Some(entry) if entry.allows(self.query, body) => Role::Viewer,
            _ => Role::Admin,
        }
    }
}

/// The role a request to a view or a management route (`/api/clusters/{id}/…` other than the
/// relay) needs, from its method and path segments (docs/access-control.md, "Roles"):
///
/// - the cluster's own security (`/security…`: users, roles, role mappings) is admin, reads
///   included;
/// - reading (`GET`, `HEAD`) and the read-only `POST`s (a template simulation, an `_analyze`
///   test) are viewer;
/// - what an operator does to keep a cluster running and which loses no data is operator: the
///   allocation lock, draining a node (and undoing it), open/close/refresh/flush/force
///   merge/clear cache of indices, moving a
///   shard and retrying failed allocations, cancelling a task, verifying a snapshot repository,
///   taking a snapshot, rolling a data stream or an alias over and a force merge started as a
///   task;
/// - everything else (create/delete indices and data streams, write blocks, settings, aliases,
///   shrink, split, clone and reindex (they create indices and copy data),
///   templates, repositories, restore and delete snapshots, cluster settings) and any route not
///   listed is admin.
pub(crate) fn view_needs(method: &Method, path_in_cluster: &str) -> Role {
    // The cluster's own users, roles and role mappings: reading them is admin too.
    // Judged on the decoded path, as the router matches it (`/%73ecurity` is `/security`).
    let decoded = percent_decode(path_in_cluster);
    if decoded.split('/').find(|part| !part.is_empty()) == Some("security") {
        return Role::Admin;
    }
    if matches!(*method, Method::GET | Method::HEAD) {
        return Role::Viewer;
    }
    let trimmed = path_in_cluster.trim_matches('/');
    let parts: Vec<&str> = if trimmed.is_empty() {
        Vec::new()
    } else {
        trimmed.split('/').collect()
    };
    match (method, parts.as_slice()) {
        (&Method::POST, ["templates", "simulate"] | ["analyze"]) => Role::Viewer,
        (&Method::PUT, ["allocation"])
        | (&Method::PUT | &Method::DELETE, ["nodes", _, "drain"])
        | (&Method::POST, ["shards", "move" | "retry"])
        | (&Method::POST, ["tasks", _, "cancel"])
        | (&Method::POST, ["repositories", _, "verify"])
        | (&Method::POST, ["repositories", _, "snapshots"])
        | (&Method::POST, ["data_streams", _, "_rollover"])
        | (&Method::POST, ["indices", _, "forcemerge"])
        | (&Method::POST, ["aliases", _, "rollover"]) => Role::Operator,
        (&Method::POST, ["indices", "_actions", action])
            if OPERATOR_INDEX_ACTIONS.contains(action) =>
        {
            Role::Operator
        }
        _ => Role::Admin,
    }
}

/// The index actions (`POST /api/clusters/{id}/indices/_actions/{action}`) an operator may run;
/// the others (`block_write`, `unblock_write`, `delete`) are admin.
pub(crate) const OPERATOR_INDEX_ACTIONS: &[&str] = &[
    "open",
    "close",
    "refresh",
    "flush",
    "forcemerge",
    "clear_cache",
];

/// The raw tail split on `/` (as the cluster splits it, before decoding), each segment
/// percent-decoded until nothing changes. `None` (never read-only) for a path the relay refuses
/// or that decodes to something else than plain segments: an empty segment (`a//b`), `.`, `..`,
/// a decoded `/` or `\`, a control character.
pub(crate) fn segments(raw_tail: &str) -> Option<Vec<String>> {
    if crate::relay::checked_tail(raw_tail).is_err() {
        return None;
    }
    let path = raw_tail.strip_prefix('/').unwrap_or(raw_tail);
    if path.is_empty() {
        return Some(Vec::new());
    }
    let path = path.strip_suffix('/').unwrap_or(path);
    path.split('/')
        .map(|raw| {
            let segment = percent_decode(raw);
            let plain = !segment.is_empty()
                && segment != "."
                && segment != ".."
                && !segment.contains(['/', '\\'])
                && !segment.chars().any(char::is_control);
            plain.then_some(segment)
        })
        .collect()
}

/// Open/close, refresh, flush (synced too: `GET` in Elasticsearch 7), force merge and cache
/// clearing, at the root or on indices.
fn is_operator_endpoint(parts: &[&str]) -> bool {
    match parts {
        ["_refresh"]
        | ["_flush"]
        | ["_flush", "synced"]
        | ["_forcemerge"]
        | ["_cache", "clear"] => true,
        [
            index,
            "_open" | "_close" | "_refresh" | "_flush" | "_forcemerge",
        ] => is_index(index),
        [index, "_cache", "clear"] | [index, "_flush", "synced"] => is_index(index),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn needs(method: Method, tail: &str, body: Option<&str>) -> Role {
        let (path, query) = match tail.split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (tail, None),
        };
        RelayCall {
            method: &method,
            raw_tail: Some(path),
            query,
        }
        .needs(body.map(str::as_bytes))
    }

    #[test]
    fn reads_are_viewer() {
        for tail in [
            "",
            "/",
            "/_cluster/health",
            "/logs/_doc/1",
            "/_cat/indices?v",
        ] {
            assert_eq!(needs(Method::GET, tail, None), Role::Viewer, "{tail}");
            assert_eq!(needs(Method::HEAD, tail, None), Role::Viewer, "{tail}");
        }
        for tail in [
            "/_search",
            "/logs/_search",
            "/logs-*,metrics/_search?size=0",
            "/_all/_search",
            "/remote:logs/_search",
            "/_msearch",
            "/logs/_msearch",
            "/_count",
            "/logs/_count",
            "/_mget",
            "/logs/_mget",
            "/_field_caps?fields=*",
            "/logs/_field_caps",
            "/_validate/query",
            "/logs/_validate/query",
            "/logs/_explain/1",
            "/_search/scroll",
            "/_search/scroll/abc",
            "/logs/_pit?keep_alive=1m",
            "/logs/_search/point_in_time",
            "/_s%65arch",
            "/logs/_search/",
        ] {
            assert_eq!(needs(Method::POST, tail, None), Role::Viewer, "{tail}");
        }
        for (tail, body) in [
            ("/_search/scroll", r#"{"scroll_id":["s1"]}"#),
            ("/_pit", r#"{"id":"p1"}"#),
            ("/_search/point_in_time", r#"{"pit_id":["p1"]}"#),
        ] {
            assert_eq!(
                needs(Method::DELETE, tail, Some(body)),
                Role::Viewer,
                "{tail}"
            );
            assert_eq!(needs(Method::DELETE, tail, None), Role::Admin, "{tail}");
        }
    }

    #[test]
    fn sql_is_viewer_only_for_a_select() {
        let select = r#"{"query":"SELECT * FROM logs"}"#;
        for tail in [
            "/_sql",
            "/_plugins/_sql",
            "/_opendistro/_sql",
            "/_sql?format=txt",
        ] {
            assert_eq!(
                needs(Method::POST, tail, Some(select)),
                Role::Viewer,
                "{tail}"
            );
            assert_eq!(
                needs(Method::POST, tail, Some(r#"{"query":"DELETE FROM logs"}"#)),
                Role::Admin,
                "{tail}"
            );
            assert_eq!(needs(Method::POST, tail, None), Role::Admin, "{tail}");
        }
        assert_eq!(
            needs(Method::POST, "/_sql?sql=DELETE", Some(select)),
            Role::Admin
        );
        assert_eq!(
            needs(Method::POST, "/_sql/close", Some(r#"{"cursor":"c1"}"#)),
            Role::Viewer
        );
        assert_eq!(needs(Method::POST, "/_sql/close", Some("{}")), Role::Admin);
        assert_eq!(
            needs(Method::POST, "/_sql/translate", Some(select)),
            Role::Admin
        );
        assert_eq!(needs(Method::PUT, "/_sql", Some(select)), Role::Admin);
        let call = RelayCall {
            method: &Method::POST,
            raw_tail: Some("/_plugins/_sql"),
            query: None,
        };
        assert!(call.needs_body());
        let search = RelayCall {
            method: &Method::POST,
            raw_tail: Some("/_search"),
            query: None,
        };
        assert!(!search.needs_body());
    }

    #[test]
    fn index_operations_are_operator() {
        for tail in [
            "/logs/_open",
            "/logs/_close",
            "/_refresh",
            "/logs/_refresh",
            "/_flush",
            "/logs/_flush",
            "/_forcemerge?max_num_segments=1",
            "/logs/_forcemerge",
            "/_cache/clear",
            "/logs/_cache/clear",
            "/logs/_cl%6fse",
        ] {
            assert_eq!(needs(Method::POST, tail, None), Role::Operator, "{tail}");
        }
        // GET /_refresh, GET /_flush and GET /_flush/synced (Elasticsearch 7) act too.
        assert_eq!(needs(Method::GET, "/_refresh", None), Role::Operator);
        assert_eq!(needs(Method::GET, "/logs/_flush", None), Role::Operator);
        assert_eq!(needs(Method::GET, "/_flush/synced", None), Role::Operator);
        assert_eq!(
            needs(Method::GET, "/logs/_flush/synced", None),
            Role::Operator
        );
    }

    #[test]
    fn everything_else_is_admin() {
        for (method, tail) in [
            (Method::PUT, "/logs"),
            (Method::DELETE, "/logs"),
            (Method::POST, "/logs/_doc"),
            (Method::POST, "/_bulk"),
            (Method::POST, "/logs/_delete_by_query"),
            (Method::POST, "/logs/_update_by_query"),
            (Method::PUT, "/_cluster/settings"),
            (Method::PATCH, "/logs"),
            (Method::DELETE, "/_search/point_in_time/_all"),
            (Method::DELETE, "/logs/_search/scroll"),
            (Method::POST, "/_security/_search"),
            (Method::POST, "/_search/template"),
            (Method::PUT, "/logs/_close"),
            (Method::OPTIONS, "/_search"),
            (Method::GET, "/_plugins/_security/api/internalusers"),
            (Method::GET, "/_unknown_api"),
            (Method::GET, "/logs/_doc/1?refresh=true"),
            (Method::HEAD, "/_sql"),
        ] {
            assert_eq!(
                needs(method.clone(), tail, None),
                Role::Admin,
                "{method} {tail}"
            );
        }
    }

    #[test]
    fn path_tricks_are_never_read_only() {
        for tail in [
            "/_search_evil",
            "/_searchx",
            "/x_search",
            "/x/_search/../_delete",
            "/x/_search/%2e%2e/_close",
            "/x/_search/%252e%252e/_close",
            "/x%2F_search",
            "/x%252F_search",
            "/x//_search",
            "//_search",
            "/x/_search\\..\\_close",
            "/./_search",
            "/_search/extra",
            "/x/y/_search",
            "/logs/_doc/_search",
            "/_search%00",
        ] {
            assert_ne!(needs(Method::POST, tail, None), Role::Viewer, "{tail}");
        }
        assert_eq!(
            RelayCall {
                method: &Method::GET,
                raw_tail: None,
                query: None
            }
            .needs(None),
            Role::Admin
        );
    }

    #[test]
    fn views() {
        assert_eq!(view_needs(&Method::GET, "/overview"), Role::Viewer);
        for path in [
            "/security",
            "/security/users",
            "/%73ecurity/roles/x",
            "//security/x",
        ] {
            assert_eq!(view_needs(&Method::GET, path), Role::Admin, "{path}");
        }
        assert_eq!(view_needs(&Method::PUT, "/allocation"), Role::Operator);
        assert_eq!(view_needs(&Method::PUT, "/nodes/n1/drain"), Role::Operator);
        assert_eq!(
            view_needs(&Method::DELETE, "/nodes/n1/drain"),
            Role::Operator
        );
        assert_eq!(view_needs(&Method::POST, "/nodes/n1/drain"), Role::Admin);
        assert_eq!(view_needs(&Method::POST, "/allocation"), Role::Admin);
        assert_eq!(view_needs(&Method::DELETE, "/indices/x"), Role::Admin);
        for (method, path, role) in [
            (Method::GET, "/tasks", Role::Viewer),
            (Method::POST, "/templates/simulate", Role::Viewer),
            (Method::POST, "/indices/_actions/close", Role::Operator),
            (Method::POST, "/indices/_actions/forcemerge", Role::Operator),
            (Method::POST, "/indices/_actions/delete", Role::Admin),
            (Method::POST, "/indices/_actions/block_write", Role::Admin),
            (Method::POST, "/indices/_actions/closex", Role::Admin),
            (Method::POST, "/indices", Role::Admin),
            (Method::PUT, "/indices/x/settings", Role::Admin),
            (Method::POST, "/indices/x/forcemerge", Role::Operator),
            (Method::POST, "/indices/x/shrink", Role::Admin),
            (Method::POST, "/indices/x/split", Role::Admin),
            (Method::POST, "/indices/x/clone", Role::Admin),
            (Method::POST, "/reindex", Role::Admin),
            (Method::POST, "/aliases/logs/rollover", Role::Operator),
            (Method::POST, "/shards/move", Role::Operator),
            (Method::POST, "/shards/retry", Role::Operator),
            (Method::POST, "/shards/move/x", Role::Admin),
            (Method::POST, "/tasks/n:1/cancel", Role::Operator),
            (Method::DELETE, "/tasks/n:1", Role::Admin),
            (Method::POST, "/repositories/backups/verify", Role::Operator),
            (
                Method::POST,
                "/repositories/backups/snapshots",
                Role::Operator,
            ),
            (
                Method::POST,
                "/repositories/b/snapshots/s/restore",
                Role::Admin,
            ),
            (Method::DELETE, "/repositories/b/snapshots/s", Role::Admin),
            (Method::PUT, "/repositories/b", Role::Admin),
            (Method::PUT, "/settings", Role::Admin),
            (Method::POST, "/aliases", Role::Admin),
            (Method::PUT, "/templates/index/t", Role::Admin),
            (Method::GET, "/data_streams", Role::Viewer),
            (Method::POST, "/data_streams/logs/_rollover", Role::Operator),
            (Method::PUT, "/data_streams/logs", Role::Admin),
            (Method::DELETE, "/data_streams/logs", Role::Admin),
            (Method::POST, "/data_streams/logs/_rollover/x", Role::Admin),
            (Method::PATCH, "/unknown", Role::Admin),
        ] {
            assert_eq!(view_needs(&method, path), role, "{method} {path}");
        }
    }

    proptest! {
        /// A path whose segments are not exactly a listed read-only form is never read-only
        /// for POST: appending anything to a read-only endpoint name, or putting a segment
        /// after it, needs more than viewer.
        #[test]
        fn suffixes_never_make_a_read_only_endpoint(
            endpoint in prop::sample::select(&["_search", "_msearch", "_count", "_mget", "_field_caps"][..]),
            suffix in "[a-z_%./]{1,8}",
        ) {
            let glued = format!("/logs/{endpoint}{suffix}");
            let decoded = segments(&glued);
            let role = needs(Method::POST, &glued, None);
            if role == Role::Viewer {
                // Only when decoding gave back exactly a read-only form.
                let parts = decoded.unwrap();
                let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
                prop_assert!(entry_for("POST", &parts).is_some(), "{glued} -> {parts:?}");
            }
        }

        /// No path with a dot segment, encoded or not, is ever below admin for a write method.
        #[test]
        fn dot_segments_always_need_admin(
            before in "[a-z_]{1,6}",
            after in "[a-z_]{1,6}",
            dots in prop::sample::select(&["..", "%2e%2e", "%252e%252e", ".", "%2e"][..]),
            method in prop::sample::select(&[Method::POST, Method::PUT, Method::DELETE][..]),
        ) {
            let tail = format!("/{before}/_search/{dots}/{after}");
            prop_assert_eq!(needs(method, &tail, None), Role::Admin);
        }

        /// The segments never contain a separator, whatever the raw path.
        #[test]
        fn segments_are_plain(raw in "/[a-zA-Z0-9_%./\\\\-]{0,24}") {
            if let Some(parts) = segments(&raw) {
                for part in parts {
                    prop_assert!(!part.is_empty() && !part.contains('/') && part != ".." && part != ".");
                }
            }
        }
    }
}
