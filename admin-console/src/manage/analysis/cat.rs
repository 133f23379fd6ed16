//! The cat-API browser: which `_cat` APIs the cluster offers (its `GET /_cat` list, parsed and
//! kept to [`CAT_APIS`]), and one of them as a table with its columns' help.
//!
//! The cluster's answers (Elasticsearch 7/8 and OpenSearch 1/2/3 share them):
//! - `GET /_cat`: text, `=^.^=` then one path a line (`/_cat/indices`, `/_cat/indices/{index}`,
//!   `/_cat/snapshots/{repository}`…);
//! - `GET /_cat/<api>?format=json&v`: an array of objects, one a row, every value a string or
//!   `null`, the keys the API's default columns;
//! - `GET /_cat/<api>?help`: text, one column a line: `name | aliases | description`.

use serde::Serialize;
use serde_json::Value;

use crate::error::Error;

/// The `_cat` APIs the browser shows: every one only reads. The name is the path segment after
/// `/_cat/`; the browser never builds any other cat path.
pub(crate) const CAT_APIS: &[&str] = &[
    "aliases",
    "allocation",
    "cluster_manager",
    "component_templates",
    "count",
    "fielddata",
    "health",
    "indices",
    "master",
    "nodeattrs",
    "nodes",
    "pending_tasks",
    "plugins",
    "recovery",
    "repositories",
    "segments",
    "shards",
    "snapshots",
    "tasks",
    "templates",
    "thread_pool",
];

/// Most rows a table gives; the rest are counted in [`CatTable::cut_rows`].
pub(crate) const MAX_ROWS: usize = 5_000;

/// A cat API of [`CAT_APIS`]: the only way to a `_cat` path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CatApiName(&'static str);

impl CatApiName {
    pub(crate) fn parse(text: &str) -> Result<Self, Error> {
        CAT_APIS
            .iter()
            .find(|name| **name == text)
            .map(|name| Self(name))
            .ok_or_else(|| {
                let shown: String = text.chars().take(80).collect();
                Error::BadRequest(format!(
                    "\"{shown}\" is not one of the cat APIs the console shows: {}.",
                    CAT_APIS.join(", ")
                ))
            })
    }

    pub(crate) fn as_str(self) -> &'static str {
        self.0
    }

    /// `_cat/snapshots` lists one repository's snapshots.
    pub(crate) fn takes_repository(self) -> bool {
        self.0 == "snapshots"
    }
}

/// One cat API the cluster offers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct CatApi {
    pub(crate) name: String,
    /// It needs a repository (`snapshots`).
    pub(crate) needs_repository: bool,
}

/// `GET /cat`: the cat APIs of [`CAT_APIS`] the cluster lists, in its order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct CatApiList {
    pub(crate) apis: Vec<CatApi>,
}

/// Reads the cluster's `GET /_cat` text.
pub(crate) fn cat_apis(text: &str) -> CatApiList {
    let mut apis: Vec<CatApi> = Vec::new();
    for line in text.lines() {
        let Some(path) = line.trim().strip_prefix("/_cat/") else {
            continue;
        };
        let name = path.split('/').next().unwrap_or_default();
        let Ok(api) = CatApiName::parse(name) else {
            continue;
        };
        if !apis.iter().any(|known| known.name == name) {
            apis.push(CatApi {
                name: api.as_str().to_owned(),
                needs_repository: api.takes_repository(),
            });
        }
    }
    CatApiList { apis }
}

/// One column of a cat table, with the cluster's help for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct CatColumn {
    pub(crate) name: String,
    /// The short names the cluster also takes in `h=`.
    pub(crate) aliases: Vec<String>,
    /// `""` when the help does not list the column.
    pub(crate) description: String,
}

/// `GET /cat/{api}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct CatTable {
    pub(crate) api: String,
    /// The columns the rows have, in the help's order.
    pub(crate) columns: Vec<CatColumn>,
    /// One value per column; `null` where the cluster gave none.
    pub(crate) rows: Vec<Vec<Option<String>>>,
    /// How many rows the cluster gave.
    pub(crate) total_rows: usize,
    /// How many of them were left out (more than [`MAX_ROWS`]).
    pub(crate) cut_rows: usize,
}

/// Reads `?help` text into columns.
pub(crate) fn help_columns(text: &str) -> Vec<CatColumn> {
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, '|').map(str::trim);
            let name = parts.next().filter(|name| !name.is_empty())?;
            let aliases = parts.next().unwrap_or_default();
            Some(CatColumn {
                name: name.to_owned(),
                aliases: aliases
                    .split(',')
                    .map(str::trim)
                    .filter(|alias| !alias.is_empty())
                    .map(str::to_owned)
                    .collect(),
                description: parts.next().unwrap_or_default().to_owned(),
            })
        })
        .collect()
}

/// Reads `?format=json&v` rows, with the `help` columns (which may be empty when the help could
/// not be read), into a table of at most [`MAX_ROWS`] rows.
pub(crate) fn cat_table(
    api: CatApiName,
    answer: &Value,
    help: &[CatColumn],
) -> Result<CatTable, Error> {
    let Some(rows) = answer.as_array() else {
        return Err(Error::upstream(format!(
            "The cluster's _cat/{} answer is not a list of rows.",
            api.as_str()
        )));
    };
    let mut keys: Vec<&str> = Vec::new();
    for row in rows {
        for key in row.as_object().into_iter().flat_map(|row| row.keys()) {
            if !keys.contains(&key.as_str()) {
                keys.push(key);
            }
        }
    }
    let mut columns: Vec<CatColumn> = help
        .iter()
        .filter(|column| keys.contains(&column.name.as_str()))
        .cloned()
        .collect();
    for key in keys {
        if !columns.iter().any(|column| column.name == key) {
            columns.push(CatColumn {
                name: key.to_owned(),
                aliases: Vec::new(),
                description: String::new(),
            });
        }
    }
    let cell = |value: &Value| match value {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    };
    let table_rows = rows
        .iter()
        .take(MAX_ROWS)
        .map(|row| {
            columns
                .iter()
                .map(|column| row.get(&column.name).and_then(cell))
                .collect()
        })
        .collect();
    Ok(CatTable {
        api: api.as_str().to_owned(),
        columns,
        rows: table_rows,
        total_rows: rows.len(),
        cut_rows: rows.len().saturating_sub(MAX_ROWS),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_listed_cat_apis_are_names() {
        assert_eq!(CatApiName::parse("indices").unwrap().as_str(), "indices");
        for hostile in [
            "",
            "..",
            "../_cluster/settings",
            "indices/",
            "indices?v",
            "INDICES",
            "nope",
            "indices%2F..",
            "ml",
            "transforms",
        ] {
            let error = CatApiName::parse(hostile).unwrap_err().to_string();
            assert!(
                error.contains("not one of the cat APIs"),
                "{hostile}: {error}"
            );
        }
    }

    #[test]
    fn the_cat_list_is_parsed_and_kept_to_the_allow_list() {
        let text = "=^.^=\n/_cat/allocation\n/_cat/shards\n/_cat/shards/{index}\n\
            /_cat/cluster_manager\n/_cat/master\n/_cat/snapshots/{repository}\n/_cat/ml/jobs\n\
            /_cat/transforms\n/_cat/thread_pool/{thread_pools}\nnoise\n";
        let list = cat_apis(text);
        let names: Vec<_> = list.apis.iter().map(|api| api.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "allocation",
                "shards",
                "cluster_manager",
                "master",
                "snapshots",
                "thread_pool"
            ]
        );
        assert!(list.apis[4].needs_repository);
        assert!(!list.apis[0].needs_repository);
    }

    #[test]
    fn help_and_rows_make_one_table() {
        let help = help_columns(
            "epoch | t,time | seconds since 1970-01-01 00:00:00\n\
             status | st | health status\n\
             node.total | nt,nodeTotal | total number of nodes\n\n",
        );
        assert_eq!(help[0].aliases, ["t", "time"]);
        assert_eq!(help[1].description, "health status");
        let api = CatApiName::parse("health").unwrap();
        let answer = json!([{"status": "green", "epoch": "1", "extra": 3},
                            {"status": null, "epoch": "2"}]);
        let table = cat_table(api, &answer, &help).unwrap();
        let names: Vec<_> = table.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["epoch", "status", "extra"]);
        assert_eq!(
            table.rows,
            [
                vec![
                    Some("1".to_owned()),
                    Some("green".to_owned()),
                    Some("3".to_owned())
                ],
                vec![Some("2".to_owned()), None, None]
            ]
        );
        assert_eq!((table.total_rows, table.cut_rows), (2, 0));
        assert!(cat_table(api, &json!({"error": "x"}), &help).is_err());
    }

    #[test]
    fn rows_beyond_the_bound_are_cut_and_counted() {
        let rows: Vec<Value> = (0..MAX_ROWS + 7)
            .map(|n| json!({"n": n.to_string()}))
            .collect();
        let table = cat_table(CatApiName::parse("count").unwrap(), &json!(rows), &[]).unwrap();
        assert_eq!(table.rows.len(), MAX_ROWS);
        assert_eq!((table.total_rows, table.cut_rows), (MAX_ROWS + 7, 7));
    }
}
