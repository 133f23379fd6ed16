//! The built web app: files from `server.static_dir`, hashed assets cached for a year,
//! `index.html` for every other browser path (client-side routing), never for `/api`.

use std::path::{Path, PathBuf};

use actix_files::NamedFile;
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::{HttpRequest, HttpResponse};
use percent_encoding::percent_decode_str;
use service_kit::http::{Rejection, error_response, route_not_found};

const IMMUTABLE: &str = "public, max-age=31536000, immutable";

#[derive(Debug, Clone)]
pub struct WebApp {
    dir: PathBuf,
}

impl WebApp {
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// The file a request path names, if it is a safe relative path to an existing file.
    fn file_for(&self, request_path: &str) -> Option<PathBuf> {
        let relative = request_path.trim_start_matches('/');
        if relative.is_empty() {
            return None;
        }
        let safe = relative.split('/').all(|segment| {
            !segment.is_empty()
                && !segment.starts_with('.')
                && !segment.contains('\\')
                && !segment.contains('\0')
        });
        let path = self.dir.join(relative);
        (safe && path.is_file()).then_some(path)
    }

    fn index(&self) -> PathBuf {
        self.dir.join("index.html")
    }
}

/// Default service: the web app for browser `GET`/`HEAD` paths, the common 404 otherwise.
pub async fn serve(request: HttpRequest, web_app: actix_web::web::Data<WebApp>) -> HttpResponse {
    let path = request.path();
    let is_read = matches!(*request.method(), Method::GET | Method::HEAD);
    if !is_read || path == "/api" || path.starts_with("/api/") || path.starts_with("/_") {
        return route_not_found(request).await;
    }
    let decoded = percent_decode_path(path);
    if let Some(file) = web_app.file_for(&decoded) {
        let cache = if decoded.starts_with("/assets/") {
            IMMUTABLE
        } else if decoded == "/index.html" {
            "no-cache"
        } else {
            "public, max-age=300"
        };
        return file_response(&request, &file, cache).await;
    }
    if decoded.starts_with("/assets/") {
        // A missing hashed asset must not turn into HTML the browser would run as a script.
        return route_not_found(request).await;
    }
    let index = web_app.index();
    if !index.is_file() {
        return error_response(&Rejection::new(
            StatusCode::NOT_FOUND,
            "web_app_not_built",
            format!(
                "The web app is not built: {} does not exist. Run `npm run build` in admin-console/web, or set server.static_dir.",
                index.display()
            ),
        ));
    }
    file_response(&request, &index, "no-cache").await
}

async fn file_response(
    request: &HttpRequest,
    file: &Path,
    cache_control: &'static str,
) -> HttpResponse {
    let path = file.to_owned();
    let opened = actix_web::web::block(move || NamedFile::open(path)).await;
    match opened.map_err(|_| ()).and_then(|file| file.map_err(|_| ())) {
        Ok(named) => {
            let mut response = named.use_last_modified(true).into_response(request);
            response.headers_mut().insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static(cache_control),
            );
            response
        }
        Err(_) => route_not_found(request.clone()).await,
    }
}

/// `%XX` decoding of a URL path for file lookup; a path that does not decode to UTF-8 becomes
/// empty and matches no file.
fn percent_decode_path(path: &str) -> String {
    percent_decode_str(path)
        .decode_utf8()
        .map(|decoded| decoded.into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_safe_existing_files_are_served() {
        let dir = std::env::temp_dir().join(format!("admin-console-webapp-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("assets")).unwrap();
        std::fs::write(dir.join("assets/app-1.js"), "x").unwrap();
        let web_app = WebApp::new(dir.clone());
        assert!(web_app.file_for("/assets/app-1.js").is_some());
        assert!(web_app.file_for("/assets/../assets/app-1.js").is_none());
        assert!(web_app.file_for("/assets").is_none());
        assert!(web_app.file_for("/").is_none());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
