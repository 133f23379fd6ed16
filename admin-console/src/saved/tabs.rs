//! The console's tabs kept on the server (issue 34): one record per owner and cluster with the
//! tabs (id, title, text) and the active one, versioned like a saved query so two browsers of
//! one user get a conflict instead of overwriting each other. The body a browser sends is
//! hostile: [`TabsBody::parse`] checks it once against [`TabLimits`].

use serde::{Deserialize, Serialize};

use super::store::{Place, Record};
use crate::error::Error;

/// Where the tabs are kept (the saved queries' file or Redis, their own table or hash).
pub(crate) const CONSOLE_TABS: Place = Place {
    table: "console_tabs",
    redis_key: "admin-console:console-tabs",
};

/// The caps on one record.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TabLimits {
    pub(crate) tabs: usize,
    pub(crate) id_chars: usize,
    pub(crate) title_chars: usize,
    /// Bytes of one tab's text (413 beyond).
    pub(crate) text_bytes: usize,
}

impl TabLimits {
    pub(crate) const DEFAULT: Self = Self {
        tabs: 20,
        id_chars: 64,
        title_chars: 60,
        text_bytes: 64 * 1024,
    };

    /// The largest body that can hold the most tabs at their caps.
    pub(crate) fn body_bytes(&self) -> usize {
        self.tabs * (self.text_bytes * 2 + 1024) + 4096
    }
}

/// One tab.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConsoleTab {
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) text: String,
}

/// The stored record of one owner on one cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TabsRecord {
    /// `<cluster>\n<owner>`: a cluster id has no newline.
    pub(crate) key: String,
    pub(crate) owner: String,
    pub(crate) cluster: String,
    pub(crate) tabs: Vec<ConsoleTab>,
    pub(crate) active: Option<String>,
    /// 1 at the first write, one more on each.
    pub(crate) version: u64,
    pub(crate) updated_at: String,
}

impl Record for TabsRecord {
    fn id(&self) -> &str {
        &self.key
    }
    fn version(&self) -> u64 {
        self.version
    }
}

/// The record's key for an owner on a cluster.
pub(crate) fn record_key(cluster: &str, owner: &str) -> String {
    format!("{cluster}\n{owner}")
}

/// The answer of `GET` and `PUT /api/console/tabs` (version 0: nothing stored yet).
#[derive(Debug, Serialize)]
pub(crate) struct TabsAnswer {
    pub(crate) cluster: String,
    pub(crate) tabs: Vec<ConsoleTab>,
    pub(crate) active: Option<String>,
    pub(crate) version: u64,
    pub(crate) updated_at: Option<String>,
}

impl TabsAnswer {
    pub(crate) fn empty(cluster: &str) -> Self {
        Self {
            cluster: cluster.to_owned(),
            tabs: Vec::new(),
            active: None,
            version: 0,
            updated_at: None,
        }
    }
}

impl From<TabsRecord> for TabsAnswer {
    fn from(record: TabsRecord) -> Self {
        Self {
            cluster: record.cluster,
            tabs: record.tabs,
            active: record.active,
            version: record.version,
            updated_at: Some(record.updated_at),
        }
    }
}

/// What a browser sends: all its tabs, the active one and the version it started from (0: it
/// found none stored).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TabsBody {
    pub(crate) tabs: Vec<ConsoleTab>,
    #[serde(default)]
    pub(crate) active: Option<String>,
    pub(crate) version: u64,
}

/// A checked body.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Tabs {
    pub(crate) tabs: Vec<ConsoleTab>,
    pub(crate) active: Option<String>,
    pub(crate) version: u64,
}

impl TabsBody {
    /// Every cap and rule, the first one broken answered (400, 413 for a text).
    pub(crate) fn parse(self, limits: &TabLimits) -> Result<Tabs, Error> {
        if self.tabs.len() > limits.tabs {
            return Err(Error::BadRequest(format!(
                "At most {} console tabs are kept; this has {}.",
                limits.tabs,
                self.tabs.len()
            )));
        }
        let mut seen = std::collections::HashSet::new();
        for (at, tab) in self.tabs.iter().enumerate() {
            let id_ok = !tab.id.is_empty()
                && tab.id.chars().count() <= limits.id_chars
                && tab
                    .id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !id_ok {
                return Err(Error::BadRequest(format!(
                    "tabs[{at}].id must be 1 to {} letters, digits, - or _.",
                    limits.id_chars
                )));
            }
            if !seen.insert(tab.id.as_str()) {
                return Err(Error::BadRequest(format!(
                    "tabs[{at}].id \"{}\" is used twice.",
                    tab.id
                )));
            }
            let title = tab.title.trim();
            if title.is_empty()
                || title.chars().count() > limits.title_chars
                || title.chars().any(char::is_control)
            {
                return Err(Error::BadRequest(format!(
                    "tabs[{at}].title must be 1 to {} characters on one line.",
                    limits.title_chars
                )));
            }
            if tab.text.len() > limits.text_bytes {
                return Err(Error::TooLarge(format!(
                    "tabs[{at}].text is larger than {} bytes.",
                    limits.text_bytes
                )));
            }
        }
        if let Some(active) = &self.active
            && !seen.contains(active.as_str())
        {
            return Err(Error::BadRequest(
                "active must be the id of one of the tabs.".to_owned(),
            ));
        }
        Ok(Tabs {
            tabs: self
                .tabs
                .into_iter()
                .map(|tab| ConsoleTab {
                    title: tab.title.trim().to_owned(),
                    ..tab
                })
                .collect(),
            active: self.active,
            version: self.version,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::ResponseError;

    fn tab(id: &str, title: &str, text: &str) -> ConsoleTab {
        ConsoleTab {
            id: id.to_owned(),
            title: title.to_owned(),
            text: text.to_owned(),
        }
    }

    fn body(tabs: Vec<ConsoleTab>, active: Option<&str>) -> TabsBody {
        TabsBody {
            tabs,
            active: active.map(str::to_owned),
            version: 0,
        }
    }

    #[test]
    fn a_good_body_is_kept_with_titles_trimmed() {
        let parsed = body(vec![tab("a", " One ", "GET /")], Some("a"))
            .parse(&TabLimits::DEFAULT)
            .unwrap();
        assert_eq!(parsed.tabs, vec![tab("a", "One", "GET /")]);
        assert_eq!(parsed.active.as_deref(), Some("a"));
    }

    #[test]
    fn each_rule_is_refused_with_its_status() {
        let limits = TabLimits {
            tabs: 2,
            id_chars: 4,
            title_chars: 5,
            text_bytes: 8,
        };
        let status = |b: TabsBody| b.parse(&limits).unwrap_err().status_code().as_u16();
        let many = vec![tab("a", "A", ""), tab("b", "B", ""), tab("c", "C", "")];
        assert_eq!(status(body(many, None)), 400);
        assert_eq!(status(body(vec![tab("a/b", "A", "")], None)), 400);
        assert_eq!(status(body(vec![tab("abcde", "A", "")], None)), 400);
        assert_eq!(
            status(body(vec![tab("a", "A", ""), tab("a", "B", "")], None)),
            400
        );
        assert_eq!(status(body(vec![tab("a", "  ", "")], None)), 400);
        assert_eq!(status(body(vec![tab("a", "A\nB", "")], None)), 400);
        assert_eq!(status(body(vec![tab("a", "Longer", "")], None)), 400);
        assert_eq!(status(body(vec![tab("a", "A", "123456789")], None)), 413);
        assert_eq!(status(body(vec![tab("a", "A", "")], Some("b"))), 400);
    }
}
