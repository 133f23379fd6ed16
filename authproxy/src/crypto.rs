//! Encryption of cached credentials: XChaCha20-Poly1305 with a random 24-byte nonce per entry
//! and the cache key as associated data, so an entry moved to another key does not decrypt.

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

const NONCE_LEN: usize = 24;

#[derive(Clone)]
pub struct CredentialCipher {
    cipher: XChaCha20Poly1305,
}

impl std::fmt::Debug for CredentialCipher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CredentialCipher(..)")
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CipherError {
    #[error("the encryption key must be exactly 32 bytes")]
    KeyLength,
}

impl CredentialCipher {
    pub fn new(key: &[u8]) -> Result<Self, CipherError> {
        let cipher = XChaCha20Poly1305::new_from_slice(key).map_err(|_| CipherError::KeyLength)?;
        Ok(Self { cipher })
    }

    /// A cipher under a random key, for a memory cache no other process reads.
    pub fn ephemeral() -> Self {
        let key: [u8; 32] = rand::random();
        Self::new(&key).expect("32 bytes is the key length")
    }

    /// `nonce || ciphertext+tag`, bound to `key_name`.
    pub fn seal(&self, key_name: &str, plaintext: &[u8]) -> Vec<u8> {
        let nonce_bytes: [u8; NONCE_LEN] = rand::random();
        let nonce = XNonce::from(nonce_bytes);
        let sealed = self
            .cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: plaintext,
                    aad: key_name.as_bytes(),
                },
            )
            .expect("XChaCha20-Poly1305 seals any message shorter than 256 GiB");
        let mut out = Vec::with_capacity(NONCE_LEN + sealed.len());
        out.extend_from_slice(&nonce_bytes);
        out.extend_from_slice(&sealed);
        out
    }

    /// The plaintext, or `None` when the entry is truncated, tampered with, sealed under another
    /// key or for another key name.
    pub fn open(&self, key_name: &str, sealed: &[u8]) -> Option<Vec<u8>> {
        if sealed.len() < NONCE_LEN {
            return None;
        }
        let (nonce, ciphertext) = sealed.split_at(NONCE_LEN);
        let nonce = XNonce::try_from(nonce).ok()?;
        self.cipher
            .decrypt(
                &nonce,
                Payload {
                    msg: ciphertext,
                    aad: key_name.as_bytes(),
                },
            )
            .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_every_tampering_fails() {
        let cipher = CredentialCipher::new(&[7u8; 32]).unwrap();
        let sealed = cipher.seal("cred:ann", b"secret");
        assert_eq!(
            cipher.open("cred:ann", &sealed).as_deref(),
            Some(&b"secret"[..])
        );
        assert_eq!(
            cipher.open("cred:bob", &sealed),
            None,
            "bound to the key name"
        );
        let mut flipped = sealed.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(cipher.open("cred:ann", &flipped), None);
        assert_eq!(cipher.open("cred:ann", &sealed[..10]), None);
        let other = CredentialCipher::new(&[8u8; 32]).unwrap();
        assert_eq!(other.open("cred:ann", &sealed), None);
        assert_ne!(cipher.seal("cred:ann", b"secret"), sealed, "fresh nonce");
    }

    #[test]
    fn key_length_is_enforced() {
        assert_eq!(
            CredentialCipher::new(&[0u8; 31]).unwrap_err(),
            CipherError::KeyLength
        );
    }
}
