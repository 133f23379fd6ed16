//! Data streams as the cluster describes them, read into the rows the web app lists, and the
//! cluster's refusals put into words a newcomer can act on.
//!
//! The answers (Elasticsearch 7.9+/8 and OpenSearch 1/2/3 share them; Elasticsearch adds fields):
//! - `GET /_data_stream`: `{"data_streams": [{"name", "timestamp_field": {"name"}, "indices":
//!   [{"index_name", "index_uuid"}], "generation", "status": "GREEN|YELLOW|RED", "template",
//!   "ilm_policy" (Elasticsearch, when set), "hidden" (Elasticsearch)}]}`;
//! - `GET /_data_stream/_stats`: `{"data_streams": [{"data_stream", "backing_indices",
//!   "store_size_bytes", "maximum_timestamp"}]}`;
//! - `POST /<name>/_rollover`: `{"old_index", "new_index", "rolled_over", "acknowledged"}`.
//!
//! A cluster without the data stream API (Elasticsearch 7.10's OSS distribution, a build without
//! the data-streams module) reads `/_data_stream` as an index name (400 `Invalid index name
//! [_data_stream]`) or knows only `POST` there (405).

use actix_web::http::StatusCode;
use serde::Serialize;
use serde_json::Value;

use crate::error::Error;

/// One backing index of a data stream, oldest first as the cluster lists them; the last is the
/// write index.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct BackingIndex {
    pub(crate) name: String,
    pub(crate) uuid: Option<String>,
    /// The index lifecycle policy of this index (Elasticsearch), when it has one.
    pub(crate) ilm_policy: Option<String>,
}

/// One data stream in the list.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct DataStreamRow {
    pub(crate) name: String,
    /// How many times it was created or rolled over (the newest backing index's number).
    #[cfg_attr(test, ts(type = "number | null"))]
    pub(crate) generation: Option<u64>,
    pub(crate) backing_indices: Vec<BackingIndex>,
    /// The index template it was created from.
    pub(crate) template: Option<String>,
    /// `green`, `yellow` or `red`: the worst health of its backing indices.
    pub(crate) health: Option<String>,
    pub(crate) timestamp_field: Option<String>,
    /// The lifecycle policy the cluster reports for the stream (Elasticsearch's `ilm_policy`;
    /// OpenSearch attaches ISM policies to indices and reports none here).
    pub(crate) ilm_policy: Option<String>,
    pub(crate) hidden: bool,
    /// From `_data_stream/_stats`; `null` when the cluster did not give them.
    #[cfg_attr(test, ts(type = "number | null"))]
    pub(crate) store_size_bytes: Option<u64>,
    /// The newest `@timestamp` indexed, in milliseconds since the epoch (`null`: none yet).
    #[cfg_attr(test, ts(type = "number | null"))]
    pub(crate) maximum_timestamp: Option<u64>,
}

/// `GET /data_streams`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct DataStreamList {
    pub(crate) data_streams: Vec<DataStreamRow>,
}

/// `PUT /data_streams/{name}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct DataStreamCreated {
    pub(crate) name: String,
    pub(crate) acknowledged: bool,
}

/// `POST /data_streams/{name}/_rollover`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct RolledOver {
    pub(crate) name: String,
    pub(crate) old_index: Option<String>,
    pub(crate) new_index: Option<String>,
    pub(crate) rolled_over: bool,
}

/// `DELETE /data_streams/{name}?confirm={name}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct DataStreamDeleted {
    pub(crate) name: String,
    pub(crate) acknowledged: bool,
}

fn text(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

/// The rows of a `GET /_data_stream` answer, with the sizes of a `_data_stream/_stats` answer
/// when there is one, sorted by name.
pub(crate) fn rows(answer: &Value, stats: Option<&Value>) -> Result<Vec<DataStreamRow>, Error> {
    let streams = answer["data_streams"].as_array().ok_or_else(|| {
        Error::upstream("The _data_stream answer has no data_streams list.".to_owned())
    })?;
    let stats_of = |name: &str| {
        stats
            .and_then(|stats| stats["data_streams"].as_array())
            .into_iter()
            .flatten()
            .find(|entry| entry["data_stream"] == name)
    };
    let mut rows: Vec<DataStreamRow> = streams
        .iter()
        .filter_map(|stream| {
            let name = stream["name"].as_str()?;
            let stats = stats_of(name);
            Some(DataStreamRow {
                name: name.to_owned(),
                generation: stream["generation"].as_u64(),
                backing_indices: stream["indices"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|index| {
                        Some(BackingIndex {
                            name: text(&index["index_name"])?,
                            uuid: text(&index["index_uuid"]),
                            ilm_policy: text(&index["ilm_policy"]),
                        })
                    })
                    .collect(),
                template: text(&stream["template"]),
                health: stream["status"].as_str().map(str::to_lowercase),
                timestamp_field: text(&stream["timestamp_field"]["name"]),
                ilm_policy: text(&stream["ilm_policy"]),
                hidden: stream["hidden"].as_bool().unwrap_or(false),
                store_size_bytes: stats.and_then(|s| s["store_size_bytes"].as_u64()),
                maximum_timestamp: stats
                    .and_then(|s| s["maximum_timestamp"].as_u64())
                    .filter(|&millis| millis > 0),
            })
        })
        .collect();
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(rows)
}

/// The answer of a `POST /<name>/_rollover`.
pub(crate) fn rolled_over(name: &str, answer: &Value) -> RolledOver {
    RolledOver {
        name: name.to_owned(),
        old_index: text(&answer["old_index"]),
        new_index: text(&answer["new_index"]),
        rolled_over: answer["rolled_over"].as_bool().unwrap_or(false),
    }
}

/// What the console answers for a cluster without the data stream API.
pub(crate) const NO_API: &str = "This cluster has no data stream API (_data_stream): data \
     streams need OpenSearch 1.0 or later, or Elasticsearch 7.9 or later with its data-streams \
     module (the default distribution; not the OSS one).";

/// A cluster's refusal of a data stream call, in words a newcomer can act on: no data stream
/// API at all, no index template with `data_stream` for the name, no such data stream; any
/// other refusal (or failure) as it was.
pub(crate) fn explained(error: Error, name: Option<&str>) -> Error {
    let Error::RejectedByCluster { status, message } = error else {
        return error;
    };
    let rejected =
        |status: StatusCode, message: String| Error::RejectedByCluster { status, message };
    if status == StatusCode::METHOD_NOT_ALLOWED || message.contains("[_data_stream]") {
        return rejected(StatusCode::BAD_REQUEST, format!("{NO_API} ({message})"));
    }
    let Some(name) = name else {
        return rejected(status, message);
    };
    if message.contains("no matching index template found")
        || message.contains("has no data stream template")
    {
        return rejected(
            StatusCode::BAD_REQUEST,
            format!(
                "No index template with a data_stream matches \"{name}\": first create an index \
                 template whose index_patterns match the name and that has \"data_stream\": {{}} \
                 (Templates), then create the data stream. {message}"
            ),
        );
    }
    if status == StatusCode::NOT_FOUND {
        return rejected(
            status,
            format!("The cluster has no data stream named \"{name}\"."),
        );
    }
    rejected(status, message)
}

#[cfg(test)]
mod tests;
