//! The way to osmem (or, for the [`crate::Proxy`], to a real node): requests forwarded
//! unchanged, and the reads and writes the simulated APIs make themselves.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::Value;

use crate::Shared;
use crate::wire::{Reply, upstream_error};

/// Sends the request to osmem as it came (method, path, query, body, content type) and returns
/// osmem's answer (status, content type, body).
pub(crate) async fn forward(
    shared: &Shared,
    request: &HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    forward_to(&shared.client, &shared.osmem, None, request, body).await
}

/// Sends the request as it came (method, path, query, body, content type, accept,
/// authorization) to `base`, with `basic_auth` when the request has no authorization of its
/// own, and returns the answer as it was (status, content type, body); 502 when nothing answers.
pub(crate) async fn forward_to(
    client: &reqwest::Client,
    base: &str,
    basic_auth: Option<&(String, String)>,
    request: &HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let mut url = format!("{base}{}", request.path());
    if !request.query_string().is_empty() {
        url = format!("{url}?{}", request.query_string());
    }
    let Ok(method) = reqwest::Method::from_bytes(request.method().as_str().as_bytes()) else {
        return HttpResponse::MethodNotAllowed().finish();
    };
    let mut upstream = client.request(method, url).body(body.to_vec());
    for name in ["content-type", "accept", "authorization"] {
        if let Some(value) = request.headers().get(name) {
            upstream = upstream.header(name, value.as_bytes());
        }
    }
    if let Some((user, password)) = basic_auth
        && !request.headers().contains_key("authorization")
    {
        upstream = upstream.basic_auth(user, Some(password));
    }
    match upstream.send().await {
        Ok(response) => {
            let status =
                StatusCode::from_u16(response.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
            let mut answer = HttpResponse::build(status);
            if let Some(content_type) = response.headers().get("content-type") {
                answer.insert_header(("content-type", content_type.as_bytes()));
            }
            if request.method() == actix_web::http::Method::HEAD {
                // No body, but the length the upstream gave, as a HEAD answer has it.
                let length = response
                    .headers()
                    .get("content-length")
                    .and_then(|value| value.to_str().ok()?.parse().ok());
                return answer.body(HeadBody(length.unwrap_or(0)));
            }
            match response.bytes().await {
                Ok(bytes) => answer.body(bytes),
                Err(error) => HttpResponse::BadGateway().body(error.to_string()),
            }
        }
        Err(error) => HttpResponse::BadGateway().body(error.to_string()),
    }
}

/// The body of an answer to HEAD: the length of the body a GET would have, and no bytes.
struct HeadBody(u64);

impl actix_web::body::MessageBody for HeadBody {
    type Error = std::convert::Infallible;

    fn size(&self) -> actix_web::body::BodySize {
        actix_web::body::BodySize::Sized(self.0)
    }

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<web::Bytes, Self::Error>>> {
        std::task::Poll::Ready(None)
    }
}

/// An answer of osmem: status and JSON body (`Null` when the body is not JSON).
pub(crate) struct Upstream {
    pub(crate) status: u16,
    pub(crate) body: Value,
}

impl Upstream {
    pub(crate) fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The answer passed on to the client as osmem gave it.
    pub(crate) fn relay(&self) -> crate::wire::Reply {
        crate::wire::json_response(self.status, &self.body)
    }
}

/// `method path_and_query` on osmem with an optional JSON body.
pub(crate) async fn call(
    shared: &Shared,
    method: &str,
    path_and_query: &str,
    body: Option<&Value>,
) -> Result<Upstream, Reply> {
    let method = reqwest::Method::from_bytes(method.as_bytes()).map_err(upstream_error)?;
    let mut request = shared
        .client
        .request(method, format!("{}{path_and_query}", shared.osmem));
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_string());
    }
    send(request).await
}

/// A `_bulk` call with an NDJSON body.
pub(crate) async fn bulk(shared: &Shared, ndjson: String) -> Result<Upstream, Reply> {
    let request = shared
        .client
        .post(format!("{}/_bulk?refresh=true", shared.osmem))
        .header("content-type", "application/x-ndjson")
        .body(ndjson);
    send(request).await
}

async fn send(request: reqwest::RequestBuilder) -> Result<Upstream, Reply> {
    let response = request.send().await.map_err(upstream_error)?;
    let status = response.status().as_u16();
    let bytes = response.bytes().await.map_err(upstream_error)?;
    Ok(Upstream {
        status,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    })
}

/// `GET path_and_query` on osmem, which must answer 2xx.
pub(crate) async fn get_ok(shared: &Shared, path_and_query: &str) -> Result<Value, Reply> {
    let answer = call(shared, "GET", path_and_query, None).await?;
    if answer.ok() {
        Ok(answer.body)
    } else {
        Err(answer.relay())
    }
}
