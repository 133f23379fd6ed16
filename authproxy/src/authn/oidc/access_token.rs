//! JWT access tokens (RFC 9068, e.g. from the client-credentials grant) verified with the same
//! provider keys, key cache and rate-limited re-fetch as ID tokens: the signature under one of
//! the provider's published keys with an asymmetric algorithm it lists (never `none`, never
//! HMAC: a public client has no shared secret, so a token "signed" with the public key as an
//! HMAC secret is refused), `typ` absent, `JWT` or `at+jwt`, `iss` exactly the issuer, `aud`
//! containing one of the accepted audiences, `exp` in the future and `iat` / `nbf` not in the
//! future (each within the allowed clock skew).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use openidconnect::core::{CoreIdToken, CoreIdTokenVerifier};
use openidconnect::{
    ClaimsVerificationError, ClientId, JsonWebTokenType, NormalizedJsonWebTokenType,
    SignatureVerificationError,
};
use serde_json::{Map, Value};

use super::{OidcProvider, claims};
use crate::error::Error;

/// What an access token must satisfy beyond the provider's signature and issuer.
#[derive(Debug, Clone)]
pub(crate) struct AccessTokenRules {
    /// One of these must be among the token's `aud`.
    pub audiences: Vec<String>,
    /// How far the provider's clock may be off ours.
    pub clock_skew: Duration,
}

/// Why an access token was refused, for the error body, the challenge and the log.
fn refusal(error: &ClaimsVerificationError) -> &'static str {
    match error {
        ClaimsVerificationError::InvalidIssuer(_) => "the token comes from another issuer",
        ClaimsVerificationError::Expired(_) => "the token has expired",
        ClaimsVerificationError::SignatureVerification(
            SignatureVerificationError::DisallowedAlg(_)
            | SignatureVerificationError::NoSignature
            | SignatureVerificationError::UnsupportedAlg(_),
        ) => "the token is not signed with an accepted algorithm",
        ClaimsVerificationError::SignatureVerification(
            SignatureVerificationError::NoMatchingKey,
        ) => "the token is signed with a key the provider does not publish",
        ClaimsVerificationError::SignatureVerification(_) => {
            "the token's signature does not verify"
        }
        ClaimsVerificationError::Unsupported(_) => "the token's header is not accepted",
        _ => "the token is not valid",
    }
}

/// The JOSE `typ` values accepted: none, `JWT` and RFC 9068's `at+jwt`.
fn accepted_types() -> Vec<NormalizedJsonWebTokenType> {
    ["application/jwt", "application/jose", "application/at+jwt"]
        .into_iter()
        .filter_map(|name| JsonWebTokenType::new(name.to_owned()).normalize().ok())
        .collect()
}

/// Seconds since the epoch of a numeric claim, if it is one.
fn numeric_date(claims: &Map<String, Value>, name: &str) -> Option<u64> {
    claims.get(name).and_then(Value::as_u64)
}

/// The audience rule, `iat` and `nbf` on claims whose signature, issuer and expiry verified.
pub(crate) fn check_claims(
    claims: &Map<String, Value>,
    rules: &AccessTokenRules,
    now: u64,
) -> Result<(), &'static str> {
    let accepted = |audience: &Value| {
        audience
            .as_str()
            .is_some_and(|audience| rules.audiences.iter().any(|wanted| wanted == audience))
    };
    let audience_ok = match claims.get("aud") {
        Some(Value::Array(audiences)) => audiences.iter().any(accepted),
        Some(one) => accepted(one),
        None => false,
    };
    if !audience_ok {
        return Err("the token was issued for another audience");
    }
    let latest = now.saturating_add(rules.clock_skew.as_secs());
    if numeric_date(claims, "iat").is_some_and(|iat| iat > latest) {
        return Err("the token was issued in the future");
    }
    match claims.get("nbf") {
        None => Ok(()),
        Some(nbf) => match nbf.as_u64() {
            Some(nbf) if nbf <= latest => Ok(()),
            Some(_) => Err("the token is not valid yet"),
            None => Err("the token's nbf is not a number"),
        },
    }
}

/// The current time in Unix seconds.
fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

impl OidcProvider {
    /// The claims of a JWT access token issued by this provider for one of `rules.audiences`,
    /// or `Error::InvalidToken` with the reason. The provider unreachable is
    /// `Error::ProviderUnavailable`, as for sign-in.
    pub(crate) async fn verify_access_token(
        &self,
        token: &str,
        rules: &AccessTokenRules,
    ) -> Result<Map<String, Value>, Error> {
        let jwt: CoreIdToken = token.parse().map_err(|_| {
            Error::InvalidToken("the token is not a JWT with iss, sub, aud, exp and iat")
        })?;
        let discovered = self.discovered().await?;
        let skew = rules.clock_skew;
        let types = accepted_types();
        self.with_current_keys(discovered, |keys| {
            // A public client: no shared secret, so HMAC is never accepted. `aud` is judged
            // below against the accepted audiences, not against the sign-in client.
            let verifier = CoreIdTokenVerifier::new_public_client(
                ClientId::new(String::new()),
                self.issuer.clone(),
                keys.metadata.jwks().clone(),
            )
            .require_audience_match(false)
            .set_allowed_algs(keys.accepted_algs.iter().cloned())
            .set_allowed_jose_types(types.iter().cloned())
            .set_time_fn(move || (SystemTime::now() - skew).into());
            jwt.claims(&verifier, |_: Option<&openidconnect::Nonce>| Ok(()))
                .map(|_| ())
        })
        .await?
        .map_err(|error| Error::InvalidToken(refusal(&error)))?;
        let claims = claims::payload_of(token)
            .ok_or(Error::InvalidToken("the token's claims cannot be read"))?;
        check_claims(&claims, rules, unix_now()).map_err(Error::InvalidToken)?;
        Ok(claims)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const NOW: u64 = 1_800_000_000;

    fn rules() -> AccessTokenRules {
        AccessTokenRules {
            audiences: vec!["urn:search".to_owned(), "https://api.example".to_owned()],
            clock_skew: Duration::from_secs(60),
        }
    }

    fn check(value: Value) -> Result<(), &'static str> {
        check_claims(value.as_object().unwrap(), &rules(), NOW)
    }

    #[test]
    fn one_accepted_audience_is_enough() {
        assert_eq!(check(json!({"aud": "urn:search"})), Ok(()));
        assert_eq!(
            check(json!({"aud": ["other", "https://api.example"]})),
            Ok(())
        );
        for refused in [
            json!({}),
            json!({"aud": "other"}),
            json!({"aud": ["other", "urn:searc"]}),
            json!({"aud": []}),
            json!({"aud": 7}),
            json!({"aud": [["urn:search"]]}),
        ] {
            assert_eq!(
                check(refused.clone()),
                Err("the token was issued for another audience"),
                "{refused}"
            );
        }
    }

    #[test]
    fn iat_and_nbf_may_not_be_in_the_future_beyond_the_skew() {
        let at = |name: &str, value: Value| json!({"aud": "urn:search", name: value});
        assert_eq!(check(at("iat", json!(NOW + 60))), Ok(()));
        assert_eq!(
            check(at("iat", json!(NOW + 61))),
            Err("the token was issued in the future")
        );
        assert_eq!(check(at("nbf", json!(NOW + 60))), Ok(()));
        assert_eq!(
            check(at("nbf", json!(NOW + 61))),
            Err("the token is not valid yet")
        );
        assert_eq!(
            check(at("nbf", json!("soon"))),
            Err("the token's nbf is not a number")
        );
    }

    #[test]
    fn the_accepted_types_include_rfc_9068s() {
        let types = accepted_types();
        assert_eq!(types.len(), 3);
        let at_jwt = JsonWebTokenType::new("at+jwt".to_owned())
            .normalize()
            .unwrap();
        let jwt = JsonWebTokenType::new("JWT".to_owned()).normalize().unwrap();
        assert!(types.contains(&at_jwt) && types.contains(&jwt));
    }
}
