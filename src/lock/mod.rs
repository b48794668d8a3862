//! The lock file `contractpin.lock` (spec section 5): model, strict reader,
//! pretty writer, and (with `std`) atomic, file-locked saving.
//!
//! Everything but saving needs only `alloc`, so the C ABI can read a lock for
//! run-time verification without `std`.
//!
//! # Reading
//!
//! [`Lock::parse`] uses the crate's own strict JSON parser and then checks the
//! lock's shape. It refuses, with a [`LockError`] naming the JSON path:
//!
//! - a `contractpin` version other than `"1"`, an `algorithm` other than
//!   `"sha256"`, a `canonicalization` other than `"contractpin-canonical-json/1"`;
//! - a missing required key or a value of the wrong type;
//! - a digest that is not `sha256:` followed by 64 lowercase hex digits;
//! - a `generated_at` that is not `YYYY-MM-DDTHH:MM:SSZ`;
//! - an unknown transport, or a transport without its key (`command` for
//!   stdio, `url` for http, `path` for file), or an empty `command`;
//! - `headers` on a server that is not http, an invalid header name, two
//!   names that differ only in case, or a header value that is not a
//!   `${VAR}` template ([`classify_header`]): a lock never holds a secret;
//! - a `client_capabilities` that is not an array of known capability names
//!   ([`CLIENT_CAPABILITIES`], `experimental.NAME`), or one on a file
//!   server (it is read into normal form: sorted, deduplicated);
//! - a `tool_count` that is not the number of tools;
//! - a server `digest` that is not the digest of its tools (spec 4.3), which
//!   catches hand edits and bad merges before they can be misreported as drift.
//! - a tool `contract` (the snapshot) that is not an object, or whose
//!   canonical form does not hash to the tool's `digest`
//!   ([`LockErrorKind::SnapshotMismatch`]): the snapshot is outside every
//!   digest but can never disagree with them;
//! - a `server_info` without string `name` and `version` (or with a
//!   non-string `title`), a non-string `protocol_version`, a malformed
//!   `instructions_digest`, or any of them (or `client_capabilities`) on a
//!   file server: a dump has no handshake.
//!
//! Nesting is limited to [`MAX_LOCK_DEPTH`]; `init` records a snapshot only
//! for a contract of at most [`MAX_SNAPSHOT_DEPTH`] levels whose snapshot
//! alone stays within [`MAX_LOCK_BYTES`] ([`LockServer::set_snapshots`]),
//! and [`update`] never writes a lock larger than [`MAX_LOCK_BYTES`] (its
//! writer stops at the limit, [`Lock::to_pretty_within`]), so every lock
//! written can be read back and writing one never takes more memory than
//! about the limit.
//!
//! **Unknown keys** (at the top level, in a server or in a tool) are ignored:
//! version `1` readers stay forward compatible with additive keys. They are
//! kept, as canonical JSON ([`UnknownKeys`]), and written back in key order
//! when this crate rewrites the lock, also into an entry that is re-pinned
//! ([`LockServer::keep_unknown_from`]), so an older contractpin never drops
//! what a newer one wrote; [`Lock::unknown_key_paths`] lists them (the module
//! `unknown` holds this rule). Every key of `fields` is kept, whatever its
//! name (field names are data).
//! A missing `fields` object reads as empty (field digests are advisory,
//! spec 4.2); the writer always writes `fields`.
//!
//! # Writing
//!
//! [`Lock::to_pretty`] writes keys in canonical (UTF-16 code unit) order
//! (a snapshot too: one key or value per line, so a re-pin diffs as text),
//! two-space indent, `": "` after keys, LF line endings and a final newline;
//! strings are escaped exactly as RFC 8785 does. It is byte-stable and
//! `Lock::parse(&lock.to_pretty()) == Ok(lock)`.
//!
//! # Secrets
//!
//! Only `${NAME}` references are stored (the policy is in one module,
//! `secrets`): [`LockServer::from_server_digest`] passes `env` through
//! [`env_for_lock`] (literal values become `${NAME}` references), keeps only
//! header templates ([`classify_header`]) and strips literal user
//! information from an http URL ([`url_for_lock`]). The reader refuses a
//! lock whose headers hold anything else.
//!
//! # Approving
//!
//! [`LockServer::approve`] re-pins chosen tools of one entry from its live
//! digests (a tool no longer live is dropped), keeps every other pin, and
//! recomputes `digest` and `tool_count` from the resulting tools
//! (`contractpin approve`). Like [`LockServer::set_snapshots`], it stores a
//! snapshot only if its SHA-256 is the tool's live digest; a snapshot that
//! is not is refused ([`ApproveError::Snapshot`], a
//! [`LockErrorKind::SnapshotMismatch`]) and nothing is approved.
//!
//! # Saving (feature `std`)
//!
//! [`save_atomic`] writes a temporary file in the target's directory, fsyncs
//! it, renames it over the target and fsyncs the directory: readers see the
//! old lock or the new one, never a part. [`update`] wraps a read-modify-write
//! in an exclusive file lock (`flock`; `LockFileEx` on Windows) on a
//! sidecar file `<lock path>.lock`, so concurrent `init` runs never lose
//! each other's entries.

mod approve;
mod capabilities;
mod error;
#[cfg(feature = "std")]
mod location;
mod model;
mod path;
pub(crate) mod pretty;
mod read;
#[cfg(feature = "std")]
mod save;
mod secrets;
mod timestamp;
mod unknown;
mod write;

pub use approve::{Approval, ApproveError};
pub use capabilities::{
    capabilities_json, capabilities_of_initialize, capability_difference, is_client_capability,
    normalize_capabilities, parse_client_capabilities, CLIENT_CAPABILITIES,
};
pub use error::{LockError, LockErrorKind};
#[cfg(feature = "std")]
pub use location::{implicit_cwd, lock_dir, relative_to_lock, resolve_from_lock, resolve_inside};
pub use model::{
    snapshot_fits, Lock, LockServer, LockTool, ServerFacts, ServerInfo, Source, Transport,
    UnknownTransport,
};
#[cfg(feature = "std")]
pub use save::{
    load, read, refuse_link, save_atomic, sidecar_path, sync_dir, update, UpdateError,
    MAX_LOCK_BYTES,
};
pub use secrets::{
    arg_credential, classify_header, env_for_lock, is_env_reference, is_header_name,
    url_credential, url_for_lock, url_has_userinfo, HeaderValue,
};
#[cfg(feature = "std")]
pub(crate) use secrets::{
    authority as url_authority, is_credential_key as is_credential_name,
    valid_name as valid_var_name,
};
pub use timestamp::{format_timestamp, is_valid_timestamp, MAX_TIMESTAMP};
#[cfg(feature = "std")]
pub use timestamp::{timestamp_now, TimestampError};
pub use unknown::UnknownKeys;

/// The lock format version this crate reads and writes (`contractpin` key).
pub const LOCK_VERSION: &str = "1";

/// The only digest algorithm of lock format 1 (`algorithm` key).
pub const ALGORITHM: &str = "sha256";

/// The deepest contract snapshot (`servers.*.tools.*.contract`, the
/// contract object itself at depth 1) a lock records: the contract sits at
/// depth 5 of the lock, and the reader allows [`MAX_LOCK_DEPTH`]. A deeper
/// contract is pinned by its digest alone.
pub const MAX_SNAPSHOT_DEPTH: usize = MAX_LOCK_DEPTH - 5;

/// The nesting limit of the lock reader: the default document depth limit
/// (256) plus room for the lock's own levels, so a snapshot of any contract
/// of a tools/list read with default limits fits.
pub const MAX_LOCK_DEPTH: usize = crate::Limits::DEFAULT.max_depth as usize + 8;

/// The largest lock, in bytes ([`MAX_LOCK_BYTES`] with `std`): the
/// default input limit, so every reader accepts every lock written.
const LOCK_BYTE_LIMIT: usize = crate::Limits::DEFAULT.max_input;

/// The default lock file name.
pub const DEFAULT_FILE_NAME: &str = "contractpin.lock";

/// The key order of the lock: canonical JSON's (by UTF-16 code units).
pub use crate::jcs::cmp_utf16;
