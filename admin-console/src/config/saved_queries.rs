//! `saved_queries:` — where the console's saved queries are kept.

use std::path::PathBuf;

use serde::Deserialize;
use service_kit::config::ConfigProblems;

/// Which store keeps saved queries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SavedQueryStoreKind {
    /// One redb file at `path`, for a single replica (the default).
    #[default]
    Embedded,
    /// Redis at `redis.url`, shared by several replicas.
    Redis,
}

/// `saved_queries:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SavedQueriesSettings {
    /// `embedded` or `redis`.
    pub store: SavedQueryStoreKind,
    /// The embedded store's file (created with its directory at the first use). Relative paths
    /// are taken from the working directory: the default suits `make run` from the repository
    /// root; containers set a path on a volume.
    pub path: PathBuf,
    /// The Redis store's server.
    pub redis: SavedQueriesRedis,
}

/// `saved_queries.redis:`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SavedQueriesRedis {
    /// `redis://host:port[/db]` (or `rediss://`).
    pub url: String,
}

impl Default for SavedQueriesSettings {
    fn default() -> Self {
        Self {
            store: SavedQueryStoreKind::Embedded,
            path: PathBuf::from(".cache/admin-console/saved-queries.redb"),
            redis: SavedQueriesRedis::default(),
        }
    }
}

impl SavedQueriesSettings {
    pub(crate) fn validate(&self, problems: &mut ConfigProblems) {
        match self.store {
            SavedQueryStoreKind::Embedded => {
                problems.check(
                    !self.path.as_os_str().is_empty(),
                    "saved_queries.path",
                    "must name the embedded store's file",
                );
                problems.check(
                    !self.path.is_dir(),
                    "saved_queries.path",
                    "is a directory; name a file",
                );
            }
            SavedQueryStoreKind::Redis => {
                let url = self.redis.url.as_str();
                problems.check(
                    url.starts_with("redis://") || url.starts_with("rediss://"),
                    "saved_queries.redis.url",
                    "must be a redis:// or rediss:// URL when saved_queries.store is redis",
                );
            }
        }
    }
}
