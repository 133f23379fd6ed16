//! A saved query as a browser sends it (hostile input), checked once into a [`Draft`] whose
//! fields are within [`Limits`].

use serde::Deserialize;

use super::{ALL_CLUSTERS, Visibility};
use crate::error::Error;

/// The caps on a saved query and on each owner's number of them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) name_chars: usize,
    pub(crate) tags: usize,
    pub(crate) tag_chars: usize,
    /// Bytes of console text (413 beyond).
    pub(crate) text_bytes: usize,
    pub(crate) per_owner: usize,
    /// Entries of one import.
    pub(crate) import_entries: usize,
}

impl Limits {
    pub(crate) const DEFAULT: Self = Self {
        name_chars: 120,
        tags: 16,
        tag_chars: 40,
        text_bytes: 64 * 1024,
        per_owner: 500,
        import_entries: 500,
    };

    /// Whether an owner who has `owned` queries may save one more (400 otherwise).
    pub(crate) fn room_for_one_more(&self, owned: usize) -> Result<(), Error> {
        if owned >= self.per_owner {
            return Err(Error::BadRequest(format!(
                "You have {owned} saved queries, the most one user may keep; delete some first."
            )));
        }
        Ok(())
    }
}

/// The fields a caller sends to create or edit a query (`version` only on an edit).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DraftBody {
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) tags: Vec<String>,
    pub(crate) text: String,
    #[serde(default = "all_clusters")]
    pub(crate) cluster: String,
    #[serde(default = "private")]
    pub(crate) visibility: String,
    /// The version the edit started from (required by `PUT`).
    #[serde(default)]
    pub(crate) version: Option<u64>,
}

fn all_clusters() -> String {
    ALL_CLUSTERS.to_owned()
}

fn private() -> String {
    "private".to_owned()
}

/// A checked draft: trimmed name, distinct tags, text within its cap, a parsed visibility.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Draft {
    pub(crate) name: String,
    pub(crate) tags: Vec<String>,
    pub(crate) text: String,
    pub(crate) cluster: String,
    pub(crate) visibility: Visibility,
}

fn printable(text: &str) -> bool {
    !text.chars().any(char::is_control)
}

impl Draft {
    /// Every rule at once is not needed here: the first broken one is the 400 (or 413 for the
    /// text's size).
    pub(crate) fn parse(body: DraftBody, limits: &Limits) -> Result<Self, Error> {
        let name = body.name.trim().to_owned();
        if name.is_empty() || !printable(&name) {
            return Err(Error::BadRequest(
                "name must be a non-empty line of text.".to_owned(),
            ));
        }
        if name.chars().count() > limits.name_chars {
            return Err(Error::BadRequest(format!(
                "name has more than {} characters.",
                limits.name_chars
            )));
        }
        let mut tags: Vec<String> = Vec::new();
        for tag in body.tags {
            let tag = tag.trim().to_owned();
            if tag.is_empty() || !printable(&tag) || tag.contains(',') {
                return Err(Error::BadRequest(
                    "each tag must be a non-empty word without commas.".to_owned(),
                ));
            }
            if tag.chars().count() > limits.tag_chars {
                return Err(Error::BadRequest(format!(
                    "a tag has more than {} characters.",
                    limits.tag_chars
                )));
            }
            if !tags.contains(&tag) {
                tags.push(tag);
            }
        }
        if tags.len() > limits.tags {
            return Err(Error::BadRequest(format!(
                "a query has at most {} tags.",
                limits.tags
            )));
        }
        if body.text.trim().is_empty() {
            return Err(Error::BadRequest("text must not be empty.".to_owned()));
        }
        if body.text.len() > limits.text_bytes {
            return Err(Error::TooLarge(format!(
                "text is larger than {} bytes.",
                limits.text_bytes
            )));
        }
        let cluster = body.cluster.trim().to_owned();
        if cluster.is_empty() || cluster.len() > 128 || !printable(&cluster) {
            return Err(Error::BadRequest(
                "cluster must be a cluster id or all.".to_owned(),
            ));
        }
        let visibility = Visibility::parse(&body.visibility).ok_or_else(|| {
            Error::BadRequest("visibility must be private or group:<name>.".to_owned())
        })?;
        Ok(Self {
            name,
            tags,
            text: body.text,
            cluster,
            visibility,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(name: &str, tags: &[&str], text: &str) -> DraftBody {
        DraftBody {
            name: name.to_owned(),
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
            text: text.to_owned(),
            cluster: "all".to_owned(),
            visibility: "private".to_owned(),
            version: None,
        }
    }

    fn status(result: Result<Draft, Error>) -> u16 {
        use actix_web::ResponseError;
        result.map_or_else(|error| error.status_code().as_u16(), |_| 200)
    }

    #[test]
    fn an_owner_keeps_at_most_the_cap() {
        let limits = Limits::DEFAULT;
        assert!(limits.room_for_one_more(limits.per_owner - 1).is_ok());
        let refused = limits.room_for_one_more(limits.per_owner).unwrap_err();
        assert_eq!(status(Err(refused)), 400);
    }

    #[test]
    fn a_draft_is_trimmed_and_its_tags_made_distinct() {
        let draft = Draft::parse(
            body("  Health ", &["a", " a", "b"], "GET _cluster/health"),
            &Limits::DEFAULT,
        )
        .unwrap();
        assert_eq!(draft.name, "Health");
        assert_eq!(draft.tags, ["a", "b"]);
    }

    #[test]
    fn each_cap_is_a_400_and_the_text_size_a_413() {
        let limits = Limits::DEFAULT;
        let long_name = "n".repeat(limits.name_chars + 1);
        let many_tags: Vec<String> = (0..=limits.tags).map(|n| format!("t{n}")).collect();
        let many_tags: Vec<&str> = many_tags.iter().map(String::as_str).collect();
        let long_tag = "t".repeat(limits.tag_chars + 1);
        let big_text = "x".repeat(limits.text_bytes + 1);
        assert_eq!(status(Draft::parse(body("", &[], "GET /"), &limits)), 400);
        assert_eq!(
            status(Draft::parse(body("a\nb", &[], "GET /"), &limits)),
            400
        );
        assert_eq!(
            status(Draft::parse(body(&long_name, &[], "GET /"), &limits)),
            400
        );
        assert_eq!(
            status(Draft::parse(body("n", &many_tags, "GET /"), &limits)),
            400
        );
        assert_eq!(
            status(Draft::parse(body("n", &[&long_tag], "GET /"), &limits)),
            400
        );
        assert_eq!(
            status(Draft::parse(body("n", &["a,b"], "GET /"), &limits)),
            400
        );
        assert_eq!(status(Draft::parse(body("n", &[], " "), &limits)), 400);
        assert_eq!(
            status(Draft::parse(body("n", &[], &big_text), &limits)),
            413
        );
        let mut bad_visibility = body("n", &[], "GET /");
        bad_visibility.visibility = "public".to_owned();
        assert_eq!(status(Draft::parse(bad_visibility, &limits)), 400);
    }
}
