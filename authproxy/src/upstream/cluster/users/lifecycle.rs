//! The calls of the lifecycle sweep: list the users this proxy created, disable one, delete one,
//! take roles added by hand away from one. Each change looks the user up first and refuses one
//! without the `managed_by` mark, so a user an operator made meanwhile under the same name is
//! never touched.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::{
    ClusterError, ClusterUser, Existing, MANAGED_BY_KEY, MANAGED_BY_VALUE, MANAGED_SOURCE_KEY,
    SearchClusterClient, UPSERT_ATTEMPTS, admin_call_outcome,
};
use crate::config::SearchFlavor;

/// The pause before a call the OpenSearch security API refused with 409 is made again.
const CONFLICT_PAUSE: Duration = Duration::from_millis(100);

impl SearchClusterClient {
    pub(super) async fn list_managed(&self) -> Result<Vec<ClusterUser>, ClusterError> {
        let body = self.get_users(&[], "a user listing").await?;
        Ok(managed_users(self.flavor, &body))
    }

    /// `GET` of the user API at `tail` (no segment: all users), as JSON.
    async fn get_users(&self, tail: &[&str], call: &str) -> Result<Value, ClusterError> {
        let response = self
            .request(Method::GET, self.users_url(tail))
            .send()
            .await
            .map_err(|error| ClusterError::from_transport(&error))?;
        admin_call_outcome(response.status(), "the user API", call)?;
        response.json().await.map_err(|_| {
            ClusterError::BadResponse("the user API answered with invalid JSON".to_owned())
        })
    }

    /// `_disable` of `user` when it is enabled now: `false` when it is disabled already or gone.
    pub(super) async fn disable(&self, user: &ClusterUser) -> Result<bool, ClusterError> {
        if self.flavor == SearchFlavor::Opensearch {
            return Err(ClusterError::BadResponse(
                "OpenSearch internal users cannot be disabled".to_owned(),
            ));
        }
        let name = user.name.as_str();
        match self.existing_user(name).await? {
            Existing::Managed { source } => same_source(user, source)?,
            Existing::Disabled { .. } | Existing::Absent => return Ok(false),
            Existing::Foreign => return Err(ClusterError::ForeignUser(name.to_owned())),
        }
        let response = self
            .request(Method::PUT, self.users_url(&[name, "_disable"]))
            .send()
            .await
            .map_err(|error| ClusterError::from_transport(&error))?;
        admin_call_outcome(response.status(), "the user API", "a disable")?;
        Ok(true)
    }

    pub(super) async fn delete(
        &self,
        user: &ClusterUser,
        disabled_by_sweep: bool,
    ) -> Result<(), ClusterError> {
        let name = user.name.as_str();
        for _ in 0..UPSERT_ATTEMPTS {
            match self.existing_user(name).await? {
                Existing::Managed { source } => same_source(user, source)?,
                Existing::Disabled { source } if disabled_by_sweep => same_source(user, source)?,
                // An operator's lock-out: the next sign-in would make the user anew, enabled.
                Existing::Disabled { .. } => {
                    return Err(ClusterError::DisabledUser(name.to_owned()));
                }
                Existing::Absent => return Ok(()),
                Existing::Foreign => return Err(ClusterError::ForeignUser(name.to_owned())),
            }
            let response = self
                .request(Method::DELETE, self.user_url(name))
                .send()
                .await
                .map_err(|error| ClusterError::from_transport(&error))?;
            match response.status() {
                StatusCode::NOT_FOUND => return Ok(()),
                // OpenSearch: another change of the security configuration came first.
                StatusCode::CONFLICT => tokio::time::sleep(CONFLICT_PAUSE).await,
                status => return admin_call_outcome(status, "the user API", "a delete"),
            }
        }
        Err(ClusterError::BadResponse(format!(
            "the user API answered 409 Conflict to {UPSERT_ATTEMPTS} deletes in a row"
        )))
    }

    /// Takes `remove` away from the user's roles as the cluster has them now (a role an
    /// operator cut meanwhile stays cut; none is ever added). Elasticsearch: the user as it is,
    /// with the remaining roles, `PUT` without a password (which keeps it). OpenSearch: a JSON
    /// patch of `opendistro_security_roles` alone.
    pub(super) async fn remove_roles(
        &self,
        swept: &ClusterUser,
        remove: &[String],
    ) -> Result<(), ClusterError> {
        let name = swept.name.as_str();
        for _ in 0..UPSERT_ATTEMPTS {
            let body = self.get_users(&[name], "a user look-up").await?;
            let Some(listed) = managed_users(self.flavor, &body)
                .into_iter()
                .find(|user| user.name == name)
            else {
                return Err(ClusterError::ForeignUser(name.to_owned()));
            };
            same_source(swept, listed.source.clone())?;
            let Some(user) = body.get(name) else {
                return Err(ClusterError::ForeignUser(name.to_owned()));
            };
            let roles: Vec<&String> = listed
                .roles
                .iter()
                .filter(|role| !remove.contains(role))
                .collect();
            if roles.len() == listed.roles.len() {
                return Ok(());
            }
            let request = match self.flavor {
                SearchFlavor::Elasticsearch => {
                    let mut update = json!({"roles": roles});
                    for key in ["full_name", "email", "metadata", "enabled"] {
                        if let Some(value) = user.get(key) {
                            update[key] = value.clone();
                        }
                    }
                    self.request(Method::PUT, self.user_url(name)).json(&update)
                }
                SearchFlavor::Opensearch => self.request(Method::PATCH, self.user_url(name)).json(
                    &json!([{"op": "replace", "path": "/opendistro_security_roles", "value": roles}]),
                ),
            };
            let response = request
                .send()
                .await
                .map_err(|error| ClusterError::from_transport(&error))?;
            match response.status() {
                StatusCode::CONFLICT => tokio::time::sleep(CONFLICT_PAUSE).await,
                status => return admin_call_outcome(status, "the user API", "a role repair"),
            }
        }
        Err(ClusterError::BadResponse(format!(
            "the user API answered 409 Conflict to {UPSERT_ATTEMPTS} role repairs in a row"
        )))
    }
}

/// Refuses a user whose `managed_source` is now `found`, not the one it was listed with (made
/// again meanwhile, by another kind of sign-in or by hand).
fn same_source(listed: &ClusterUser, found: Option<String>) -> Result<(), ClusterError> {
    if found == listed.source {
        return Ok(());
    }
    Err(ClusterError::OtherSource {
        name: listed.name.clone(),
        owner: "other",
    })
}

/// The users of a listing (an object by user name) that carry the `managed_by` mark; anything
/// else in the answer, of any shape, is left out.
fn managed_users(flavor: SearchFlavor, body: &Value) -> Vec<ClusterUser> {
    let (marks_key, roles_key) = match flavor {
        SearchFlavor::Elasticsearch => ("metadata", "roles"),
        SearchFlavor::Opensearch => ("attributes", "opendistro_security_roles"),
    };
    let Some(users) = body.as_object() else {
        return Vec::new();
    };
    users
        .iter()
        .filter_map(|(name, user)| {
            let marks = user.get(marks_key)?;
            let mark = |key: &str| marks.get(key).and_then(Value::as_str);
            (mark(MANAGED_BY_KEY) == Some(MANAGED_BY_VALUE)).then(|| ClusterUser {
                name: name.clone(),
                source: mark(MANAGED_SOURCE_KEY).map(str::to_owned),
                enabled: user.get("enabled") != Some(&Value::Bool(false)),
                roles: user
                    .get(roles_key)
                    .and_then(Value::as_array)
                    .map(|roles| {
                        roles
                            .iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_users_with_the_mark_are_listed() {
        let body = json!({
            "ann": {"roles": ["r"], "enabled": false,
                    "metadata": {"managed_by": "authproxy", "managed_source": "basic"}},
            "eve": {"roles": ["superuser"], "metadata": {"managed_by": "someone"}},
            "elastic": {"roles": ["superuser"], "metadata": {"_reserved": true}},
            "odd": "not an object",
            "old": {"roles": 3, "metadata": {"managed_by": "authproxy"}}
        });
        let mut users = managed_users(SearchFlavor::Elasticsearch, &body);
        users.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(
            users,
            [
                ClusterUser {
                    name: "ann".to_owned(),
                    source: Some("basic".to_owned()),
                    enabled: false,
                    roles: vec!["r".to_owned()],
                },
                ClusterUser {
                    name: "old".to_owned(),
                    source: None,
                    enabled: true,
                    roles: Vec::new(),
                },
            ]
        );
        let opensearch = json!({
            "bob": {"opendistro_security_roles": ["readall"],
                    "attributes": {"managed_by": "authproxy", "managed_source": "oidc"}},
            "admin": {"attributes": {}}
        });
        let users = managed_users(SearchFlavor::Opensearch, &opensearch);
        assert_eq!(users.len(), 1);
        assert_eq!(users[0].roles, ["readall"]);
        assert!(users[0].enabled);
        assert!(managed_users(SearchFlavor::Opensearch, &json!([1, 2])).is_empty());
    }
}
