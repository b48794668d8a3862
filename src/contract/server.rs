//! The server digest framing (spec section 4.3), in one place: SHA-256 of
//! the canonical object `{"<name>": "sha256:<hex>", ...}` with the names in
//! UTF-16 order. The tools/list digester writes it while it walks the
//! sorted tools; the lock recomputes it from stored tool digests.

use crate::digest::Digest;
use crate::jcs::{write_string, Sink};

/// Writes the server object one entry at a time; entries must come in
/// canonical (UTF-16) name order.
pub(crate) struct ServerObject {
    first: bool,
}

impl ServerObject {
    /// Writes the opening brace.
    #[inline]
    pub(crate) fn begin<S: Sink>(sink: &mut S) -> ServerObject {
        sink.write(b"{");
        ServerObject { first: true }
    }

    /// Writes `"<name>":"sha256:<hex>"`, where `raw` is the name's validated
    /// JSON string content (`escaped` when it holds a backslash).
    #[inline]
    pub(crate) fn entry<S: Sink>(
        &mut self,
        sink: &mut S,
        raw: &[u8],
        escaped: bool,
        digest: &Digest,
    ) {
        self.entry_with(sink, digest, |s| write_string(s, raw, escaped));
    }

    /// [`ServerObject::entry`] for a decoded name.
    #[cfg(feature = "alloc")]
    #[inline]
    pub(crate) fn entry_str<S: Sink>(&mut self, sink: &mut S, name: &str, digest: &Digest) {
        self.entry_with(sink, digest, |s| crate::jcs::write_str(s, name));
    }

    #[inline]
    fn entry_with<S: Sink>(&mut self, sink: &mut S, digest: &Digest, name: impl FnOnce(&mut S)) {
        if !self.first {
            sink.write(b",");
        }
        self.first = false;
        name(sink);
        sink.write(b":\"");
        sink.write(&digest.to_hex_prefixed());
        sink.write(b"\"");
    }

    /// Writes the closing brace.
    #[inline]
    pub(crate) fn end<S: Sink>(self, sink: &mut S) {
        sink.write(b"}");
    }
}

/// The server digest of `(name, tool digest)` pairs in any order.
#[cfg(feature = "alloc")]
pub(crate) fn server_digest_of<'a>(tools: impl Iterator<Item = (&'a str, Digest)>) -> Digest {
    let mut sorted: alloc::vec::Vec<(&str, Digest)> = tools.collect();
    sorted.sort_by(|a, b| crate::jcs::cmp_utf16(a.0, b.0));
    let mut hasher = crate::sha256::Sha256::new();
    let mut object = ServerObject::begin(&mut hasher);
    for (name, digest) in &sorted {
        object.entry_str(&mut hasher, name, digest);
    }
    object.end(&mut hasher);
    Digest(hasher.finalize())
}
