//! The lock writer: pretty, canonical key order, byte-stable.

use alloc::string::String;
use alloc::vec::Vec;

use super::model::{Lock, LockServer, LockTool, ServerInfo};
use super::pretty::Pretty;
use super::unknown::{Members, UnknownKeys};
use super::{cmp_utf16, ALGORITHM, LOCK_VERSION};
use crate::CANONICALIZATION;

/// Map entries sorted by UTF-16 key order.
fn sorted<'a, V>(map: impl Iterator<Item = (&'a String, &'a V)>) -> Vec<(&'a String, &'a V)> {
    let mut v: Vec<_> = map.collect();
    // BTreeMap order is code point order, which differs from UTF-16 order
    // only for supplementary characters against U+E000..U+FFFF.
    v.sort_by(|a, b| cmp_utf16(a.0, b.0));
    v
}

impl Lock {
    /// The lock file bytes: keys in canonical (UTF-16) order, two-space
    /// indent, LF line endings, final newline.
    pub fn to_pretty(&self) -> Vec<u8> {
        let mut p = Pretty::new();
        self.write(&mut p);
        p.finish()
    }

    /// [`Lock::to_pretty`], or `None` when the bytes would be more than
    /// `limit`: the writer stops as soon as its output passes the limit, so
    /// it never holds more than about `limit` bytes, however large the
    /// snapshots would grow once indented.
    pub fn to_pretty_within(&self, limit: usize) -> Option<Vec<u8>> {
        let mut p = Pretty::within(limit);
        self.write(&mut p);
        p.finish_within()
    }

    fn write(&self, p: &mut Pretty) {
        let mut m = Members::new(&self.unknown);
        p.begin_object();
        m.key(p, "algorithm");
        p.string(ALGORITHM);
        m.key(p, "canonicalization");
        p.string(CANONICALIZATION);
        m.key(p, "contractpin");
        p.string(LOCK_VERSION);
        m.key(p, "generated_at");
        p.string(&self.generated_at);
        m.key(p, "servers");
        p.begin_object();
        for (name, server) in sorted(self.servers.iter()) {
            p.key(name);
            write_server(p, server);
        }
        p.end_object();
        m.finish(p);
        p.end_object();
    }
}

/// The open containers around a tool's `contract` in the lock: the lock,
/// `servers`, the server, `tools` and the tool.
const SNAPSHOT_DEPTH_IN_LOCK: usize = 5;

/// The bytes the canonical `contract` takes as a snapshot in the lock
/// (indented at its place), or `None` when that is more than `limit`;
/// counted, never written.
pub(crate) fn snapshot_len(contract: &[u8], limit: usize) -> Option<usize> {
    let mut p = Pretty::measure(limit, SNAPSHOT_DEPTH_IN_LOCK);
    p.canonical(contract);
    p.measured()
}

fn write_server(p: &mut Pretty, s: &LockServer) {
    // Keys in canonical order: client_capabilities, command, cwd, digest,
    // env, headers, instructions_digest, path, protocol_version,
    // server_info, tool_count, tools, transport, url (`SERVER_KEYS`), with
    // the unknown keys slotted in among them.
    let mut m = Members::new(&s.unknown);
    p.begin_object();
    if let Some(caps) = &s.client_capabilities {
        m.key(p, "client_capabilities");
        p.begin_array();
        for name in caps {
            p.string(name);
        }
        p.end_array();
    }
    if let Some(command) = &s.command {
        m.key(p, "command");
        p.begin_array();
        for arg in command {
            p.string(arg);
        }
        p.end_array();
    }
    if let Some(cwd) = &s.cwd {
        m.key(p, "cwd");
        p.string(cwd);
    }
    m.key(p, "digest");
    p.digest(&s.digest);
    if let Some(env) = &s.env {
        m.key(p, "env");
        p.begin_object();
        for (k, v) in sorted(env.iter()) {
            p.key(k);
            p.string(v);
        }
        p.end_object();
    }
    if let Some(headers) = &s.headers {
        m.key(p, "headers");
        p.begin_object();
        for (k, v) in sorted(headers.iter()) {
            p.key(k);
            p.string(v);
        }
        p.end_object();
    }
    if let Some(d) = &s.instructions_digest {
        m.key(p, "instructions_digest");
        p.digest(d);
    }
    if let Some(path) = &s.path {
        m.key(p, "path");
        p.string(path);
    }
    if let Some(v) = &s.protocol_version {
        m.key(p, "protocol_version");
        p.string(v);
    }
    if let Some(info) = &s.server_info {
        m.key(p, "server_info");
        write_server_info(p, info);
    }
    write_tools(p, s, &mut m);
    m.key(p, "transport");
    p.string(s.transport.as_str());
    if let Some(url) = &s.url {
        m.key(p, "url");
        p.string(url);
    }
    m.finish(p);
    p.end_object();
}

/// `tool_count` and `tools`, which follow one another in canonical order.
fn write_tools(p: &mut Pretty, s: &LockServer, m: &mut Members<'_>) {
    m.key(p, "tool_count");
    p.uint(s.tool_count as u64);
    m.key(p, "tools");
    p.begin_object();
    for (name, tool) in sorted(s.tools.iter()) {
        p.key(name);
        write_tool(p, tool);
    }
    p.end_object();
}

impl LockServer {
    /// The pins of this entry alone (`digest`, `tool_count`, `tools`),
    /// in the lock's layout: what `contractpin digest --json` prints.
    pub fn pins_to_pretty(&self) -> Vec<u8> {
        let mut p = Pretty::new();
        p.begin_object();
        p.key("digest");
        p.digest(&self.digest);
        write_tools(&mut p, self, &mut Members::new(&UnknownKeys::new()));
        p.end_object();
        p.finish()
    }
}

/// `{"name": …, "title": …, "version": …}` (`title` only when present).
pub(crate) fn write_server_info(p: &mut Pretty, info: &ServerInfo) {
    p.begin_object();
    p.key("name");
    p.string(&info.name);
    if let Some(title) = &info.title {
        p.key("title");
        p.string(title);
    }
    p.key("version");
    p.string(&info.version);
    p.end_object();
}

fn write_tool(p: &mut Pretty, t: &LockTool) {
    let mut m = Members::new(&t.unknown);
    p.begin_object();
    if let Some(contract) = &t.contract {
        m.key(p, "contract");
        p.canonical(contract);
    }
    m.key(p, "digest");
    p.digest(&t.digest);
    m.key(p, "fields");
    p.begin_object();
    for (name, digest) in sorted(t.fields.iter()) {
        p.key(name);
        p.digest(digest);
    }
    p.end_object();
    m.finish(p);
    p.end_object();
}

#[cfg(test)]
mod tests {
    use super::snapshot_len;
    use crate::lock::{Lock, LockServer, Source};
    use crate::owned::{ServerDigest, ToolDigest};

    fn lock(contract: Option<&[u8]>) -> Lock {
        let tool = ToolDigest {
            name: "t".into(),
            digest: Default::default(),
            fields: Default::default(),
        };
        let digests = ServerDigest {
            digest: Default::default(),
            tools: std::vec![tool],
        };
        let path = "t.json".into();
        let mut server = LockServer::from_server_digest(Source::File { path }, &digests);
        server.tools.get_mut("t").unwrap().contract = contract.map(<[u8]>::to_vec);
        let mut lock = Lock::new("2026-01-01T00:00:00Z");
        lock.servers.insert("s".into(), server);
        lock
    }

    /// `snapshot_len` is what the snapshot adds to the lock, less its key
    /// line (`\n`, 10 spaces, `"contract": `, and the comma after it).
    #[test]
    fn snapshot_len_is_the_snapshot_as_written_in_the_lock() {
        let bare = lock(None).to_pretty();
        let contract = br#"{"a":[1,{"b":[[]]}],"name":"t"}"#;
        let with = lock(Some(contract));
        let bytes = with.to_pretty();
        let len = snapshot_len(contract, usize::MAX).unwrap();
        assert_eq!(bytes.len() - bare.len(), len + 24);
        assert_eq!(snapshot_len(contract, len), Some(len));
        assert_eq!(snapshot_len(contract, len - 1), None);
        assert_eq!(with.to_pretty_within(bytes.len()), Some(bytes.clone()));
        assert_eq!(with.to_pretty_within(bytes.len() - 1), None);
    }
}
