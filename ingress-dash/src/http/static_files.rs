//! The built web app from `server.static_dir`: files with long-lived caching for hashed
//! `/assets/`, `index.html` with `no-cache`, and `index.html` for any other GET path outside
//! `/api` and `/_…` (client-side routing). Without the directory, such paths answer 404 saying so.

use std::path::{Component, Path, PathBuf};

use actix_files::NamedFile;
use actix_web::http::{Method, StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use service_kit::http::{Rejection, error_response, route_not_found};

const IMMUTABLE: &str = "public, max-age=31536000, immutable";

pub fn configure(config: &mut web::ServiceConfig, static_dir: Option<PathBuf>) {
    config
        .app_data(web::Data::new(StaticDir(static_dir)))
        .default_service(web::to(serve));
}

struct StaticDir(Option<PathBuf>);

async fn serve(request: HttpRequest, dir: web::Data<StaticDir>) -> HttpResponse {
    let path = request.path().to_owned();
    // `/_…` paths are the service's own (`/_metrics` lives on the internal listener): never
    // the app's page, which would answer them 200.
    if !matches!(*request.method(), Method::GET | Method::HEAD)
        || path == "/api"
        || path.starts_with("/api/")
        || path.starts_with("/_")
    {
        return route_not_found(request).await;
    }
    let Some(root) = dir
        .0
        .as_ref()
        .filter(|root| root.join("index.html").is_file())
    else {
        return error_response(&Rejection::new(
            StatusCode::NOT_FOUND,
            "web_app_not_built",
            "The web app is not built: build ingress-dash/web and set server.static_dir to its output directory.",
        ));
    };
    if let Some(file) = safe_join(root, &path).filter(|file| file.is_file()) {
        let cache = if path.starts_with("/assets/") {
            IMMUTABLE
        } else if file.ends_with("index.html") {
            "no-cache"
        } else {
            "public, max-age=3600"
        };
        return send(&request, &file, cache);
    }
    // A missing hashed asset is a real 404, not the app.
    if path.starts_with("/assets/") {
        return route_not_found(request).await;
    }
    send(&request, &root.join("index.html"), "no-cache")
}

fn send(request: &HttpRequest, file: &Path, cache_control: &'static str) -> HttpResponse {
    match NamedFile::open(file) {
        Ok(file) => {
            let mut response = file.use_last_modified(true).into_response(request);
            response.headers_mut().insert(
                header::CACHE_CONTROL,
                header::HeaderValue::from_static(cache_control),
            );
            response
        }
        Err(_) => error_response(&Rejection::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "The file could not be read.",
        )),
    }
}

/// `root` joined with the request path, refusing `..`, absolute parts and hidden tricks.
fn safe_join(root: &Path, request_path: &str) -> Option<PathBuf> {
    let relative = request_path.trim_start_matches('/');
    let mut path = root.to_path_buf();
    for component in Path::new(relative).components() {
        match component {
            Component::Normal(part) => path.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if relative.is_empty() {
        path.push("index.html");
    }
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traversal_is_refused() {
        let root = Path::new("/srv/web");
        assert_eq!(safe_join(root, "/../etc/passwd"), None);
        assert_eq!(
            safe_join(root, "/"),
            Some(PathBuf::from("/srv/web/index.html"))
        );
        assert_eq!(
            safe_join(root, "/assets/app-1.js"),
            Some(PathBuf::from("/srv/web/assets/app-1.js"))
        );
    }
}
