//! The relays' outbound client against raw TCP servers that misbehave in the ways a real
//! upstream can: stop in the middle of a body, never answer, refuse the connection.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use futures_util::StreamExt;
use service_kit::client_tls::{ClientTls, ClientTlsSettings};
use service_kit::relay_client::{RelayClient, RelayError, body_stream, empty_body};
use tokio::time::Instant;

/// A server that reads one request head and answers with `answer`, then keeps the connection
/// open without sending more. Returns its address.
fn stalling_server(answer: &'static [u8]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for mut stream in listener.incoming().flatten() {
            let mut head = [0u8; 4096];
            let _ = stream.read(&mut head);
            let _ = stream.write_all(answer);
            held.push(stream);
        }
    });
    address
}

/// `GET path` on `base` through a new client, with `deadline` for the answer's head.
async fn get(
    base: &str,
    path: &str,
    deadline: Instant,
) -> Result<http::Response<hyper::body::Incoming>, RelayError> {
    let tls = ClientTls::load(&ClientTlsSettings::default()).unwrap();
    let client = RelayClient::new(base, &tls, Duration::from_secs(2));
    let request = http::Request::get(client.uri(path, None).unwrap())
        .body(empty_body())
        .unwrap();
    client.send(request, deadline).await
}

#[tokio::test]
async fn a_body_cut_short_by_the_deadline_ends_in_an_error_not_a_short_success() {
    let address = stalling_server(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nfirst ten.");
    let deadline = Instant::now() + Duration::from_millis(500);
    let response = get(&address, "/big", deadline).await.unwrap();
    assert_eq!(response.status(), 200);
    let chunks: Vec<_> = body_stream(response.into_body(), Some(deadline))
        .collect()
        .await;
    assert_eq!(chunks.first(), Some(&Ok("first ten.".into())));
    assert_eq!(chunks.last(), Some(&Err(RelayError::Timeout)));
}

#[tokio::test]
async fn no_answer_before_the_deadline_is_a_timeout() {
    let address = stalling_server(b"");
    let deadline = Instant::now() + Duration::from_millis(300);
    let error = get(&address, "/", deadline).await.unwrap_err();
    assert_eq!(error, RelayError::Timeout);
}

#[tokio::test]
async fn a_refused_connection_is_a_connect_error() {
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let deadline = Instant::now() + Duration::from_secs(2);
    let error = get(&address, "/", deadline).await.unwrap_err();
    assert!(
        matches!(
            error,
            RelayError::Connect {
                untrusted_certificate: false,
                ..
            }
        ),
        "{error:?}"
    );
}
