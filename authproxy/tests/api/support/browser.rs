//! A browser for tests: one cookie jar, redirects followed step by step (so a test can stop at
//! or tamper with any of them). Like a real browser, cookies of 127.0.0.1 go to every port.

use std::collections::HashMap;
use std::sync::Mutex;

use reqwest::Url;

pub struct Browser {
    client: reqwest::Client,
    jar: Mutex<HashMap<String, String>>,
}

/// Every hop of a followed redirect chain and the final response.
pub struct Landing {
    pub response: reqwest::Response,
    pub visited: Vec<Url>,
}

impl Default for Browser {
    fn default() -> Self {
        Self::new()
    }
}

impl Browser {
    pub fn new() -> Self {
        Self {
            client: crate::app::no_redirects(),
            jar: Mutex::new(HashMap::new()),
        }
    }

    pub fn cookie(&self, name: &str) -> Option<String> {
        self.jar.lock().unwrap().get(name).cloned()
    }

    pub fn set_cookie(&self, name: &str, value: &str) {
        self.jar
            .lock()
            .unwrap()
            .insert(name.to_owned(), value.to_owned());
    }

    /// One GET as a browser navigation (`Accept: text/html`), cookies sent and stored.
    pub async fn get(&self, url: &str) -> reqwest::Response {
        self.request(reqwest::Method::GET, url, &[]).await
    }

    pub async fn request(
        &self,
        method: reqwest::Method,
        url: &str,
        headers: &[(&str, &str)],
    ) -> reqwest::Response {
        let cookies = {
            let jar = self.jar.lock().unwrap();
            jar.iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join("; ")
        };
        let mut request = self.client.request(method, url);
        // A caller's own Accept (an API client's) replaces the browser's.
        if !headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("accept"))
        {
            request = request.header("accept", "text/html,application/xhtml+xml");
        }
        if !cookies.is_empty() {
            request = request.header("cookie", cookies);
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.unwrap();
        self.store(&response);
        response
    }

    /// Follows redirects from `url` until a response that is not one, or until `stop` says so
    /// for the next location (which is then not requested).
    pub async fn follow(&self, url: &str, stop: impl Fn(&Url) -> bool) -> Landing {
        let mut current = Url::parse(url).unwrap();
        let mut visited = vec![current.clone()];
        for _ in 0..20 {
            let response = self.get(current.as_str()).await;
            if !response.status().is_redirection() {
                return Landing { response, visited };
            }
            let location = response.headers()["location"].to_str().unwrap().to_owned();
            let next = current.join(&location).unwrap();
            if stop(&next) {
                visited.push(next);
                return Landing { response, visited };
            }
            visited.push(next.clone());
            current = next;
        }
        panic!("more than 20 redirects: {visited:?}");
    }

    fn store(&self, response: &reqwest::Response) {
        let mut jar = self.jar.lock().unwrap();
        for header in response.headers().get_all("set-cookie") {
            let Ok(text) = header.to_str() else { continue };
            let mut parts = text.split(';');
            let Some((name, value)) = parts.next().and_then(|pair| pair.split_once('=')) else {
                continue;
            };
            let removed = parts
                .map(|part| part.trim().to_ascii_lowercase())
                .any(|attribute| {
                    attribute == "max-age=0"
                        || attribute.starts_with("max-age=-")
                        || (attribute.starts_with("expires=") && attribute.contains("1970"))
                });
            if removed || value.is_empty() {
                jar.remove(name.trim());
            } else {
                jar.insert(name.trim().to_owned(), value.trim().to_owned());
            }
        }
    }
}
