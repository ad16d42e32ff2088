//! Standard Webhooks signatures: `v1,` and the base64 of HMAC-SHA-256,
//! keyed by the secret's decoded bytes, over `id.timestamp.body`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use index_negotiation_store::WebhookSecret;

/// How many random bytes a new secret holds (Standard Webhooks asks for
/// 24 to 64).
const SECRET_BYTES: usize = 32;

/// A new secret, `whsec_` and the base64 of random bytes; `None` when
/// the system has no randomness to give.
///
/// ```
/// let secret = index_host::webhooks::new_secret().unwrap();
/// assert!(secret.expose().starts_with("whsec_"));
/// ```
pub fn new_secret() -> Option<WebhookSecret> {
    let mut bytes = [0u8; SECRET_BYTES];
    getrandom::fill(&mut bytes).ok()?;
    Some(WebhookSecret::new(format!(
        "{}{}",
        WebhookSecret::PREFIX,
        STANDARD.encode(bytes)
    )))
}

/// The signature of a delivery of `body` as event `id` at `timestamp`
/// (seconds since the epoch) under `secret`, or `None` for a secret that
/// is not `whsec_` and base64 (which no secret this host made is).
///
/// ```
/// use index_host::webhooks::sign;
/// use index_negotiation_store::WebhookSecret;
/// // Standard Webhooks' own example.
/// let secret = WebhookSecret::new("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
/// let signed = sign(&secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, r#"{"test": 2432232314}"#);
/// assert_eq!(signed.as_deref(), Some("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="));
/// assert_eq!(sign(&WebhookSecret::new("not base64!"), "msg_1", 0, "{}"), None);
/// ```
pub fn sign(secret: &WebhookSecret, id: &str, timestamp: u64, body: &str) -> Option<String> {
    let encoded = secret.expose();
    let key = STANDARD
        .decode(
            encoded
                .strip_prefix(WebhookSecret::PREFIX)
                .unwrap_or(encoded),
        )
        .ok()?;
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&key).ok()?;
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body.as_bytes());
    Some(format!(
        "v1,{}",
        STANDARD.encode(mac.finalize().into_bytes())
    ))
}

/// The `webhook-signature` header: one signature per secret, separated by
/// spaces, so a receiver that holds either secret of a rotation verifies.
pub(crate) fn signature_header(
    secrets: &[&WebhookSecret],
    id: &str,
    timestamp: u64,
    body: &str,
) -> Option<String> {
    let signatures: Option<Vec<String>> = secrets
        .iter()
        .map(|secret| sign(secret, id, timestamp, body))
        .collect();
    Some(signatures?.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_secret_signs_and_each_rotation_secret_signs_alike() {
        let (Some(old), Some(new)) = (new_secret(), new_secret()) else {
            panic!("no randomness");
        };
        assert!(old.expose().starts_with("whsec_") && old != new);
        let header = signature_header(&[&new, &old], "msg_1", 5, "{}").unwrap();
        let parts: Vec<&str> = header.split(' ').collect();
        assert_eq!(parts.len(), 2);
        assert_eq!(Some(parts[0].to_owned()), sign(&new, "msg_1", 5, "{}"));
        assert_eq!(Some(parts[1].to_owned()), sign(&old, "msg_1", 5, "{}"));
        assert_ne!(sign(&new, "msg_1", 6, "{}"), sign(&new, "msg_1", 5, "{}"));
    }
}
