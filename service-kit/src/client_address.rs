//! The client's address behind reverse proxies: `X-Forwarded-For` is believed only when the TCP
//! peer is one of the configured trusted proxies (`server.trusted_proxies`), so a client cannot
//! choose the address it is rate-limited or logged under.

use std::net::IpAddr;

use actix_web::http::header::HeaderMap;
use ipnet::IpNet;

use serde::de::{Deserialize, Deserializer, Error as _};

/// `server.trusted_proxies`, compiled as the configuration is read: each entry is an IP address
/// or a CIDR range, and an entry that is neither is a configuration problem named
/// `server.trusted_proxies[<index>]` (the loader names every bad entry, not just the first).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(transparent)]
pub struct TrustedProxies(Vec<TrustedProxy>);

/// One entry of [`TrustedProxies`].
#[derive(Debug, Clone, Copy)]
struct TrustedProxy(IpNet);

impl<'de> Deserialize<'de> for TrustedProxy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let entry = String::deserialize(deserializer)?;
        TrustedProxy::parse(&entry).ok_or_else(|| D::Error::custom(BAD_ENTRY))
    }
}

const BAD_ENTRY: &str = "must be an IP address or a CIDR range such as 10.0.0.0/8";

impl TrustedProxy {
    /// `10.0.0.0/8`, `::1/128` or a bare address.
    fn parse(entry: &str) -> Option<Self> {
        let entry = entry.trim();
        entry
            .parse::<IpNet>()
            .ok()
            .or_else(|| entry.parse::<IpAddr>().ok().map(IpNet::from))
            .map(Self)
    }
}

impl TrustedProxies {
    /// The entries compiled, or the first that is neither an address nor a CIDR range (for
    /// code and tests; the configuration is read through `Deserialize`).
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<Self, String> {
        entries
            .iter()
            .map(|entry| {
                TrustedProxy::parse(entry.as_ref())
                    .ok_or_else(|| format!("{:?} {BAD_ENTRY}", entry.as_ref()))
            })
            .collect::<Result<_, _>>()
            .map(Self)
    }

    /// No proxy is trusted: forwarded headers are never believed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, address: IpAddr) -> bool {
        let address = canonical(address);
        self.0
            .iter()
            .any(|TrustedProxy(net)| net.contains(&address))
    }

    /// The client's address: the peer, or, when the peer is trusted, the right-most address of
    /// `X-Forwarded-For` that is not itself a trusted proxy (left-most entries are whatever the
    /// client chose to send, so they are not believed).
    pub fn client_address(&self, peer: Option<IpAddr>, headers: &HeaderMap) -> Option<IpAddr> {
        let peer = peer.map(canonical)?;
        if !self.contains(peer) {
            return Some(peer);
        }
        let mut client = peer;
        let chain = headers
            .get_all("x-forwarded-for")
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(str::trim)
            .collect::<Vec<_>>();
        for hop in chain.iter().rev() {
            let Some(address) = parse_hop(hop) else {
                break;
            };
            client = address;
            if !self.contains(address) {
                break;
            }
        }
        Some(client)
    }

    /// The request id a trusted proxy sent: `X-Request-Id` given once, 1 to 128 visible ASCII
    /// characters, from a peer in `server.trusted_proxies`. `None` from any other peer (a
    /// client does not choose the id its request is logged under) or for any other value; the
    /// service then makes its own.
    pub fn request_id<'h>(&self, peer: Option<IpAddr>, headers: &'h HeaderMap) -> Option<&'h str> {
        if !self.contains(peer?) {
            return None;
        }
        let mut values = headers.get_all("x-request-id");
        let value = values.next()?;
        if values.next().is_some() {
            return None;
        }
        value
            .to_str()
            .ok()
            .filter(|id| (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_graphic()))
    }
}

/// `1.2.3.4`, `1.2.3.4:80`, `[::1]:80`, `::1`; `unknown` and obfuscated identifiers are `None`.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    if let Ok(address) = hop.parse::<IpAddr>() {
        return Some(canonical(address));
    }
    hop.parse::<std::net::SocketAddr>()
        .ok()
        .map(|socket| canonical(socket.ip()))
}

/// IPv4-mapped IPv6 (`::ffff:10.0.0.1`) compares as the IPv4 address.
pub fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::{HeaderName, HeaderValue};

    use super::*;

    fn ip(text: &str) -> Option<IpAddr> {
        Some(text.parse().unwrap())
    }

    #[derive(Debug, Default, serde::Deserialize)]
    #[serde(default)]
    struct Server {
        trusted_proxies: TrustedProxies,
    }

    #[derive(Debug, Default, serde::Deserialize)]
    #[serde(default)]
    struct Sample {
        server: Server,
    }

    impl crate::config::Validate for Sample {
        fn validate(&self, _: &mut crate::config::ConfigProblems) {}
    }

    #[test]
    fn reading_the_configuration_names_each_bad_entry_and_compiles_the_good_ones() {
        let load = |yaml: &str| {
            crate::config::ConfigLoader::new("SAMPLE")
                .with_env(Default::default())
                .load_str::<Sample>(yaml)
        };
        let yaml =
            "server:\n  trusted_proxies: [10.0.0.0/8, not-an-address, ' ::1 ', 10.0.0.0/33]\n";
        let text = load(yaml).unwrap_err().to_string();
        assert!(text.contains("server.trusted_proxies[1]"), "{text}");
        assert!(text.contains("server.trusted_proxies[3]"), "{text}");
        assert!(text.contains("CIDR range"), "{text}");
        assert!(!text.contains("[0]") && !text.contains("[2]"), "{text}");
        assert!(
            !text.contains("not-an-address"),
            "values are not echoed: {text}"
        );
        let trusted = load("server:\n  trusted_proxies: [10.0.0.0/8, ' ::1 ']\n")
            .unwrap()
            .server
            .trusted_proxies;
        assert!(trusted.contains("10.1.2.3".parse().unwrap()));
        assert!(trusted.contains("::1".parse().unwrap()));
        assert!(!trusted.contains("11.0.0.1".parse().unwrap()));
        assert!(TrustedProxies::parse(&["10.0.0.0/33"]).is_err());
    }

    #[test]
    fn forwarded_for_is_believed_only_from_trusted_peers() {
        let trusted = TrustedProxies::parse(&["10.0.0.0/8"]).unwrap();
        let mut sent = HeaderMap::new();
        sent.insert(
            HeaderName::from_static("x-forwarded-for"),
            HeaderValue::from_static("6.6.6.6, 1.2.3.4"),
        );
        assert_eq!(trusted.client_address(ip("10.1.1.1"), &sent), ip("1.2.3.4"));
        assert_eq!(trusted.client_address(ip("8.8.8.8"), &sent), ip("8.8.8.8"));
        let mut through_two = HeaderMap::new();
        through_two.insert(
            HeaderName::from_static("x-forwarded-for"),
            HeaderValue::from_static("1.2.3.4, 10.2.2.2"),
        );
        assert_eq!(
            trusted.client_address(ip("10.1.1.1"), &through_two),
            ip("1.2.3.4")
        );
        assert!(trusted.contains("::ffff:10.0.0.1".parse().unwrap()));
    }

    #[test]
    fn a_request_id_is_believed_only_from_trusted_peers() {
        let trusted = TrustedProxies::parse(&["10.0.0.0/8"]).unwrap();
        let id = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.append(
                HeaderName::from_static("x-request-id"),
                HeaderValue::from_static(value),
            );
            headers
        };
        let sent = id("front-1");
        assert_eq!(trusted.request_id(ip("10.1.1.1"), &sent), Some("front-1"));
        assert_eq!(trusted.request_id(ip("8.8.8.8"), &sent), None);
        assert_eq!(trusted.request_id(None, &sent), None);
        for bad in ["two words", "", "tab\there"] {
            assert_eq!(trusted.request_id(ip("10.1.1.1"), &id(bad)), None, "{bad}");
        }
        let mut twice = id("a");
        twice.append(
            HeaderName::from_static("x-request-id"),
            HeaderValue::from_static("b"),
        );
        assert_eq!(trusted.request_id(ip("10.1.1.1"), &twice), None);
        let long: &'static str = "x".repeat(129).leak();
        assert_eq!(trusted.request_id(ip("10.1.1.1"), &id(long)), None);
    }
}
