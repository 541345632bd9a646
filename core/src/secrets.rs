//! Secrets at rest: provider account credentials and payment tokens.
//!
//! With a key from the embedding application ([`crate::ShippingBuilder::secret_key`])
//! each secret value is sealed with XChaCha20-Poly1305 before it is written: a random
//! 24-byte nonce per value, and the customer and field as associated data, so that a
//! sealed value copied to another customer or field does not open. The stored text is
//! `sealed1:` and the base64 of nonce and ciphertext. Without a key, secrets are stored
//! as they were sent; README and [`crate::Shipping::export_database`] say so.
//!
//! [`Secret`] is the type of a secret in a request: its `Debug` never shows the value.

use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// What a sealed value starts with (and the version of its form).
const SEALED: &str = "sealed1:";
/// XChaCha20's nonce: long enough to be drawn at random for every value.
const NONCE_LEN: usize = 24;

/// A secret value of a request (a password, a payment token, a provider credential):
/// serialised as the plain string it is, but shown as `"********"` by `Debug`, so that
/// a logged request does not carry it.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// The value itself, for the code that needs it (hashing, sealing).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", crate::accounts::MASK)
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret(value.to_string())
    }
}

/// True if the request field at `path` (as `serde_path_to_error` writes it) holds a
/// secret: a password, a payment token, or any provider account field.
pub(crate) fn is_secret_field(path: &str) -> bool {
    let last = path.rsplit('.').next().unwrap_or(path);
    matches!(last, "password" | "processorCardTokenId" | "<processor>CardTokenId") || path.split('.').any(|part| part == "accountFields")
}

/// Seals and opens secrets with the application's key.
pub(crate) struct Sealer {
    cipher: XChaCha20Poly1305,
}

impl Sealer {
    /// A sealer for the 32-byte `key`.
    pub(crate) fn new(key: &[u8; 32]) -> Sealer {
        Sealer { cipher: XChaCha20Poly1305::new(key.into()) }
    }

    /// `plain` sealed for `context` (the customer and field it belongs to).
    fn seal(&self, context: &str, plain: &str) -> Result<String> {
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::getrandom(&mut nonce).map_err(|e| Error::internal(format!("no randomness to seal a secret: {e}")))?;
        let sealed = self
            .cipher
            .encrypt(XNonce::from_slice(&nonce), Payload { msg: plain.as_bytes(), aad: context.as_bytes() })
            .map_err(|_| Error::internal("a secret could not be sealed"))?;
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&sealed);
        Ok(format!("{SEALED}{}", base64::engine::general_purpose::STANDARD.encode(bytes)))
    }

    /// The plain value of `stored`, sealed for `context`.
    fn open(&self, context: &str, stored: &str) -> Result<String> {
        let refused = || Error::internal(format!("a secret of {context} does not open with this key"));
        let bytes = stored
            .strip_prefix(SEALED)
            .and_then(|b64| base64::engine::general_purpose::STANDARD.decode(b64).ok())
            .filter(|bytes| bytes.len() > NONCE_LEN)
            .ok_or_else(refused)?;
        let (nonce, sealed) = bytes.split_at(NONCE_LEN);
        let plain =
            self.cipher.decrypt(XNonce::from_slice(nonce), Payload { msg: sealed, aad: context.as_bytes() }).map_err(|_| refused())?;
        String::from_utf8(plain).map_err(|_| refused())
    }
}

/// What is stored for the secret `plain` of `context`: sealed with a key, else itself.
///
/// # Errors
/// `INTERNAL` when there is no randomness for a nonce.
pub(crate) fn store(sealer: Option<&Sealer>, context: &str, plain: &str) -> Result<String> {
    match sealer {
        Some(sealer) => sealer.seal(context, plain),
        None => Ok(plain.to_string()),
    }
}

/// The plain value of the stored secret `stored` of `context`.
///
/// # Errors
/// `INTERNAL` when it is sealed and there is no key, or another key, or it was altered
/// (the message never contains the value).
pub(crate) fn reveal(sealer: Option<&Sealer>, context: &str, stored: &str) -> Result<String> {
    match (sealer, stored.starts_with(SEALED)) {
        (Some(sealer), true) => sealer.open(context, stored),
        (None, true) => Err(Error::internal(format!("a secret of {context} is sealed, and this service was opened without a key"))),
        (_, false) => Ok(stored.to_string()),
    }
}

/// The associated data of a provider account field.
pub(crate) fn account_field_context(customer_id: &str, field: &str) -> String {
    format!("customer {customer_id} provider account field {field}")
}

/// The associated data of a payment token.
pub(crate) fn payment_token_context(customer_id: &str) -> String {
    format!("customer {customer_id} payment token")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_secret_opens_only_with_its_key_and_context() {
        let sealer = Sealer::new(&[7; 32]);
        let sealed = store(Some(&sealer), "customer C1 payment token", "tok_visa").unwrap();
        assert!(sealed.starts_with(SEALED) && !sealed.contains("tok_visa"), "{sealed}");
        assert_ne!(sealed, store(Some(&sealer), "customer C1 payment token", "tok_visa").unwrap(), "a fresh nonce each time");
        assert_eq!(reveal(Some(&sealer), "customer C1 payment token", &sealed).unwrap(), "tok_visa");
        for (key, context) in [([8; 32], "customer C1 payment token"), ([7; 32], "customer C2 payment token")] {
            let e = reveal(Some(&Sealer::new(&key)), context, &sealed).unwrap_err();
            assert!(!e.to_string().contains("tok_visa"), "{e}");
        }
        assert!(reveal(None, "customer C1 payment token", &sealed).is_err());
        let mut altered = sealed.clone();
        altered.replace_range(sealed.len() - 2.., "AA");
        assert!(reveal(Some(&sealer), "customer C1 payment token", &altered).is_err());
    }

    #[test]
    fn without_a_key_secrets_are_stored_as_sent() {
        assert_eq!(store(None, "c", "tok_visa").unwrap(), "tok_visa");
        assert_eq!(reveal(None, "c", "tok_visa").unwrap(), "tok_visa");
    }

    #[test]
    fn debug_never_shows_a_secret() {
        let secret = Secret::from("s3cret-pass");
        assert_eq!(format!("{secret:?}"), "\"********\"");
        assert_eq!(secret.expose(), "s3cret-pass");
    }
}
