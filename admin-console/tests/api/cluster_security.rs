//! The cluster's own security (`/api/clusters/{id}/security…`) on the shared real secured nodes:
//! OpenSearch 2.19 with its security plugin and Elasticsearch 8.19 with x-pack security, each
//! behind a recording proxy of the test's own (HTTPS and the admin's credential to the node).
//! Users, roles and role mappings of the tests' own names (`sec-…`) are created, edited and
//! deleted; the new user's password is checked by the node itself (it authenticates them). The
//! attacks: a viewer or an operator is refused 403 and nothing reaches the node, no answer
//! carries a hash, reserved entries are refused 409 before the node is asked. The shared plain
//! OpenSearch 2 node and Elasticsearch 7.10 OSS have no security: their answer says so, and
//! nothing is written to them.

use reqwest::RequestBuilder;
use serde_json::{Value, json};
use std::time::Duration;

use test_support::{Distribution, SearchCluster, TempDir, eventually_with};

use crate::access::{ADMIN, Caller, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::support::real::{Real, real_with};
use crate::support::send;
use crate::templates::audit_lines;

const SECURED: [Distribution; 2] = [
    Distribution::OpenSearch2Secured,
    Distribution::Elasticsearch8Secured,
];

/// Strong enough for OpenSearch's password rules (zxcvbn "strong", 8 characters or more).
const PASSWORD: &str = "Vq7#pLm2!Tz9&wKe";

/// The console in trusted_headers mode before the shared node of `distribution`, its cluster
/// `main` marked production, auditing to `audit.log` in `dir`.
async fn console(distribution: Distribution, dir: &TempDir) -> Real {
    let file = dir.path().join("audit.log");
    real_with(distribution, |clusters| {
        format!(
            "{}    environment: production\naudit:\n  file: {}\n",
            trusted_yaml(clusters),
            file.display()
        )
    })
    .await
}

fn call(f: &Real, method: reqwest::Method, tail: &str, caller: &Caller) -> RequestBuilder {
    as_caller(
        f.app
            .client
            .request(method, f.url(&format!("/security{tail}"))),
        caller,
    )
    .header("x-change-reason", "security test")
}

/// The admin's `GET /security`, once the node answers it: on Elasticsearch the `.security-7`
/// index is created by the first write (of this suite's other test, or the node's own at
/// start), and until its shards start the node answers searches of it 503 (the console's 502).
async fn lists(f: &Real) -> Value {
    eventually_with(
        "the security lists",
        Duration::from_secs(60),
        async || match send(call(f, reqwest::Method::GET, "", &ADMIN)).await {
            (200, overview) => Ok(overview),
            (status, body) => Err(format!("{status} {body}")),
        },
    )
    .await
}

/// The paths of the node's security API the proxy saw, with their methods.
fn security_calls(f: &Real) -> Vec<(String, String)> {
    f.proxy
        .requests()
        .into_iter()
        .filter(|r| r.path.starts_with("/_plugins/_security") || r.path.starts_with("/_security"))
        .map(|r| (r.method, r.path))
        .collect()
}

/// Every key of `value`, at any depth, but those of a user's `attributes` (their own data: an
/// attribute may be named `password`).
fn keys(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                into.push(key.clone());
                if key != "attributes" {
                    keys(value, into);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| keys(item, into)),
        _ => {}
    }
}

fn assert_no_secret(body: &Value) {
    let mut all = Vec::new();
    keys(body, &mut all);
    assert!(
        !all.iter().any(|key| key == "hash" || key == "password"),
        "{body}"
    );
    let text = body.to_string();
    assert!(!text.contains("$2y$") && !text.contains("$2a$"), "{text}");
    assert!(!text.contains(PASSWORD), "{text}");
}

/// Who the node says `user` is when they sign in with `password` (its roles), or its status.
async fn signed_in_roles(
    cluster: &SearchCluster,
    user: &str,
    password: &str,
) -> Result<Vec<String>, u16> {
    let security = cluster.security.as_ref().unwrap();
    let path = match cluster.distribution {
        Distribution::OpenSearch2Secured => "/_plugins/_security/authinfo",
        _ => "/_security/_authenticate",
    };
    let answer = security
        .client()
        .get(format!("{}{path}", cluster.url))
        .basic_auth(user, Some(password))
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    if status != 200 {
        return Err(status);
    }
    let body: Value = answer.json().await.unwrap();
    Ok(body["roles"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|role| role.as_str().map(str::to_owned))
        .collect())
}

fn names(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry["name"].as_str())
        .collect()
}

#[tokio::test]
async fn an_admin_creates_edits_and_deletes_users_roles_and_mappings_on_secured_nodes() {
    for distribution in SECURED {
        admin_manages_security(distribution).await;
    }
}

async fn admin_manages_security(distribution: Distribution) {
    let dir = TempDir::new("cluster-security");
    let f = console(distribution, &dir).await;
    let opensearch = distribution == Distribution::OpenSearch2Secured;
    let (user, role) = ("sec-user", "sec-reader");
    let mapping = if opensearch { role } else { "sec-mapping" };
    use reqwest::Method;

    lists(&f).await;

    // A role, then a user who has it.
    let role_body = json!({
        "description": "reads sec indices",
        "clusterPermissions": [if opensearch { "cluster_monitor" } else { "monitor" }],
        "indexPermissions": [{"indexPatterns": ["sec-*"], "actions": ["read"]}],
    });
    let (status, body) = send(
        call(
            &f,
            Method::PUT,
            &format!("/roles/{role}?create=true"),
            &ADMIN,
        )
        .json(&role_body),
    )
    .await;
    assert_eq!(status, 200, "{distribution:?}: {body}");
    assert_eq!(body["created"], true, "{body}");
    lists(&f).await;
    let user_body =
        json!({"password": PASSWORD, "roles": [role], "attributes": {"team": "search"}});
    let (status, body) = send(
        call(
            &f,
            Method::PUT,
            &format!("/users/{user}?create=true"),
            &ADMIN,
        )
        .json(&user_body),
    )
    .await;
    assert_eq!(status, 200, "{distribution:?}: {body}");
    assert_no_secret(&body);
    let roles = signed_in_roles(f.cluster, user, PASSWORD).await;
    assert!(
        roles
            .as_ref()
            .is_ok_and(|roles| roles.iter().any(|r| r == role)),
        "the node signs the new user in with the role: {roles:?}"
    );

    // Created again: refused, the node not written.
    let writes_before = f.writes().len();
    let (status, body) = send(
        call(
            &f,
            Method::PUT,
            &format!("/users/{user}?create=true"),
            &ADMIN,
        )
        .json(&user_body),
    )
    .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "conflict");
    assert_eq!(f.writes().len(), writes_before);

    // Edited without a password: the node keeps it. An attribute named hash is the user's
    // data: kept and shown (OpenSearch itself masks an attribute named password as ******).
    let attributes = json!({"team": "storage", "hash": "0f3c9a1"});
    let (status, body) = send(
        call(&f, Method::PUT, &format!("/users/{user}"), &ADMIN)
            .json(&json!({"roles": [role], "attributes": attributes})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["created"], false, "{body}");
    assert!(
        signed_in_roles(f.cluster, user, PASSWORD).await.is_ok(),
        "the password was kept"
    );
    let (status, shown) = send(call(&f, Method::GET, &format!("/users/{user}"), &ADMIN)).await;
    assert_eq!(status, 200, "{shown}");
    assert_eq!(shown["roles"], json!([role]), "{shown}");
    assert_eq!(shown["attributes"], attributes, "{shown}");
    assert_eq!(shown["reserved"], false, "{shown}");
    assert_no_secret(&shown);

    if !opensearch {
        // Disabled, then edited without `enabled`: the user stays disabled.
        for change in [
            json!({"roles": [role], "enabled": false, "attributes": attributes}),
            json!({"roles": [role], "attributes": attributes}),
        ] {
            let (status, body) =
                send(call(&f, Method::PUT, &format!("/users/{user}"), &ADMIN).json(&change)).await;
            assert_eq!(status, 200, "{body}");
        }
        let (_, shown) = send(call(&f, Method::GET, &format!("/users/{user}"), &ADMIN)).await;
        assert_eq!(shown["enabled"], false, "{shown}");
        assert_eq!(shown["attributes"], attributes, "{shown}");
        assert_eq!(
            signed_in_roles(f.cluster, user, PASSWORD).await,
            Err(401),
            "the node keeps the user disabled"
        );
    } else {
        // A mapping of a role that does not exist: the node's 404 is not "no security".
        let (status, body) = send(
            call(&f, Method::PUT, "/role_mappings/sec-no-such-role", &ADMIN)
                .json(&json!({"users": [user]})),
        )
        .await;
        assert_eq!(status, 404, "{body}");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("\"sec-no-such-role\"") && !message.contains("not enabled"),
            "{message}"
        );
    }

    // A mapping of the user to the role.
    let (status, body) = send(
        call(
            &f,
            Method::PUT,
            &format!("/role_mappings/{mapping}"),
            &ADMIN,
        )
        .json(&json!({"roles": [role], "users": [user], "backendRoles": ["sec-group"]})),
    )
    .await;
    assert_eq!(status, 200, "{distribution:?}: {body}");

    // All three in the lists, with no secret anywhere.
    let (status, overview) = send(call(&f, Method::GET, "", &ADMIN)).await;
    assert_eq!(status, 200, "{overview}");
    assert_no_secret(&overview);
    let expected = if opensearch {
        "opensearch"
    } else {
        "elasticsearch"
    };
    assert_eq!(overview["distribution"], expected);
    assert!(names(&overview["users"]).contains(&user), "{overview}");
    let listed_role = overview["roles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == role)
        .unwrap();
    assert_eq!(
        listed_role["indexPermissions"],
        json!([{"indexPatterns": ["sec-*"], "actions": ["read"]}])
    );
    let listed_mapping = overview["roleMappings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == mapping)
        .unwrap();
    assert_eq!(listed_mapping["users"], json!([user]), "{listed_mapping}");
    assert_eq!(listed_mapping["backendRoles"], json!(["sec-group"]));
    assert_eq!(listed_mapping["roles"], json!([role]));

    // A delete on this production cluster needs a reason, and the typed name.
    let (status, body) = send(as_caller(
        f.app
            .client
            .delete(f.url(&format!("/security/users/{user}?confirm={user}"))),
        &ADMIN,
    ))
    .await;
    assert_eq!(status, 428, "{body}");
    assert_eq!(body["error"]["code"], "change_reason_required");
    let (status, _) = send(call(&f, Method::DELETE, &format!("/users/{user}"), &ADMIN)).await;
    assert_eq!(status, 400, "no confirm");
    for (kind, name) in [("role_mappings", mapping), ("users", user), ("roles", role)] {
        let tail = format!("/{kind}/{name}?confirm={name}");
        let (status, body) = send(call(&f, Method::DELETE, &tail, &ADMIN)).await;
        assert_eq!(status, 200, "{kind}: {body}");
        assert_eq!(body["deleted"], true);
        let (status, body) = send(call(&f, Method::GET, &format!("/{kind}/{name}"), &ADMIN)).await;
        assert_eq!(status, 404, "{kind}: {body}");
        assert_eq!(body["error"]["code"], "not_found");
    }
    assert_eq!(
        signed_in_roles(f.cluster, user, PASSWORD).await,
        Err(401),
        "the deleted user cannot sign in"
    );

    // Every call audited with the admin's reason; the password nowhere in the log.
    let lines = audit_lines(&dir.path().join("audit.log"), 15).await;
    let text = std::fs::read_to_string(dir.path().join("audit.log")).unwrap();
    assert!(!text.contains(PASSWORD), "{text}");
    let deletes: Vec<&Value> = lines
        .iter()
        .filter(|line| line["method"] == "DELETE" && line["outcome"] == "success")
        .collect();
    assert_eq!(deletes.len(), 3, "{lines:?}");
    assert!(
        deletes
            .iter()
            .all(|line| line["reason"] == "security test" && line["user"] == "ada")
    );
    assert!(
        lines
            .iter()
            .any(|line| line["method"] == "GET" && line["path"] == "/api/clusters/main/security"),
        "reads are audited too: {lines:?}"
    );
}

#[tokio::test]
async fn non_admins_are_refused_and_reserved_entries_are_never_changed() {
    for distribution in SECURED {
        attacks(distribution).await;
    }
}

async fn attacks(distribution: Distribution) {
    let dir = TempDir::new("cluster-security-attacks");
    let f = console(distribution, &dir).await;
    use reqwest::Method;
    let (reserved_user, reserved_role) = match distribution {
        Distribution::OpenSearch2Secured => ("admin", "all_access"),
        _ => ("elastic", "superuser"),
    };

    // 1. A viewer or an operator: 403 for reads and writes, encoded paths included; nothing
    //    reaches the node's security API.
    for caller in [&VIEWER, &OPERATOR] {
        for (method, tail) in [
            (Method::GET, "/security".to_owned()),
            (Method::GET, "/%73ecurity".to_owned()),
            (Method::GET, format!("/security/users/{reserved_user}")),
            (
                Method::PUT,
                "/security/users/sec-intruder?create=true".to_owned(),
            ),
            (
                Method::DELETE,
                format!("/security/users/{reserved_user}?confirm={reserved_user}"),
            ),
        ] {
            let request = as_caller(f.app.client.request(method.clone(), f.url(&tail)), caller)
                .header("x-change-reason", "attack")
                .json(&json!({"password": PASSWORD, "roles": [reserved_role]}));
            let (status, body) = send(request).await;
            assert_eq!(status, 403, "{} {method} {tail}: {body}", caller.user);
            assert_eq!(body["error"]["code"], "forbidden");
        }
        let (status, _) = send(as_caller(
            f.app.client.get(f.url(&format!(
                "/proxy{}",
                match distribution {
                    Distribution::OpenSearch2Secured => "/_plugins/_security/api/internalusers",
                    _ => "/_security/user",
                }
            ))),
            caller,
        ))
        .await;
        assert_eq!(status, 403, "nor through the console relay");
        // The cluster id percent-encoded: the router decodes it, the raw path does not match
        // `/api/clusters/main`, and the guard must not fall back to a viewer's read.
        let (status, body) = send(as_caller(
            f.app.client.get(f.app.url("/api/clusters/m%61in/security")),
            caller,
        ))
        .await;
        assert_eq!(
            status, 403,
            "{} with an encoded cluster id: {body}",
            caller.user
        );
    }
    assert_eq!(security_calls(&f), Vec::<(String, String)>::new());

    // 2. The admin: reserved entries are shown read-only, and refused 409 before the node is
    //    asked to change them.
    let overview = lists(&f).await;
    assert_no_secret(&overview);
    let shown = overview["users"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["name"] == reserved_user)
        .unwrap_or_else(|| panic!("{overview}"));
    assert_eq!(shown["reserved"], true, "{shown}");
    for (method, tail, body) in [
        (
            Method::PUT,
            format!("/users/{reserved_user}"),
            json!({"password": PASSWORD, "roles": []}),
        ),
        (
            Method::DELETE,
            format!("/users/{reserved_user}?confirm={reserved_user}"),
            Value::Null,
        ),
        (
            Method::PUT,
            format!("/roles/{reserved_role}"),
            json!({"clusterPermissions": []}),
        ),
    ] {
        let (status, answer) = send(call(&f, method.clone(), &tail, &ADMIN).json(&body)).await;
        assert_eq!(status, 409, "{method} {tail}: {answer}");
        assert_eq!(answer["error"]["code"], "conflict");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("is reserved"), "{message}");
    }
    assert_eq!(f.writes(), Vec::new(), "the node was only read");
    assert!(
        signed_in_roles(
            f.cluster,
            reserved_user,
            &f.cluster.security.as_ref().unwrap().admin_password
        )
        .await
        .is_ok(),
        "the reserved user still signs in with their password"
    );

    // 3. A hash smuggled into a change is refused; nothing is written.
    let (status, body) = send(
        call(&f, Method::PUT, "/users/sec-hash?create=true", &ADMIN)
            .json(&json!({"hash": "$2y$12$abcdefghijklmnopqrstuv", "roles": []})),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("\"hash\"")
    );
    assert_eq!(f.writes(), Vec::new());

    // 4. A name Elasticsearch would read as a list or a wildcard is refused before the node is
    //    asked: such an entry could never be viewed or deleted one by one.
    for name in ["sec-a,b", "sec-*"] {
        let (status, body) = send(
            call(
                &f,
                Method::PUT,
                &format!("/users/{name}?create=true"),
                &ADMIN,
            )
            .json(&json!({"password": PASSWORD, "roles": []})),
        )
        .await;
        assert_eq!(status, 400, "{name}: {body}");
        assert_eq!(body["error"]["code"], "bad_request", "{body}");
    }
    assert_eq!(f.writes(), Vec::new());

    // 5. Every refusal is audited as denied, the password nowhere.
    let lines = audit_lines(&dir.path().join("audit.log"), 10).await;
    assert!(
        lines
            .iter()
            .filter(|line| line["outcome"] == "denied")
            .count()
            >= 10,
        "{lines:?}"
    );
    let text = std::fs::read_to_string(dir.path().join("audit.log")).unwrap();
    assert!(!text.contains(PASSWORD));
}

/// The shared plain OpenSearch 2 node (no security plugin) and Elasticsearch 7.10 OSS (no
/// x-pack): each answers 404 `not_found` saying so, and nothing is written.
#[tokio::test]
async fn a_cluster_without_security_says_it_has_none() {
    for distribution in [Distribution::OpenSearch2, Distribution::Elasticsearch7] {
        let dir = TempDir::new("cluster-security-none");
        let f = console(distribution, &dir).await;
        let (status, body) = send(call(&f, reqwest::Method::GET, "", &ADMIN)).await;
        assert_eq!(status, 404, "{distribution:?}: {body}");
        assert_eq!(body["error"]["code"], "not_found");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("Security is not enabled"), "{message}");
        let (status, body) = send(
            call(&f, reqwest::Method::PUT, "/users/sec-x?create=true", &ADMIN)
                .json(&json!({"password": PASSWORD})),
        )
        .await;
        assert_eq!(status, 404, "{distribution:?}: {body}");
        assert_eq!(f.writes(), Vec::new());
    }
}
