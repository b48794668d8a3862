//! The lock file as Rust values (spec section 5).

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use super::secrets::{classify_header, env_for_lock, url_for_lock, HeaderValue};
use super::unknown::UnknownKeys;
use crate::digest::Digest;
use crate::owned::ServerDigest;

/// A whole `contractpin.lock`. The constant keys (`contractpin`,
/// `algorithm`, `canonicalization`) are implied: this crate reads and writes
/// exactly version `1`, `sha256`, `contractpin-canonical-json/1`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lock {
    /// UTC time the lock was written, `YYYY-MM-DDTHH:MM:SSZ`. Informational.
    pub generated_at: String,
    /// Pinned servers, keyed by the adopter's local server name. (The map
    /// iterates in byte order; the file is written in UTF-16 order.)
    pub servers: BTreeMap<String, LockServer>,
    /// Top-level keys this crate does not know, kept for rewriting.
    pub unknown: UnknownKeys,
}

/// One pinned server: how to reach it and the digests of its tools.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockServer {
    /// How the tools are fetched.
    pub transport: Transport,
    /// stdio: the argv (required, non-empty, for [`Transport::Stdio`]).
    pub command: Option<Vec<String>>,
    /// stdio: extra environment; values are `${VAR}` references (see
    /// [`env_for_lock`]).
    pub env: Option<BTreeMap<String, String>>,
    /// stdio: working directory.
    pub cwd: Option<String>,
    /// http: the endpoint (required for [`Transport::Http`]); may hold
    /// `${VAR}` references, expanded at connection time.
    pub url: Option<String>,
    /// http: headers sent to this server only; every value is a template of
    /// `${VAR}` references ([`classify_header`]).
    pub headers: Option<BTreeMap<String, String>>,
    /// file: a local `tools/list` dump (required for [`Transport::File`]).
    pub path: Option<String>,
    /// stdio and http: the client capabilities declared when the tools were
    /// fetched, in normal form ([`normalize_capabilities`](super::normalize_capabilities));
    /// `verify` declares them again. Outside every digest. `None`: none.
    pub client_capabilities: Option<Vec<String>>,
    /// stdio and http: the server's `serverInfo` from the handshake.
    /// Informational, outside every digest.
    pub server_info: Option<ServerInfo>,
    /// stdio and http: the protocol version negotiated when the tools were
    /// fetched. Informational, outside every digest.
    pub protocol_version: Option<String>,
    /// stdio and http: the instructions digest
    /// ([`instructions_digest`](crate::instructions_digest)) of the
    /// server's `instructions` text; `None`: the server sent none, or they
    /// were not pinned (`init --ignore-instructions`).
    pub instructions_digest: Option<Digest>,
    /// Number of tools; always `tools.len()` in a valid lock.
    pub tool_count: usize,
    /// The server digest (spec 4.3).
    pub digest: Digest,
    /// Every tool, keyed by name.
    pub tools: BTreeMap<String, LockTool>,
    /// Keys of this entry that this crate does not know, kept for rewriting.
    pub unknown: UnknownKeys,
}

/// One pinned tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockTool {
    /// The tool digest (spec 4.1).
    pub digest: Digest,
    /// Advisory field digests (spec 4.2), keyed by contract member name
    /// (`annotations`, `description`, `inputSchema`, `name`, `outputSchema`).
    pub fields: BTreeMap<String, Digest>,
    /// The snapshot: the tool's canonical contract JSON (spec section 2),
    /// whose SHA-256 is `digest`. Outside every digest; `None`: a
    /// digest-only entry.
    pub contract: Option<Vec<u8>>,
    /// Keys of this tool's entry that this crate does not know, kept for
    /// rewriting.
    pub unknown: UnknownKeys,
}

/// A server's `serverInfo` (MCP `Implementation`): untrusted text the server
/// chose, recorded so that a drift report can say whether the version moved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerInfo {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// `serverInfo.title`, when the server sent one.
    pub title: Option<String>,
}

/// What a live handshake said besides the tools: the facts a lock entry
/// records next to its pins (all outside every digest but the
/// instructions digest). A file dump has none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerFacts {
    /// `serverInfo`, when it had a string `name` and `version`.
    pub server_info: Option<ServerInfo>,
    /// The negotiated protocol version.
    pub protocol_version: Option<String>,
    /// The `instructions` text, when the server sent a string.
    pub instructions: Option<String>,
}

/// How a server's tools are fetched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Transport {
    /// A child process speaking newline-delimited JSON-RPC.
    Stdio,
    /// MCP Streamable HTTP (or legacy HTTP+SSE).
    Http,
    /// A local `tools/list` dump.
    File,
}

/// The error of [`Transport::from_str`]: not `stdio`, `http` or `file`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownTransport;

impl fmt::Display for UnknownTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("transport must be \"stdio\", \"http\" or \"file\"")
    }
}

#[cfg(feature = "std")]
impl std::error::Error for UnknownTransport {}

impl Transport {
    /// The lock spelling: `"stdio"`, `"http"` or `"file"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::File => "file",
        }
    }
}

impl FromStr for Transport {
    type Err = UnknownTransport;

    /// Parses the lock spelling (exact, lowercase).
    fn from_str(s: &str) -> Result<Transport, UnknownTransport> {
        match s {
            "stdio" => Ok(Transport::Stdio),
            "http" => Ok(Transport::Http),
            "file" => Ok(Transport::File),
            _ => Err(UnknownTransport),
        }
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a server's tools come from: the transport with its settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Run `command` (argv) with extra `env` in `cwd`.
    Stdio {
        /// argv; must not be empty.
        command: Vec<String>,
        /// Extra environment variables (empty: none).
        env: BTreeMap<String, String>,
        /// Working directory.
        cwd: Option<String>,
    },
    /// Talk to an HTTP endpoint.
    Http {
        /// The endpoint URL (may hold `${VAR}` references).
        url: String,
        /// Headers for this server (values: `${VAR}` templates when read
        /// from a lock; empty: none).
        headers: BTreeMap<String, String>,
    },
    /// Read a `tools/list` dump.
    File {
        /// The dump's path.
        path: String,
    },
}

impl Source {
    /// The transport of this source.
    pub fn transport(&self) -> Transport {
        match self {
            Source::Stdio { .. } => Transport::Stdio,
            Source::Http { .. } => Transport::Http,
            Source::File { .. } => Transport::File,
        }
    }
}

impl Lock {
    /// An empty lock stamped `generated_at`.
    pub fn new(generated_at: impl Into<String>) -> Lock {
        Lock {
            generated_at: generated_at.into(),
            servers: BTreeMap::new(),
            unknown: UnknownKeys::new(),
        }
    }
}

impl LockTool {
    /// The field digests as a map keyed by member name.
    pub fn from_fields(digest: Digest, fields: &crate::FieldDigests) -> LockTool {
        LockTool {
            digest,
            contract: None,
            unknown: UnknownKeys::new(),
            fields: fields
                .iter()
                .map(|(f, d)| (f.name().to_string(), d))
                .collect(),
        }
    }
}

impl LockServer {
    /// The lock entry for a server fetched from `source` whose tools digested
    /// to `digests`.
    ///
    /// Secrets policy: `env` goes through [`env_for_lock`] (literal values
    /// become `${NAME}` references; an empty map is stored as no `env`), an
    /// http URL through [`url_for_lock`] (literal user information removed),
    /// and only the header values that [`classify_header`] calls templates
    /// are kept (literal ones were for that one fetch).
    pub fn from_server_digest(source: Source, digests: &ServerDigest) -> LockServer {
        let mut server = LockServer {
            transport: source.transport(),
            command: None,
            env: None,
            cwd: None,
            url: None,
            headers: None,
            path: None,
            client_capabilities: None,
            server_info: None,
            protocol_version: None,
            instructions_digest: None,
            tool_count: digests.tools.len(),
            digest: digests.digest,
            tools: digests
                .tools
                .iter()
                .map(|t| (t.name.clone(), LockTool::from_fields(t.digest, &t.fields)))
                .collect(),
            unknown: UnknownKeys::new(),
        };
        match source {
            Source::Stdio { command, env, cwd } => {
                server.command = Some(command);
                server.env = (!env.is_empty()).then(|| env_for_lock(&env));
                server.cwd = cwd;
            }
            Source::Http { url, headers } => {
                server.url = Some(url_for_lock(&url));
                let kept = headers_for_lock(&headers);
                server.headers = (!kept.is_empty()).then_some(kept);
            }
            Source::File { path } => server.path = Some(path),
        }
        server
    }

    /// How to fetch this server's tools, or `None` when the key its transport
    /// needs is absent (never the case for a lock read by [`Lock::parse`]).
    pub fn source(&self) -> Option<Source> {
        Some(match self.transport {
            Transport::Stdio => Source::Stdio {
                command: self.command.clone()?,
                env: self.env.clone().unwrap_or_default(),
                cwd: self.cwd.clone(),
            },
            Transport::Http => Source::Http {
                url: self.url.clone()?,
                headers: self.headers.clone().unwrap_or_default(),
            },
            Transport::File => Source::File {
                path: self.path.clone()?,
            },
        })
    }

    /// Records the handshake `facts` of a live server (none for a file
    /// source): `server_info`, `protocol_version` and, unless
    /// `pin_instructions` is false, the instructions digest.
    pub fn set_facts(&mut self, facts: &ServerFacts, pin_instructions: bool) {
        if self.transport == Transport::File {
            return;
        }
        self.server_info = facts.server_info.clone();
        self.protocol_version = facts.protocol_version.clone();
        self.instructions_digest = facts
            .instructions
            .as_deref()
            .filter(|_| pin_instructions)
            .map(crate::instructions_digest);
    }

    /// Records the snapshot of each tool: `contracts` are `(name, canonical
    /// contract)` pairs as [`tool_contracts`](crate::tool_contracts) gives
    /// them. A contract whose SHA-256 is not its tool's digest, that is
    /// nested deeper than [`MAX_SNAPSHOT_DEPTH`](super::MAX_SNAPSHOT_DEPTH)
    /// (the lock reader could not read it back), or whose snapshot alone,
    /// indented in the lock, would pass the lock's size limit
    /// ([`MAX_LOCK_BYTES`](super::MAX_LOCK_BYTES): no lock holding it could
    /// be written) is not recorded; the names of the tools left digest-only
    /// are returned.
    pub fn set_snapshots(&mut self, contracts: Vec<(String, Vec<u8>)>) -> Vec<String> {
        let mut skipped = Vec::new();
        for (name, contract) in contracts {
            let Some(tool) = self.tools.get_mut(&name) else {
                continue;
            };
            if snapshot_fits(&contract) && snapshot_matches(&contract, &tool.digest) {
                tool.contract = Some(contract);
            } else {
                skipped.push(name);
            }
        }
        skipped
    }

    /// The server digest recomputed from the tool digests (spec 4.3):
    /// SHA-256 of canonical `{name: "sha256:<hex>", ...}`.
    pub fn computed_digest(&self) -> Digest {
        crate::contract::server::server_digest_of(
            self.tools.iter().map(|(n, t)| (n.as_str(), t.digest)),
        )
    }
}

/// Whether the canonical `contract` is the contract `digest` pins: its
/// SHA-256 is the digest. The one check of a snapshot against its tool's
/// pin before it is stored ([`LockServer::set_snapshots`] leaves such a
/// tool digest-only, [`LockServer::approve`] refuses it).
pub(crate) fn snapshot_matches(contract: &[u8], digest: &Digest) -> bool {
    Digest(crate::sha256::digest(contract)) == *digest
}

/// Whether the canonical `contract` can be a snapshot in a lock: nested at
/// most [`MAX_SNAPSHOT_DEPTH`](super::MAX_SNAPSHOT_DEPTH) deep, and not
/// alone larger than the lock's size limit once indented (counted, never
/// written, so a contract that would grow to gigabytes costs no memory).
pub fn snapshot_fits(contract: &[u8]) -> bool {
    super::pretty::nesting_depth(contract) <= super::MAX_SNAPSHOT_DEPTH
        && super::write::snapshot_len(contract, super::LOCK_BYTE_LIMIT).is_some()
}

/// The header templates of `headers`; literal (and mixed) values are dropped.
fn headers_for_lock(headers: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    headers
        .iter()
        .filter_map(|(k, v)| match classify_header(v) {
            HeaderValue::Template(t) => Some((k.clone(), t)),
            HeaderValue::Literal | HeaderValue::Mixed => None,
        })
        .collect()
}
