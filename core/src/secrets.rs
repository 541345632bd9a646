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
use crate::store::{args, Tx};

/// What a masked credential looks like: a fixed run that does not reveal the length.
pub const MASK: &str = "********";

/// The length of a secret key, and of a key file: 32 bytes.
pub const SECRET_KEY_LEN: usize = 32;

/// Reads a secret key file for [`crate::ShippingBuilder::secret_key`]: exactly
/// [`SECRET_KEY_LEN`] bytes, as [`create_secret_key_file`] writes them.
///
/// # Errors
/// When the file cannot be read or does not hold exactly 32 bytes; the message names the
/// file and never shows its content.
pub fn read_secret_key_file(path: &std::path::Path) -> std::io::Result<[u8; SECRET_KEY_LEN]> {
    use std::io::Read as _;
    let failed = |e: std::io::Error| std::io::Error::new(e.kind(), format!("cannot read the secret key file {}: {e}", path.display()));
    let mut bytes = Vec::with_capacity(SECRET_KEY_LEN + 1);
    // One byte more than a key tells a longer file without reading all of it.
    std::fs::File::open(path).and_then(|file| file.take(SECRET_KEY_LEN as u64 + 1).read_to_end(&mut bytes)).map_err(failed)?;
    <[u8; SECRET_KEY_LEN]>::try_from(bytes.as_slice()).map_err(|_| {
        let found = if bytes.len() > SECRET_KEY_LEN { "more".to_string() } else { bytes.len().to_string() };
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("the secret key file {} must hold exactly {SECRET_KEY_LEN} bytes, found {found}", path.display()),
        )
    })
}

/// Creates a secret key file at `path`: [`SECRET_KEY_LEN`] random bytes, readable and
/// writable by its owner alone (mode 0600 on Unix), written to the disk before it
/// returns the key. An existing file is never replaced.
///
/// # Errors
/// When `path` exists, cannot be created or written, or there is no randomness; the
/// message names the file.
pub fn create_secret_key_file(path: &std::path::Path) -> std::io::Result<[u8; SECRET_KEY_LEN]> {
    use std::io::Write as _;
    let failed = |e: std::io::Error| std::io::Error::new(e.kind(), format!("cannot create the secret key file {}: {e}", path.display()));
    let mut key = [0u8; SECRET_KEY_LEN];
    getrandom::getrandom(&mut key).map_err(|e| failed(std::io::Error::other(e.to_string())))?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(failed)?;
    file.write_all(&key).and_then(|()| file.sync_all()).map_err(failed)?;
    Ok(key)
}

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
        write!(f, "{:?}", MASK)
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

/// What to keep for a secret already stored as `stored`: with a key, a value stored in
/// clear (before the service had one) is sealed now; anything else is kept as it is.
///
/// # Errors
/// As [`store`].
pub(crate) fn keep(sealer: Option<&Sealer>, context: &str, stored: &str) -> Result<String> {
    match sealer {
        Some(sealer) if !stored.starts_with(SEALED) => sealer.seal(context, stored),
        _ => Ok(stored.to_string()),
    }
}

/// Seals, in the caller's transaction, every provider account field, payment token and
/// webhook secret stored in clear (before the service had a key), and returns how many it sealed.
/// The rows are rewritten with `secure_delete` on, so that SQLite overwrites the clear
/// text it frees instead of leaving it in the file's free space.
///
/// # Errors
/// `INTERNAL` when a value sealed before does not open with `sealer` (the database was
/// sealed with another key: the message says how many, and names no value), or a stored
/// row is unreadable.
pub(crate) fn seal_stored(tx: &Tx<'_>, sealer: &Sealer) -> Result<usize> {
    let mut sealed = 0usize;
    let mut foreign = 0usize;
    let mut check = |context: &str, stored: &str| -> Result<Option<String>> {
        if stored.starts_with(SEALED) {
            foreign += usize::from(sealer.open(context, stored).is_err());
            return Ok(None);
        }
        sealed += 1;
        sealer.seal(context, stored).map(Some)
    };
    let mut tokens = Vec::new();
    tx.query("SELECT customer_id, token FROM payment_methods")?.each(args![], |r| {
        let (customer_id, token): (String, String) = (r.get(0)?, r.get(1)?);
        if let Some(new) = check(&payment_token_context(&customer_id), &token)? {
            tokens.push((customer_id, new));
        }
        Ok(())
    })?;
    let mut accounts = Vec::new();
    let rows = tx.rows("SELECT customer_id, id, fields FROM provider_accounts", args![], |r| {
        Ok((r.get::<String>(0)?, r.get::<String>(1)?, r.get::<String>(2)?))
    })?;
    for (customer_id, id, fields) in rows {
        let mut fields: std::collections::BTreeMap<String, String> = serde_json::from_str(&fields)
            .map_err(|e| Error::internal(format!("the stored fields of provider account {id} are unreadable: {e}")))?;
        let mut changed = false;
        for (name, value) in &mut fields {
            if let Some(new) = check(&account_field_context(&customer_id, name), value)? {
                *value = new;
                changed = true;
            }
        }
        if changed {
            let fields = serde_json::to_string(&fields)
                .map_err(|e| Error::internal(format!("the sealed fields of provider account {id} could not be written: {e}")))?;
            accounts.push((customer_id, id, fields));
        }
    }
    #[cfg(feature = "webhooks")]
    let webhooks = {
        let rows = tx.rows("SELECT customer_id, id, secret, previous_secret FROM webhooks", args![], |r| {
            Ok((r.get::<String>(0)?, r.get::<String>(1)?, r.get::<String>(2)?, r.get::<Option<String>>(3)?))
        })?;
        let mut sealed_rows = Vec::new();
        for (customer_id, id, secret, previous) in rows {
            let context = webhook_secret_context(&customer_id, &id);
            let secret = check(&context, &secret)?;
            let previous = match &previous {
                Some(previous) => check(&context, previous)?,
                None => None,
            };
            if secret.is_some() || previous.is_some() {
                sealed_rows.push((customer_id, id, secret, previous));
            }
        }
        sealed_rows
    };
    #[cfg(not(feature = "webhooks"))]
    let webhooks: Vec<(String, String, Option<String>, Option<String>)> = Vec::new();
    if foreign > 0 {
        return Err(Error::internal(format!(
            "{foreign} stored secrets do not open with this key: the database was sealed with another key; give that one"
        )));
    }
    if tokens.is_empty() && accounts.is_empty() && webhooks.is_empty() {
        return Ok(0);
    }
    crate::store::secure_delete(tx, true)?;
    let written = (|| -> Result<()> {
        for (customer_id, token) in &tokens {
            tx.execute("UPDATE payment_methods SET token = ?2 WHERE customer_id = ?1", args![customer_id, token])?;
        }
        for (customer_id, id, fields) in &accounts {
            tx.execute("UPDATE provider_accounts SET fields = ?3 WHERE customer_id = ?1 AND id = ?2", args![customer_id, id, fields])?;
        }
        for (customer_id, id, secret, previous) in &webhooks {
            tx.execute(
                "UPDATE webhooks SET secret = COALESCE(?3, secret), previous_secret = COALESCE(?4, previous_secret)
                 WHERE customer_id = ?1 AND id = ?2",
                args![customer_id, id, secret.as_deref(), previous.as_deref()],
            )?;
        }
        Ok(())
    })();
    crate::store::secure_delete(tx, false)?;
    written.map(|()| sealed)
}

/// The associated data of a provider account field.
pub(crate) fn account_field_context(customer_id: &str, field: &str) -> String {
    format!("customer {customer_id} provider account field {field}")
}

/// The associated data of a webhook endpoint's signing secret.
#[cfg(feature = "webhooks")]
pub(crate) fn webhook_secret_context(customer_id: &str, webhook_id: &str) -> String {
    format!("customer {customer_id} webhook {webhook_id} secret")
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
