//! The translation both ways for each dialect, hash stripping, reserved entries and the
//! answers of a cluster without security, on answers shaped as the real clusters give them.

use actix_web::http::StatusCode;
use serde_json::{Value, json};

use super::dialects::*;
use super::model::*;
use crate::cluster::dialect::Distribution::{Elasticsearch, OpenSearch};
use crate::error::Error;

fn user_change(body: Value) -> UserChange {
    serde_json::from_value(body).unwrap()
}

#[test]
fn secrets_are_stripped_from_each_entry_and_nothing_else() {
    let listed = entries(json!({
        "alice": {"hash": "$2y$12$abc", "password": "p", "password_hash": "h",
                  "attributes": {"password": "rotated monthly", "hash": "git sha"},
                  "nested": [{"password_hash": "kept", "keep": true}]},
        "bob": {"hash": "$2y$12$xyz", "backend_roles": []}
    }))
    .unwrap();
    assert_eq!(
        listed[0].1,
        json!({"attributes": {"password": "rotated monthly", "hash": "git sha"},
               "nested": [{"password_hash": "kept", "keep": true}]}),
        "only the entry's own secret fields go"
    );
    assert_eq!(listed[1].1, json!({"backend_roles": []}));
    assert!(entries(json!(["not", "an", "object"])).is_err());
    // The attribute named password is the user's data: shown, and kept by an edit.
    let user = user(OpenSearch, "alice", &listed[0].1);
    assert_eq!(user.attributes["password"], "rotated monthly");
    let shown = serde_json::to_string(&user).unwrap();
    assert!(!shown.contains("$2y$"), "{shown}");
    let current = json!({"username": "bob", "roles": [], "enabled": true,
        "metadata": {"hash": {"algorithm": "sha"}, "password": "in vault"}});
    let user = self::user(Elasticsearch, "bob", &current);
    assert_eq!(user.attributes["password"], "in vault");
    let change = user_change(json!({"roles": [], "attributes": user.attributes}));
    let body = user_body(Elasticsearch, &change, Some(&current)).unwrap();
    assert_eq!(
        body["metadata"],
        json!({"hash": {"algorithm": "sha"}, "password": "in vault"})
    );
    assert!(body.get("password").is_none(), "{body}");
}

#[test]
fn opensearch_internal_users_read_into_the_neutral_user() {
    let entry = json!({"hash": "", "reserved": false, "hidden": false, "static": false,
        "backend_roles": ["ops"], "attributes": {"team": "search"},
        "opendistro_security_roles": ["readall"], "description": "x"});
    let user = user(OpenSearch, "alice", &entry);
    assert_eq!(user.roles, ["readall"]);
    assert_eq!(user.backend_roles, ["ops"]);
    assert_eq!(
        user.attributes.get("team").map(String::as_str),
        Some("search")
    );
    assert!(user.enabled && !user.reserved);
    assert!(!serde_json::to_string(&user).unwrap().contains("hash"));
    for flag in ["reserved", "static", "hidden"] {
        assert!(is_reserved(OpenSearch, &json!({flag: true})), "{flag}");
    }
}

#[test]
fn elasticsearch_native_users_read_into_the_neutral_user() {
    let entry = json!({"username": "elastic", "roles": ["superuser"], "full_name": null,
        "email": null, "metadata": {"_reserved": true, "team": "db", "n": 3}, "enabled": true});
    let user = user(Elasticsearch, "elastic", &entry);
    assert!(user.reserved);
    assert_eq!(user.roles, ["superuser"]);
    assert_eq!(user.full_name, None);
    assert_eq!(
        user.attributes.len(),
        1,
        "text metadata only, not _reserved"
    );
    let disabled = json!({"roles": [], "enabled": false, "metadata": {}});
    assert!(!self::user(Elasticsearch, "x", &disabled).enabled);
}

#[test]
fn a_user_write_keeps_what_the_console_does_not_show_and_never_a_hash() {
    let current = json!({"hash": "$2y$12$old", "reserved": false, "static": false,
        "hidden": false, "backend_roles": [], "attributes": {},
        "opendistro_security_roles": [], "description": "kept"});
    let change = user_change(json!({"roles": ["readall"], "backendRoles": ["ops"],
        "attributes": {"team": "search"}}));
    let body = user_body(OpenSearch, &change, Some(&current)).unwrap();
    assert_eq!(
        body,
        json!({"opendistro_security_roles": ["readall"], "backend_roles": ["ops"],
               "attributes": {"team": "search"}, "description": "kept"}),
        "no hash: the cluster keeps the user's password when none is given"
    );
    let with_password = user_change(json!({"password": "S3cret-Passw0rd!"}));
    let body = user_body(OpenSearch, &with_password, None).unwrap();
    assert_eq!(body["password"], "S3cret-Passw0rd!");
}

#[test]
fn an_elasticsearch_user_write_has_its_fields_and_keeps_other_metadata() {
    let current = json!({"username": "bob", "roles": ["x"], "metadata": {"n": 3, "old": "a"},
        "enabled": true});
    let change = user_change(json!({"roles": ["viewer"], "fullName": "Bob B",
        "email": "b@example.com", "enabled": false, "attributes": {"team": "db"}}));
    let body = user_body(Elasticsearch, &change, Some(&current)).unwrap();
    assert_eq!(
        body,
        json!({"roles": ["viewer"], "full_name": "Bob B", "email": "b@example.com",
               "enabled": false, "metadata": {"n": 3, "team": "db"}})
    );
    assert!(body.get("username").is_none() && body.get("password").is_none());
}

#[test]
fn user_writes_refuse_what_the_dialect_cannot_hold() {
    let new_without_password = user_change(json!({"roles": ["a"]}));
    for distribution in [OpenSearch, Elasticsearch] {
        let error = user_body(distribution, &new_without_password, None).unwrap_err();
        assert!(error.to_string().contains("needs a password"), "{error}");
    }
    let current = json!({});
    for (distribution, body, why) in [
        (OpenSearch, json!({"email": "a@b"}), "no fullName or email"),
        (OpenSearch, json!({"enabled": false}), "cannot be disabled"),
        (
            Elasticsearch,
            json!({"backendRoles": ["g"]}),
            "no backend roles",
        ),
    ] {
        let error = user_body(distribution, &user_change(body), Some(&current)).unwrap_err();
        assert!(error.to_string().contains(why), "{error}");
    }
}

#[test]
fn a_password_is_write_only_and_never_shown() {
    let change = user_change(json!({"password": "Hunter2-Hunter2"}));
    assert!(!format!("{change:?}").contains("Hunter2"));
    for bad in [json!({"password": ""}), json!({"password": "a\u{0}b"})] {
        let error = serde_json::from_value::<UserChange>(bad).unwrap_err();
        assert!(error.to_string().contains("password"), "{error}");
    }
    let hash = user_change(json!({"hash": "$2y$12$x"}));
    let refusal = refuse_unknown(SecurityKind::Users, &hash.unknown).unwrap_err();
    assert_eq!(refusal.to_string(), "A user has no field \"hash\".");
}

#[test]
fn roles_translate_both_ways_and_keep_document_level_security() {
    let opensearch = json!({"reserved": false, "cluster_permissions": ["cluster_monitor"],
        "index_permissions": [{"index_patterns": ["logs-*"], "allowed_actions": ["read"],
            "dls": "{\"term\":{\"team\":\"a\"}}", "fls": [], "masked_fields": []}],
        "tenant_permissions": []});
    let role = role(OpenSearch, "logs_reader", &opensearch);
    assert_eq!(role.cluster_permissions, ["cluster_monitor"]);
    assert_eq!(role.index_permissions[0].index_patterns, ["logs-*"]);
    assert_eq!(role.index_permissions[0].actions, ["read"]);
    let change: RoleChange = serde_json::from_value(json!({
        "clusterPermissions": ["cluster_composite_ops_ro"],
        "indexPermissions": [{"indexPatterns": ["logs-*"], "actions": ["read", "search"]},
                             {"indexPatterns": ["new-*"], "actions": ["read"]}]}))
    .unwrap();
    let body = role_body(OpenSearch, &change, Some(&opensearch));
    assert_eq!(
        body["index_permissions"][0]["dls"],
        opensearch["index_permissions"][0]["dls"]
    );
    assert_eq!(
        body["index_permissions"][0]["allowed_actions"],
        json!(["read", "search"])
    );
    assert_eq!(
        body["index_permissions"][1],
        json!({"index_patterns": ["new-*"], "allowed_actions": ["read"]})
    );
    assert_eq!(body["tenant_permissions"], json!([]));
    assert!(body.get("reserved").is_none());

    let elasticsearch = json!({"cluster": ["monitor"], "indices": [{"names": ["logs-*"],
        "privileges": ["read"], "allow_restricted_indices": false}], "applications": [],
        "run_as": [], "metadata": {}, "transient_metadata": {"enabled": true}});
    let role = self::role(Elasticsearch, "r", &elasticsearch);
    assert_eq!(role.cluster_permissions, ["monitor"]);
    assert_eq!(role.index_permissions[0].actions, ["read"]);
    let body = role_body(Elasticsearch, &change, Some(&elasticsearch));
    assert_eq!(body["cluster"], json!(["cluster_composite_ops_ro"]));
    assert_eq!(body["indices"][0]["allow_restricted_indices"], false);
    assert_eq!(
        body["indices"][1],
        json!({"names": ["new-*"], "privileges": ["read"]})
    );
    assert!(body.get("transient_metadata").is_none());
    assert!(is_reserved(
        Elasticsearch,
        &json!({"metadata": {"_reserved": true}})
    ));
}

#[test]
fn role_mappings_translate_both_ways() {
    let opensearch = json!({"users": ["alice"], "backend_roles": ["ops"], "hosts": [],
        "and_backend_roles": [], "reserved": false});
    let mapping = role_mapping(OpenSearch, "readall", &opensearch);
    assert_eq!(mapping.roles, ["readall"]);
    assert_eq!(mapping.users, ["alice"]);
    assert!(!mapping.other_rules);
    let change: RoleMappingChange =
        serde_json::from_value(json!({"users": ["bob"], "backendRoles": []})).unwrap();
    let body = role_mapping_body(OpenSearch, "readall", &change, Some(&opensearch)).unwrap();
    assert_eq!(
        body,
        json!({"users": ["bob"], "backend_roles": [], "hosts": [], "and_backend_roles": []})
    );
    let other: RoleMappingChange = serde_json::from_value(json!({"roles": ["x"]})).unwrap();
    assert!(role_mapping_body(OpenSearch, "readall", &other, None).is_err());

    let elasticsearch = json!({"enabled": true, "roles": ["viewer"], "rules": {"any": [
        {"field": {"username": ["alice", "carol"]}}, {"field": {"groups": "cn=ops"}}]},
        "metadata": {}});
    let mapping = role_mapping(Elasticsearch, "ops", &elasticsearch);
    assert_eq!(mapping.users, ["alice", "carol"]);
    assert_eq!(mapping.backend_roles, ["cn=ops"]);
    assert!(!mapping.other_rules);
    let realm = json!({"roles": ["r"], "rules": {"all": [{"field": {"realm.name": "ldap1"}}]}});
    assert!(role_mapping(Elasticsearch, "x", &realm).other_rules);
    let change: RoleMappingChange = serde_json::from_value(
        json!({"roles": ["viewer"], "users": ["bob"], "backendRoles": ["ops"]}),
    )
    .unwrap();
    let body = role_mapping_body(Elasticsearch, "ops", &change, None).unwrap();
    assert_eq!(
        body,
        json!({"roles": ["viewer"], "enabled": true, "rules": {"any": [
            {"field": {"username": ["bob"]}}, {"field": {"groups": ["ops"]}}]}})
    );
    let nobody: RoleMappingChange = serde_json::from_value(json!({"roles": ["v"]})).unwrap();
    assert!(role_mapping_body(Elasticsearch, "ops", &nobody, None).is_err());
}

#[test]
fn a_cluster_without_security_is_said_to_have_none() {
    for (distribution, error) in [
        (
            OpenSearch,
            Error::RejectedByCluster {
                status: StatusCode::BAD_REQUEST,
                message: "no handler found for uri [/_plugins/_security/api/internalusers] \
                          and method [GET]"
                    .to_owned(),
            },
        ),
        (
            Elasticsearch,
            Error::upstream(
                "The cluster answered 500: Security must be explicitly enabled when using a \
                 [basic] license."
                    .to_owned(),
            ),
        ),
        (
            Elasticsearch,
            Error::RejectedByCluster {
                status: StatusCode::BAD_REQUEST,
                message: "Invalid index name [_security], must not start with '_'.".to_owned(),
            },
        ),
        (
            Elasticsearch,
            Error::RejectedByCluster {
                status: StatusCode::NOT_FOUND,
                message: "The cluster refused the call (404 Not Found): no such index [_security]"
                    .to_owned(),
            },
        ),
    ] {
        let explained = explained(
            error,
            distribution,
            SecurityKind::Users,
            SecurityCall::Entry("x"),
        );
        assert!(
            matches!(&explained, Error::NotFound(message) if message.starts_with("Security is not enabled")),
            "{explained:?}"
        );
    }
    let missing = Error::RejectedByCluster {
        status: StatusCode::NOT_FOUND,
        message: "Resource 'x' not found.".to_owned(),
    };
    let explained = explained(
        missing,
        OpenSearch,
        SecurityKind::Roles,
        SecurityCall::Entry("x"),
    );
    assert_eq!(
        explained.to_string(),
        "The cluster has no role named \"x\"."
    );
    let refused = Error::RejectedByCluster {
        status: StatusCode::BAD_REQUEST,
        message: "Weak password".to_owned(),
    };
    assert!(matches!(
        super::model::explained(
            refused,
            OpenSearch,
            SecurityKind::Users,
            SecurityCall::Write("a")
        ),
        Error::RejectedByCluster { .. }
    ));
}

#[test]
fn kinds_have_their_paths_and_reserved_entries_a_clear_refusal() {
    assert_eq!(
        SecurityKind::parse("role_mappings")
            .unwrap()
            .api_path(OpenSearch),
        "_plugins/_security/api/rolesmapping"
    );
    assert_eq!(
        SecurityKind::parse("users")
            .unwrap()
            .api_path(Elasticsearch),
        "_security/user"
    );
    for segment in ["users", "roles", "role_mappings"] {
        assert_eq!(SecurityKind::parse(segment).unwrap().segment(), segment);
    }
    assert!(SecurityKind::parse("tenants").is_err());
    let refusal = reserved_refusal(SecurityKind::Users, "admin");
    assert!(matches!(refusal, Error::Conflict(_)));
    assert!(
        refusal.to_string().contains("\"admin\" is reserved"),
        "{refusal}"
    );
}

#[test]
fn an_omitted_enabled_keeps_the_current_value() {
    let disabled_user = json!({"username": "bob", "roles": ["x"], "enabled": false,
        "metadata": {}});
    let edit = user_change(json!({"roles": ["viewer"]}));
    let body = user_body(Elasticsearch, &edit, Some(&disabled_user)).unwrap();
    assert_eq!(
        body["enabled"], false,
        "an edit without enabled keeps it disabled"
    );
    let body = user_body(
        Elasticsearch,
        &user_change(json!({"enabled": true})),
        Some(&disabled_user),
    )
    .unwrap();
    assert_eq!(body["enabled"], true, "an explicit enabled is sent");
    let new = user_change(json!({"password": "S3cret-Passw0rd!"}));
    assert_eq!(
        user_body(Elasticsearch, &new, None).unwrap()["enabled"],
        true
    );

    let disabled_mapping = json!({"enabled": false, "roles": ["viewer"],
        "rules": {"any": [{"field": {"username": ["alice"]}}]}, "metadata": {}});
    let edit: RoleMappingChange =
        serde_json::from_value(json!({"roles": ["viewer"], "users": ["bob"]})).unwrap();
    let body = role_mapping_body(Elasticsearch, "ops", &edit, Some(&disabled_mapping)).unwrap();
    assert_eq!(
        body["enabled"], false,
        "an edit without enabled keeps it disabled"
    );
    let body = role_mapping_body(Elasticsearch, "ops", &edit, None).unwrap();
    assert_eq!(body["enabled"], true, "a new mapping is enabled");
}

#[test]
fn a_404_to_a_write_is_not_read_as_no_security() {
    let refused = Error::RejectedByCluster {
        status: StatusCode::NOT_FOUND,
        message: "The cluster refused the call (404 Not Found): Role 'sec-x' is not available \
                  for role-mapping."
            .to_owned(),
    };
    let explained = explained(
        refused,
        OpenSearch,
        SecurityKind::RoleMappings,
        SecurityCall::Write("sec-x"),
    );
    let message = explained.to_string();
    assert!(matches!(explained, Error::NotFound(_)), "{explained:?}");
    assert!(!message.contains("Security is not enabled"), "{message}");
    assert!(
        message.contains("role mapping \"sec-x\"") && message.contains("is not available"),
        "{message}"
    );
    let listed = Error::RejectedByCluster {
        status: StatusCode::NOT_FOUND,
        message: "Not Found".to_owned(),
    };
    let explained =
        super::model::explained(listed, OpenSearch, SecurityKind::Users, SecurityCall::List);
    assert!(explained.to_string().starts_with("Security is not enabled"));
}
