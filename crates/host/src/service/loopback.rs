//! Which URLs name this machine. Plain http is taken only there (for
//! development and tests): an issuer's keys and a client's metadata decide
//! who a caller is, so anywhere else they come over https.

/// Whether `url` names a loopback address or `localhost`.
pub(crate) fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// Whether `url` is https, or plain http on a loopback address: what the
/// host fetches who a caller is from.
///
/// ```
/// use index_host::loopback::is_secure_or_loopback;
/// assert!(is_secure_or_loopback("https://login.example.com/"));
/// assert!(is_secure_or_loopback("http://127.0.0.1:9000/"));
/// assert!(!is_secure_or_loopback("http://login.example.com/"));
/// assert!(!is_secure_or_loopback("not a URL"));
/// ```
pub fn is_secure_or_loopback(url: &str) -> bool {
    url::Url::parse(url)
        .is_ok_and(|url| url.scheme() == "https" || (url.scheme() == "http" && is_loopback(&url)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_the_loopback_addresses_and_localhost_only() {
        let at = |text: &str| url::Url::parse(text).is_ok_and(|url| is_loopback(&url));
        assert!(
            at("http://127.0.0.1:8080/")
                && at("http://127.9.9.9/")
                && at("http://[::1]/")
                && at("http://LOCALHOST/")
        );
        assert!(
            !at("http://10.0.0.1/")
                && !at("https://example.com/")
                && !at("http://localhost.example.com/")
        );
    }
}
