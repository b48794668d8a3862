//! The `sha256:<hex>` digest value.

use core::fmt;

/// Length of the textual form `sha256:` + 64 lowercase hex digits.
pub const DIGEST_TEXT_LEN: usize = 71;

/// A SHA-256 digest. Displays as `sha256:` followed by 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Digest(pub [u8; 32]);

const HEX: &[u8; 16] = b"0123456789abcdef";

impl Digest {
    /// The raw 32 bytes.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The 71-byte ASCII text `sha256:<hex>`.
    pub fn to_hex_prefixed(&self) -> [u8; DIGEST_TEXT_LEN] {
        let mut out = [0u8; DIGEST_TEXT_LEN];
        out[..7].copy_from_slice(b"sha256:");
        for (i, b) in self.0.iter().enumerate() {
            out[7 + 2 * i] = HEX[(b >> 4) as usize];
            out[8 + 2 * i] = HEX[(b & 15) as usize];
        }
        out
    }

    /// Parses `sha256:` + 64 lowercase hex digits; anything else is `None`.
    pub fn parse(text: &[u8]) -> Option<Digest> {
        if text.len() != DIGEST_TEXT_LEN || &text[..7] != b"sha256:" {
            return None;
        }
        let nibble = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        };
        let mut out = [0u8; 32];
        for (i, pair) in text[7..].chunks_exact(2).enumerate() {
            out[i] = (nibble(pair[0])? << 4) | nibble(pair[1])?;
        }
        Some(Digest(out))
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.to_hex_prefixed();
        // The text is ASCII by construction.
        f.write_str(core::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip() {
        let d = Digest([0xab; 32]);
        let t = d.to_hex_prefixed();
        assert_eq!(&t[..9], b"sha256:ab");
        assert_eq!(Digest::parse(&t), Some(d));
        assert_eq!(Digest::parse(b"sha256:AB"), None);
        let mut upper = t;
        upper[7] = b'A';
        assert_eq!(Digest::parse(&upper), None);
    }
}
