//! # contractpin
//!
//! Pins the *contract* of MCP tools (name, description, input and output
//! schemas, annotations) as SHA-256 digests over RFC 8785 canonical JSON, so
//! that a server which silently rewrites a tool is caught. The format is
//! `contractpin-canonical-json/1`, specified in `SPEC.md`.
//!
//! The core (no default features) is `#![no_std]`, has no dependencies and
//! needs no allocator: every entry point has a variant that takes caller
//! scratch memory. Layers:
//!
//! - [`json`]: the strict parser, producing a flat tape (no recursion);
//! - [`jcs`]: the canonical writer (escaping, UTF-16 key order, numbers);
//! - [`number`]: ECMAScript `Number::toString` for doubles;
//! - [`sha256`]: SHA-256 with a portable path and a SHA-NI path;
//! - [`contract`]: projection onto the contract, tool/field/server digests.
//!
//! With `alloc`: [`canonicalize`], [`tool_digest`], [`digest_tools_list`],
//! the reusable [`Context`], and [`escape`], the display escaping of
//! untrusted text.
//!
//! ```
//! # #[cfg(feature = "alloc")] {
//! let tool = br#"{"name":"echo","description":"Echo","inputSchema":{"type":"object"},"title":"ignored"}"#;
//! let contract = contractpin::tool_contract(tool).unwrap();
//! assert_eq!(contract, br#"{"description":"Echo","inputSchema":{"type":"object"},"name":"echo"}"#);
//! let digest = contractpin::tool_digest(tool).unwrap();
//! assert_eq!(digest.to_string().len(), 71);
//! # }
//! ```
#![no_std]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(any(test, feature = "std"))]
extern crate std;

mod arch;
pub mod contract;
#[cfg(all(
    target_arch = "x86_64",
    not(all(contractpin_portable_simd, contractpin_portable_sha256))
))]
mod cpu;
mod digest;
#[cfg(feature = "alloc")]
pub mod drift;
mod error;
#[cfg(feature = "alloc")]
pub mod escape;
#[cfg(feature = "ffi")]
pub mod ffi;
#[cfg(feature = "std")]
pub mod fs;
#[cfg(feature = "alloc")]
pub mod guard;
pub mod jcs;
pub mod json;
mod limits;
#[cfg(feature = "alloc")]
pub mod lock;
#[cfg(feature = "std")]
pub mod mcp;
#[cfg(feature = "std")]
pub mod mem;
pub mod number;
#[cfg(feature = "alloc")]
mod owned;
#[cfg(feature = "std")]
pub mod proxy;
mod scratch_api;
pub mod sha256;
#[cfg(feature = "alloc")]
pub mod verify;
#[cfg(all(feature = "std", windows))]
mod win32;

/// The unit tests' seeded generator; its one home is `tests/support/rng.rs`.
#[cfg(test)]
#[path = "../tests/support/rng.rs"]
mod test_rng;

/// The unit tests' comparison-counting key; its one home is
/// `tests/support/counted.rs`.
#[cfg(test)]
#[path = "../tests/support/counted.rs"]
mod test_counted;

/// The unit tests' reader of `vectors/vectors.tsv`; its one home is
/// `tests/support/vectors_tsv.rs`.
#[cfg(test)]
#[path = "../tests/support/vectors_tsv.rs"]
mod test_vectors;

pub use contract::instructions::instructions_digest;
pub use contract::tools_list::{ListOptions, ListSummary, ToolReport};
pub use contract::{Field, FieldDigests, JsonStr};
pub use digest::{Digest, DIGEST_TEXT_LEN};
pub use error::{Error, ErrorKind};
pub use limits::{Limits, MAX_INPUT};
#[cfg(feature = "alloc")]
pub use owned::{
    canonicalize, digest_tools_list, digest_with_contracts, tool_contract, tool_contracts,
    tool_digest, Context, Contracts, ServerDigest, ToolDigest,
};
pub use scratch_api::{canonicalize_into, digest_tools_list_with, tool_digest_with};

/// The canonicalization identifier this crate implements.
pub const CANONICALIZATION: &str = "contractpin-canonical-json/1";

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
