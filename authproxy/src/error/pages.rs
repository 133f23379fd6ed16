//! The plain HTML pages a browser is shown instead of the JSON error body: self-contained (no
//! script, style sheet or image from anywhere), every piece of text escaped, never framed, never
//! cached, and never carrying an error's source (no stack trace, no provider response).

use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, HttpResponseBuilder};

/// The headers of every page: no caching, no framing, no sniffing, nothing loaded, no referrer.
pub(crate) fn page_response(status: StatusCode) -> HttpResponseBuilder {
    let mut response = HttpResponse::build(status);
    response
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        ))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"));
    response
}

/// A link on an error page: where it goes and what it says.
pub(crate) struct Link<'a> {
    pub href: &'a str,
    pub label: &'a str,
}

/// An error page: `<status> <title>` as the title, a heading, paragraphs and at most one link.
pub(crate) fn error_page(
    status: StatusCode,
    title: &str,
    paragraphs: &[&str],
    link: Option<Link<'_>>,
) -> HttpResponse {
    let mut body = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>{} {}</title></head><body><h1>{}</h1>",
        status.as_u16(),
        html_escape(title),
        html_escape(title)
    );
    for paragraph in paragraphs {
        body.push_str(&format!("<p>{}</p>", html_escape(paragraph)));
    }
    if let Some(link) = link {
        body.push_str(&format!(
            "<p><a href=\"{}\">{}</a></p>",
            html_escape(link.href),
            html_escape(link.label)
        ));
    }
    body.push_str("</body></html>\n");
    page_response(status).body(body)
}

pub(crate) fn html_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[actix_web::test]
    async fn text_and_links_are_escaped() {
        let response = error_page(
            StatusCode::UNAUTHORIZED,
            "Sign-in <failed>",
            &["a \"quoted\" & <b>bold</b> reason"],
            Some(Link {
                href: "/auth/start?rd=/a&b=\"x\"",
                label: "Try <again>",
            }),
        );
        let bytes = actix_web::body::to_bytes(response.into_body())
            .await
            .unwrap();
        let body = String::from_utf8(bytes.to_vec()).unwrap();
        assert!(!body.contains("<b>"), "{body}");
        assert!(body.contains("&lt;failed&gt;"), "{body}");
        assert!(body.contains("&amp; &lt;b&gt;bold"), "{body}");
        assert!(
            body.contains("href=\"/auth/start?rd=/a&amp;b=&quot;x&quot;\""),
            "{body}"
        );
    }
}
