//! Keys of a version-1 lock that this crate does not know: the one home of
//! the rule that they are ignored when read and kept when the lock is
//! rewritten (spec section 8, "Unknown keys").
//!
//! A later contractpin may add keys (a pin of something new, say). Dropping
//! them when an older contractpin rewrites the lock (`init --force`,
//! `approve`) would silently remove what the newer one pinned, so they are
//! read as canonical JSON ([`UnknownKeys`]) at the three levels that have a
//! fixed key set (the lock, a server, a tool), carried over when an entry is
//! re-pinned, written back in canonical key order among the known keys, and
//! listed ([`Lock::unknown_key_paths`]) so the CLI can say they were kept
//! unchecked.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::model::{Lock, LockServer, LockTool};
use super::path::child;
use super::pretty::Pretty;
use super::LockError;
use crate::jcs::cmp_utf16;
use crate::json::Value;

/// Members of a lock object that this crate does not know: name to the
/// value's canonical JSON (RFC 8785). Kept, written back, never read.
pub type UnknownKeys = BTreeMap<String, Vec<u8>>;

/// The keys of the lock's top level this crate reads.
pub(crate) const LOCK_KEYS: [&str; 5] = [
    "algorithm",
    "canonicalization",
    "contractpin",
    "generated_at",
    "servers",
];

/// The keys of a server entry this crate reads.
pub(crate) const SERVER_KEYS: [&str; 14] = [
    "client_capabilities",
    "command",
    "cwd",
    "digest",
    "env",
    "headers",
    "instructions_digest",
    "path",
    "protocol_version",
    "server_info",
    "tool_count",
    "tools",
    "transport",
    "url",
];

/// The keys of a tool entry this crate reads.
pub(crate) const TOOL_KEYS: [&str; 3] = ["contract", "digest", "fields"];

/// The members of the object `obj` whose names are not in `known`, each as
/// canonical JSON. `decode` gives a member name's text (the reader's rule
/// for strings, with the error it reports).
pub(crate) fn read_unknown(
    obj: Value<'_>,
    known: &[&str],
    decode: impl Fn(Value<'_>) -> Result<String, LockError>,
) -> Result<UnknownKeys, LockError> {
    let mut out = UnknownKeys::new();
    for (k, v) in obj.members() {
        let name = decode(k)?;
        if known.contains(&name.as_str()) {
            continue;
        }
        let mut canonical = Vec::new();
        crate::jcs::write(&mut canonical, v).map_err(LockError::syntax)?;
        out.insert(name, canonical);
    }
    Ok(out)
}

/// Writes an object's members in canonical key order: the caller names each
/// known key through [`Members::key`] (in canonical order, before writing its
/// value), and the unknown ones are slotted in before the first known key
/// that sorts after them; [`Members::finish`] writes those that sort last.
pub(crate) struct Members<'a> {
    unknown: Vec<(&'a String, &'a Vec<u8>)>,
    next: usize,
}

impl<'a> Members<'a> {
    /// The unknown members of the object about to be written.
    pub fn new(unknown: &'a UnknownKeys) -> Self {
        let mut sorted: Vec<_> = unknown.iter().collect();
        // BTreeMap order is code point order; the file's is UTF-16 order.
        sorted.sort_by(|a, b| cmp_utf16(a.0, b.0));
        Members {
            unknown: sorted,
            next: 0,
        }
    }

    /// Writes the unknown members that sort before `key`, then `key`.
    pub fn key(&mut self, p: &mut Pretty, key: &str) {
        while let Some((name, value)) = self.unknown.get(self.next) {
            if cmp_utf16(name, key) != Ordering::Less {
                break;
            }
            p.key(name);
            p.canonical(value);
            self.next += 1;
        }
        p.key(key);
    }

    /// Writes the unknown members not written yet (they sort after every
    /// known key that was written).
    pub fn finish(self, p: &mut Pretty) {
        for (name, value) in &self.unknown[self.next..] {
            p.key(name);
            p.canonical(value);
        }
    }
}

impl LockServer {
    /// Carries the unknown keys of `old`, the entry this one replaces, over
    /// to this one: the server's own, and each tool's for the tools of the
    /// same name. Keys this entry already has (it was read from a lock that
    /// had them) stay as they are.
    pub fn keep_unknown_from(&mut self, old: &LockServer) {
        merge(&mut self.unknown, &old.unknown);
        for (name, tool) in &mut self.tools {
            if let Some(before) = old.tools.get(name) {
                tool.keep_unknown_from(before);
            }
        }
    }
}

impl LockTool {
    /// Carries the unknown keys of `old`, the pin this one replaces, over to
    /// this one (keys this pin already has stay as they are).
    pub fn keep_unknown_from(&mut self, old: &LockTool) {
        merge(&mut self.unknown, &old.unknown);
    }
}

fn merge(into: &mut UnknownKeys, from: &UnknownKeys) {
    for (k, v) in from {
        into.entry(k.clone()).or_insert_with(|| v.clone());
    }
}

impl Lock {
    /// The path of every unknown key in the lock, in the reader's error
    /// path form (`servers.acme.tools.search.x-note`): the lock's own keys,
    /// then each server's and its tools' (each level in code point order).
    pub fn unknown_key_paths(&self) -> Vec<String> {
        let mut out: Vec<String> = self.unknown.keys().map(|k| child("", k)).collect();
        for (name, server) in &self.servers {
            let sp = child("servers", name);
            out.extend(server.unknown.keys().map(|k| child(&sp, k)));
            let tp = child(&sp, "tools");
            for (tool_name, tool) in &server.tools {
                let p = child(&tp, tool_name);
                out.extend(tool.unknown.keys().map(|k| child(&p, k)));
            }
        }
        out
    }
}
