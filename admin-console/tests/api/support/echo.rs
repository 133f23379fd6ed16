//! An HTTP server that answers every request with what it received (method, path, query,
//! headers, body length), so tests can see exactly what the relay sent to the cluster.

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use serde_json::json;

pub struct EchoServer {
    pub url: String,
    handle: actix_web::dev::ServerHandle,
}

impl EchoServer {
    pub fn start() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let server = HttpServer::new(|| App::new().default_service(web::to(echo)))
                    .workers(1)
                    .disable_signals()
                    .listen(listener)
                    .unwrap()
                    .run();
                sender.send(server.handle()).unwrap();
                let _ = server.await;
            });
        });
        Self {
            url: format!("http://127.0.0.1:{port}"),
            handle: receiver.recv().unwrap(),
        }
    }
}

impl Drop for EchoServer {
    fn drop(&mut self) {
        drop(self.handle.stop(false));
    }
}

async fn echo(request: HttpRequest, body: web::Bytes) -> HttpResponse {
    let headers: serde_json::Map<String, serde_json::Value> = request
        .headers()
        .iter()
        .map(|(name, value)| (name.to_string(), json!(value.to_str().unwrap_or("?"))))
        .collect();
    HttpResponse::Ok().json(json!({
        "method": request.method().as_str(),
        "path": request.path(),
        "query": request.query_string(),
        "headers": headers,
        "bodyLength": body.len(),
    }))
}
