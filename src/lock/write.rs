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
        let mut m = Members::new(&self.unknown);
        p.begin_object();
        m.key(&mut p, "algorithm");
        p.string(ALGORITHM);
        m.key(&mut p, "canonicalization");
        p.string(CANONICALIZATION);
        m.key(&mut p, "contractpin");
        p.string(LOCK_VERSION);
        m.key(&mut p, "generated_at");
        p.string(&self.generated_at);
        m.key(&mut p, "servers");
        p.begin_object();
        for (name, server) in sorted(self.servers.iter()) {
            p.key(name);
            write_server(&mut p, server);
        }
        p.end_object();
        m.finish(&mut p);
        p.end_object();
        p.finish()
    }
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
