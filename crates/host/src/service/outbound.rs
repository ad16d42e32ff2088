//! HTTP requests the host sends to URLs others name (a client's metadata
//! document, a webhook endpoint): never to a loopback, private or
//! link-local address unless the operator allows local ones, never
//! through a proxy, never following a redirect.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

/// Whether the host may send to `ip`: a public address, or any when
/// local (loopback, private, link-local) addresses are allowed.
pub(crate) fn reachable(ip: IpAddr, allow_local: bool) -> bool {
    if allow_local {
        return true;
    }
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            !(v4.is_private()
                || v4.is_loopback()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_documentation()
                || v4.is_multicast()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || (a == 198 && (b == 18 || b == 19))
                || (a == 192 && b == 0 && c == 0)
                || (a == 192 && b == 88 && c == 99)
                || a >= 240)
        }
        // Global unicast (2000::/3) only, less what carries or stands for
        // another address: 6to4 (2002::/16), Teredo (2001::/32) and the
        // documentation prefix (2001:db8::/32). NAT64, site-local, unique
        // local, link-local and the rest lie outside 2000::/3.
        IpAddr::V6(v6) => {
            let [first, second, ..] = v6.segments();
            (first & 0xe000) == 0x2000
                && first != 0x2002
                && !(first == 0x2001 && (second == 0 || second == 0x0db8))
        }
    }
}

/// Resolves names keeping only the addresses the host may send to: a name
/// that resolves to a private address is refused however it is spelled.
struct PublicOnly {
    allow_local: bool,
}

impl reqwest::dns::Resolve for PublicOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow_local = self.allow_local;
        Box::pin(async move {
            let found = tokio::net::lookup_host((name.as_str(), 0)).await?;
            let kept: Vec<SocketAddr> = found
                .filter(|address| reachable(address.ip(), allow_local))
                .collect();
            if kept.is_empty() {
                return Err(NO_PUBLIC_ADDRESS.into());
            }
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// What a name with no address the host may send to fails with.
pub(crate) const NO_PUBLIC_ADDRESS: &str = "the host has no public address";

/// Whether `url`'s host, when it is an address written in the URL (which
/// no resolver sees), is one the host may send to.
pub(crate) fn literal_allowed(url: &reqwest::Url, allow_local: bool) -> bool {
    let literal = match url.host() {
        Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
        _ => None,
    };
    literal.is_none_or(|ip| reachable(ip, allow_local))
}

/// A client that gives up after `timeout`, resolves names to the
/// addresses the host may send to only, and follows no redirect. No
/// proxy: a proxy would resolve the name itself, past that resolver.
pub(crate) fn client(timeout: Duration, allow_local: bool) -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .dns_resolver(Arc::new(PublicOnly { allow_local }))
        .build()
}
