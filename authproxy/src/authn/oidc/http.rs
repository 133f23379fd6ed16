//! `openidconnect`'s HTTP client interface over our reqwest 0.13 client (its own `reqwest`
//! feature would bring in a second reqwest). The client must not follow redirects: a provider
//! answering a token or key request with a redirect would otherwise send the client secret or
//! the authorization code wherever the redirect points.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use openidconnect::{AsyncHttpClient, HttpRequest, HttpResponse};

/// Longest one call to the provider may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum ProviderHttpError {
    #[error("the identity provider could not be reached: {0}")]
    Transport(#[from] reqwest::Error),
    #[error("the identity provider's response could not be read: {0}")]
    Response(#[from] openidconnect::http::Error),
}

#[derive(Clone)]
pub struct ProviderHttp(reqwest::Client);

impl ProviderHttp {
    pub fn new() -> reqwest::Result<Self> {
        service_kit::install_crypto_provider();
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(5))
            .timeout(CALL_TIMEOUT)
            .build()
            .map(Self)
    }

    pub fn client(&self) -> &reqwest::Client {
        &self.0
    }
}

impl<'c> AsyncHttpClient<'c> for ProviderHttp {
    type Error = ProviderHttpError;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, Self::Error>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(async move {
            let response = self.0.execute(request.try_into()?).await?;
            let mut builder = openidconnect::http::Response::builder().status(response.status());
            for (name, value) in response.headers() {
                builder = builder.header(name, value);
            }
            let body = response.bytes().await?;
            Ok(builder.body(body.to_vec())?)
        })
    }
}
