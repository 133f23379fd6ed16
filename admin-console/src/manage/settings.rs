//! Management: cluster settings: the persistent and transient settings as flat keys
//! (with the defaults on request) and editing one setting. Routes under
//! `/api/clusters/{cluster_id}`; the scope's guard authorises and audits every call
//! (`access::action::view_needs`: reading is viewer, `PUT /settings` admin).
//!
//! Cluster calls (Elasticsearch 7/8 and OpenSearch 1/2/3 alike): `GET
//! _cluster/settings?flat_settings=true[&include_defaults=true]` answers `{"persistent": {k: v},
//! "transient": {k: v}, "defaults": {k: v}}`; `PUT _cluster/settings` with `{"<scope>": {"<key>":
//! <value>}}` sets one, `null` resets it to its default.

use actix_web::{HttpResponse, web};
use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::cluster::client::ClusterApi;
use crate::error::Error;
use crate::handlers::{RequestedCluster, fresh};
use crate::manage::names::SettingKey;

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/settings", web::get().to(get))
        .route("/settings", web::put().to(put));
}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
        ClusterSettings::decl,
        SettingScope::decl,
        PutSettingBody::decl,
    ]
};

/// `GET /settings`: each scope as a flat `key → value` map (values as the cluster gives them:
/// strings, or lists of strings for list settings).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ClusterSettings {
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub persistent: Map<String, Value>,
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub transient: Map<String, Value>,
    /// Only when asked (`includeDefaults=true`): every other setting at its default.
    #[cfg_attr(test, ts(type = "Record<string, unknown> | null"))]
    pub defaults: Option<Map<String, Value>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum SettingScope {
    /// Kept across full cluster restarts.
    Persistent,
    /// Lost on a full cluster restart (deprecated by Elasticsearch, still accepted).
    Transient,
}

impl SettingScope {
    fn as_str(self) -> &'static str {
        match self {
            Self::Persistent => "persistent",
            Self::Transient => "transient",
        }
    }
}

/// `PUT /settings`: one setting; `value` null resets it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PutSettingBody {
    pub scope: SettingScope,
    pub key: String,
    #[cfg_attr(
        test,
        ts(type = "string | number | boolean | null | Array<string | number | boolean>")
    )]
    pub value: Value,
}

/// The setting the allocation lock (`PUT /allocation`) writes: its values are checked here too,
/// so both paths agree on what the lock can read back.
const ALLOCATION_SETTING: &str = "cluster.routing.allocation.enable";
const ALLOCATION_VALUES: &[&str] = &["all", "primaries", "new_primaries", "none"];

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GetParams {
    include_defaults: Option<String>,
}

fn flat(answer: &Value, scope: &str) -> Map<String, Value> {
    answer[scope].as_object().cloned().unwrap_or_default()
}

pub(crate) async fn read_settings(
    cluster: &impl ClusterApi,
    include_defaults: bool,
) -> Result<ClusterSettings, Error> {
    let path = if include_defaults {
        "_cluster/settings?flat_settings=true&include_defaults=true"
    } else {
        "_cluster/settings?flat_settings=true"
    };
    let answer = cluster.call(Method::GET, path, None).await?;
    Ok(ClusterSettings {
        persistent: flat(&answer, "persistent"),
        transient: flat(&answer, "transient"),
        defaults: include_defaults.then(|| flat(&answer, "defaults")),
    })
}

/// A value the cluster accepts for one setting: a string, number or boolean, a list of those
/// (list settings), or null (reset). Objects are groups of settings: set each key instead.
pub(crate) fn check_value(key: &str, value: &Value) -> Result<(), Error> {
    let scalar =
        |value: &Value| matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_));
    let fits = match value {
        Value::Null => true,
        Value::Array(items) => items.iter().all(scalar),
        Value::Object(_) => false,
        other => scalar(other),
    };
    if !fits {
        return Err(Error::BadRequest(format!(
            "The value of \"{key}\" must be a string, a number, a boolean, a list of those, or \
             null to reset it; an object is a group of settings: set each key on its own."
        )));
    }
    if key == ALLOCATION_SETTING
        && !value.is_null()
        && !value
            .as_str()
            .is_some_and(|text| ALLOCATION_VALUES.contains(&text))
    {
        return Err(Error::BadRequest(format!(
            "The value of \"{ALLOCATION_SETTING}\" must be one of {} (or null to reset it).",
            ALLOCATION_VALUES.join(", ")
        )));
    }
    Ok(())
}

/// The body of the cluster call: `{"<scope>": {"<key>": <value>}}` with the key kept flat.
pub(crate) fn update_body(body: &PutSettingBody) -> Result<Value, Error> {
    let key = SettingKey::parse(body.key.trim())?;
    let key = key.as_str();
    check_value(key, &body.value)?;
    let mut setting = Map::new();
    setting.insert(key.to_owned(), body.value.clone());
    Ok(json!({ body.scope.as_str(): setting }))
}

/// Sets (or resets) one setting, then answers the settings as they now are (without defaults).
pub(crate) async fn put_setting(
    cluster: &impl ClusterApi,
    body: &PutSettingBody,
) -> Result<ClusterSettings, Error> {
    let update = update_body(body)?;
    cluster
        .call(
            Method::PUT,
            "_cluster/settings?flat_settings=true",
            Some(&update),
        )
        .await?;
    read_settings(cluster, false).await
}

async fn get(
    cluster: RequestedCluster,
    params: web::Query<GetParams>,
) -> Result<HttpResponse, Error> {
    let include_defaults = match params.include_defaults.as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(Error::BadRequest(format!(
                "includeDefaults must be true or false, not \"{}\".",
                other.escape_debug()
            )));
        }
    };
    Ok(fresh(
        &read_settings(cluster.api(), include_defaults).await?,
    ))
}

async fn put(
    cluster: RequestedCluster,
    body: web::Json<PutSettingBody>,
) -> Result<HttpResponse, Error> {
    Ok(fresh(&put_setting(cluster.api(), &body).await?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(scope: SettingScope, key: &str, value: Value) -> PutSettingBody {
        PutSettingBody {
            scope,
            key: key.to_owned(),
            value,
        }
    }

    #[test]
    fn one_setting_becomes_one_flat_key_in_its_scope() {
        assert_eq!(
            update_body(&body(
                SettingScope::Persistent,
                "cluster.max_shards_per_node",
                json!(2000)
            ))
            .unwrap(),
            json!({"persistent": {"cluster.max_shards_per_node": 2000}})
        );
        assert_eq!(
            update_body(&body(
                SettingScope::Transient,
                " indices.recovery.max_bytes_per_sec ",
                Value::Null
            ))
            .unwrap(),
            json!({"transient": {"indices.recovery.max_bytes_per_sec": null}})
        );
        assert_eq!(
            update_body(&body(
                SettingScope::Persistent,
                "cluster.routing.allocation.awareness.attributes",
                json!(["zone", "rack"])
            ))
            .unwrap()["persistent"]["cluster.routing.allocation.awareness.attributes"],
            json!(["zone", "rack"])
        );
    }

    #[test]
    fn values_are_scalars_lists_of_scalars_or_null() {
        for good in [
            json!("1gb"),
            json!(5),
            json!(true),
            json!(null),
            json!(["a", 1]),
        ] {
            assert!(check_value("a.b", &good).is_ok(), "{good}");
        }
        for bad in [json!({"x": 1}), json!([{"x": 1}]), json!([[1]])] {
            let message = check_value("a.b", &bad).unwrap_err().to_string();
            assert!(message.contains("set each key"), "{bad}: {message}");
        }
    }

    #[test]
    fn the_allocation_setting_takes_the_values_the_lock_reads() {
        for good in ["all", "primaries", "new_primaries", "none"] {
            assert!(check_value(ALLOCATION_SETTING, &json!(good)).is_ok());
        }
        assert!(check_value(ALLOCATION_SETTING, &Value::Null).is_ok());
        for bad in [json!("everything"), json!(1), json!(["all"])] {
            let message = check_value(ALLOCATION_SETTING, &bad)
                .unwrap_err()
                .to_string();
            assert!(
                message.contains("all, primaries, new_primaries, none"),
                "{message}"
            );
        }
    }

    #[test]
    fn scopes_are_read_flat_and_defaults_only_when_asked() {
        let answer = json!({
            "persistent": {"cluster.routing.allocation.enable": "primaries"},
            "transient": {},
            "defaults": {"action.auto_create_index": "true"}
        });
        assert_eq!(
            flat(&answer, "persistent")["cluster.routing.allocation.enable"],
            "primaries"
        );
        assert!(flat(&answer, "transient").is_empty());
        assert!(flat(&json!({}), "defaults").is_empty());
    }
}
