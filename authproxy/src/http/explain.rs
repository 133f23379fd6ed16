//! `GET /auth/explain`: why the signed-in caller gets what they get, for the person asking
//! ("why am I refused?", "why am I read-only in the cluster?"): who they are to authproxy (user,
//! how they signed in, groups), the `authorization` rule of the host they came for and its
//! decision, the search-cluster roles that follow with the `role_mappings` behind each, and the
//! `request_rules` that apply to them.
//! Only about the caller: it shows nothing the caller's own requests do not already depend on,
//! and never a credential.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Serialize;

use crate::authz::Decision;
use crate::authz::roles::RolesExplained;
use crate::error::Error;
use crate::http::gate::{RequestContext, authenticate};
use crate::state::AppState;

/// Where the explanation is served (the public listener, beside sign-in).
pub const EXPLAIN_PATH: &str = "/auth/explain";

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Explanation {
    username: String,
    /// `basic` or `oidc`.
    method: &'static str,
    email: String,
    groups: Vec<String>,
    /// The host the decision is about (forward_auth, from the trusted front proxy), if any.
    host: Option<String>,
    /// `global`, `hosts[0] (*.example.com)`, …
    rule: String,
    /// `allowed` or `denied`.
    decision: &'static str,
    /// Why it is denied (`no_user`, `no_group`, …), when it is.
    reason: Option<&'static str>,
    /// The managed search-cluster user's roles; `None` when `user_management` is off.
    search_roles: Option<RolesExplained>,
    /// The `authorization.request_rules` that apply to the caller (by group or mapped search
    /// role), each as configured: `request_rules[0]: groups ["viewers"]; deny DELETE; ...`.
    request_rules: Vec<String>,
}

pub async fn explain(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, Error> {
    let context = RequestContext::of(&state, &request)?;
    let identity = authenticate(&state, &request, &context).await?;
    let host = context
        .original
        .as_ref()
        .and_then(|original| original.host.as_ref());
    let (rule, decision, reason) = match state.authorizer.decide(&identity, host) {
        Decision::Allowed(rule) => (rule, "allowed", None),
        Decision::Denied { rule, reason } => (rule, "denied", Some(reason.as_str())),
    };
    let search_roles = state
        .managed
        .as_ref()
        .map(|managed| managed.roles().explain(&identity));
    let roles: Vec<String> = search_roles
        .as_ref()
        .map(|explained| explained.roles.iter().map(|r| r.role.clone()).collect())
        .unwrap_or_default();
    let rules = state.authorizer.request_rules();
    let request_rules = rules
        .applying(&identity, &roles)
        .into_iter()
        .map(|index| rules.describe(index))
        .collect();
    let explanation = Explanation {
        username: identity.username.clone(),
        method: identity.method.as_str(),
        email: identity.email.clone(),
        groups: identity.groups.clone(),
        host: host.map(|host| host.name().to_owned()),
        rule: state.authorizer.describe(rule),
        decision,
        reason,
        search_roles,
        request_rules,
    };
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(explanation))
}
