//! The instructions digest (spec section 13): the `instructions` text of a
//! server's `initialize` (or `server/discover`) result reaches the model
//! like a tool description, so a lock can pin it. The digest is
//! `sha256:` + hex(SHA-256(RFC 8785 serialization of the JSON string)).
//! No allocation: the canonical string is streamed into the hash.

use crate::digest::Digest;
use crate::jcs::write_str;
use crate::sha256::Sha256;

/// The instructions digest of `text` (the decoded instructions string):
/// SHA-256 of its canonical JSON string form, quotes included.
///
/// ```
/// let d = contractpin::instructions_digest("Use the search tool first.");
/// assert_eq!(d, contractpin::Digest(contractpin::sha256::digest(b"\"Use the search tool first.\"")));
/// ```
pub fn instructions_digest(text: &str) -> Digest {
    let mut hasher = Sha256::new();
    write_str(&mut hasher, text);
    Digest(hasher.finalize())
}
