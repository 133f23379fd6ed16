//! authproxy settings: the YAML file's shape (section 2 of the specification plus the keys the
//! specification leaves open), its defaults, the section 8 environment variables and validation.

pub(crate) mod authorization;
pub(crate) mod bearer;
pub(crate) mod glob;
pub(crate) mod lifecycle;
pub(crate) mod path_pattern;
mod personal_tokens;
pub(crate) mod refresh;
pub(crate) mod request_rules;
mod sections;
mod validate;

use secrecy::SecretString;
use serde::Deserialize;
use service_kit::config::{ConfigProblems, Validate, VariableSource};

pub use personal_tokens::PersonalTokensSettings;
pub use sections::{
    BasicAuthSettings, CacheBackend, CacheSettings, ForwardAuthCallers, LocalUser,
    ObservabilitySettings, OidcSettings, RoleMapping, SearchFlavor, SearchSettings, ServerMode,
    ServerSettings, SessionSettings, UserManagementSettings,
};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    pub server: ServerSettings,
    pub oidc: OidcSettings,
    pub session: SessionSettings,
    pub cache: CacheSettings,
    pub user_management: UserManagementSettings,
    /// The search cluster; files written for the upstream product say `elasticsearch:`.
    #[serde(alias = "elasticsearch")]
    pub search: SearchSettings,
    pub basic_auth: BasicAuthSettings,
    pub observability: ObservabilitySettings,
    pub authorization: authorization::AuthorizationSettings,
    /// Tokens users create for CLIs (off by default).
    pub personal_tokens: PersonalTokensSettings,
}

/// Fills `slot` from the environment variable `name` when the file left it empty.
fn secret_from_env(slot: &mut Option<SecretString>, env: &dyn VariableSource, name: &str) {
    let empty = slot
        .as_ref()
        .is_none_or(|secret| secrecy::ExposeSecret::expose_secret(secret).is_empty());
    if empty && let Some(value) = env.get(name).filter(|value| !value.is_empty()) {
        *slot = Some(SecretString::from(value));
    }
}

impl Validate for Settings {
    /// Section 8: secrets come from the environment when the file does not set them.
    fn apply_environment(&mut self, env: &dyn VariableSource, _problems: &mut ConfigProblems) {
        secret_from_env(&mut self.session.secret, env, "SESSION_SECRET");
        secret_from_env(&mut self.cache.encryption_key, env, "CACHE_ENCRYPTION_KEY");
        secret_from_env(
            &mut self.search.admin_password,
            env,
            "SEARCH_ADMIN_PASSWORD",
        );
        secret_from_env(&mut self.oidc.client_secret, env, "OIDC_CLIENT_SECRET");
        if self.cache.redis_url.is_empty()
            && let Some(url) = env.get("REDIS_URL").filter(|url| !url.is_empty())
        {
            self.cache.redis_url = url;
        }
    }

    fn validate(&self, problems: &mut ConfigProblems) {
        validate::validate(self, problems);
    }

    fn warnings(&self, warnings: &mut ConfigProblems) {
        validate::warnings(self, warnings);
    }
}

service_kit::service_settings!(
    Settings,
    fn tracing(&self) -> Option<service_kit::telemetry::TracingSettings> {
        let observability = &self.observability;
        observability
            .otel_enabled
            .then(|| service_kit::telemetry::TracingSettings {
                endpoint: observability.otel_endpoint.clone(),
                service_name: observability.otel_service_name.clone(),
                ratio: observability.otel_trace_ratio,
            })
    }
);

#[cfg(test)]
mod tests;
