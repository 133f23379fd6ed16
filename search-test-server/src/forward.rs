//! The way to the upstream: a request sent on unchanged and the upstream's answer passed back.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

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
