//! Cluster setting keys.

use crate::error::Error;

/// A setting key: dotted words of letters, digits, `_` and `-` (affix settings carry a user's
/// name, e.g. `cluster.remote.<alias>.seeds`; logger keys carry class names), at most 512
/// bytes. Wildcards are refused: this edits one setting.
///
/// It only reaches a body (the key of `{"<scope>": {"<key>": <value>}}`), never a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SettingKey(String);

impl SettingKey {
    pub(crate) fn parse(key: &str) -> Result<Self, Error> {
        let bad = |why: &str| {
            Err(Error::BadRequest(format!(
                "The setting key \"{}\" is not valid: {why}.",
                key.escape_debug()
            )))
        };
        if key.is_empty() {
            return bad("it is empty");
        }
        if key.len() > 512 {
            return bad("it is longer than 512 bytes");
        }
        if key.contains('*') {
            return bad("wildcards are not accepted; name one setting");
        }
        if let Some(c) = key
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        {
            return bad(&format!("it must not contain {c:?}"));
        }
        if !key.contains('.') || key.split('.').any(str::is_empty) {
            return bad("it must be dotted words, like cluster.routing.allocation.enable");
        }
        Ok(Self(key.to_owned()))
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_one_dotted_setting() {
        for good in [
            "cluster.routing.allocation.enable",
            "cluster.remote.my-dc_2.seeds",
            "logger.org.opensearch.indices.recovery.RecoveryTarget",
        ] {
            assert!(SettingKey::parse(good).is_ok(), "{good}");
        }
        for (bad, why) in [
            ("", "empty"),
            ("cluster.*", "wildcards"),
            ("cluster", "dotted words"),
            ("cluster..x", "dotted words"),
            (".x", "dotted words"),
            ("a.b c", "' '"),
            ("a.b\"", "'\"'"),
            ("a.b/c", "'/'"),
        ] {
            let message = SettingKey::parse(bad).unwrap_err().to_string();
            assert!(message.contains(why), "{bad:?}: {message}");
        }
    }
}
