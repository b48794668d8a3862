//! Why a lock file was refused.

use alloc::string::String;
use core::fmt;

use crate::error::Error;

/// The kind of a [`LockError`]. Every kind means "the tool could not run"
/// (CLI exit code 2): a lock that cannot be trusted is never half-used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LockErrorKind {
    /// The file is not valid JSON; [`LockError::json_error`] has the parser's
    /// kind and byte offset.
    Syntax,
    /// The `contractpin` version is not `"1"`.
    UnsupportedVersion,
    /// The `algorithm` is not `"sha256"`.
    UnsupportedAlgorithm,
    /// The `canonicalization` is not `"contractpin-canonical-json/1"`.
    UnsupportedCanonicalization,
    /// A required key is absent.
    MissingField,
    /// A value has the wrong JSON type (or is not a non-negative integer
    /// where one is required).
    WrongType,
    /// A digest is not `sha256:` followed by 64 lowercase hex digits.
    InvalidDigest,
    /// `generated_at` is not a valid `YYYY-MM-DDTHH:MM:SSZ` timestamp.
    InvalidTimestamp,
    /// `transport` is not `"stdio"`, `"http"` or `"file"`.
    UnknownTransport,
    /// A value of the right type that is not allowed (an empty `command`).
    InvalidValue,
    /// `tool_count` differs from the number of entries in `tools`.
    ToolCountMismatch,
    /// A server's `digest` is not the digest of its tool digests (spec 4.3).
    ServerDigestMismatch,
    /// A tool's `contract` snapshot is not the contract its `digest` pins
    /// (its canonical form hashes to something else): the lock was edited.
    SnapshotMismatch,
    /// The lock file could not be read (feature `std`: [`load`](crate::lock::load)).
    Io,
}

impl LockErrorKind {
    /// A stable kebab-case name, for reports and tests.
    pub const fn name(self) -> &'static str {
        match self {
            LockErrorKind::Syntax => "syntax",
            LockErrorKind::UnsupportedVersion => "unsupported-version",
            LockErrorKind::UnsupportedAlgorithm => "unsupported-algorithm",
            LockErrorKind::UnsupportedCanonicalization => "unsupported-canonicalization",
            LockErrorKind::MissingField => "missing-field",
            LockErrorKind::WrongType => "wrong-type",
            LockErrorKind::InvalidDigest => "invalid-digest",
            LockErrorKind::InvalidTimestamp => "invalid-timestamp",
            LockErrorKind::UnknownTransport => "unknown-transport",
            LockErrorKind::InvalidValue => "invalid-value",
            LockErrorKind::ToolCountMismatch => "tool-count-mismatch",
            LockErrorKind::ServerDigestMismatch => "server-digest-mismatch",
            LockErrorKind::SnapshotMismatch => "snapshot-mismatch",
            LockErrorKind::Io => "io",
        }
    }
}

impl fmt::Display for LockErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A lock file that cannot be used, with the JSON path of the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockError {
    kind: LockErrorKind,
    path: String,
    detail: String,
    json: Option<Error>,
}

impl LockError {
    pub(crate) fn new(kind: LockErrorKind, path: String, detail: String) -> LockError {
        LockError {
            kind,
            path,
            detail,
            json: None,
        }
    }

    pub(crate) fn syntax(err: Error) -> LockError {
        LockError {
            kind: LockErrorKind::Syntax,
            path: String::new(),
            detail: String::new(),
            json: Some(err),
        }
    }

    #[cfg(feature = "std")]
    pub(crate) fn io(detail: String) -> LockError {
        LockError::new(LockErrorKind::Io, String::new(), detail)
    }

    /// What is wrong.
    pub fn kind(&self) -> LockErrorKind {
        self.kind
    }

    /// The JSON path of the offending value, such as
    /// `servers.acme.tools.search.digest`; empty for the whole document.
    /// Names that are not plain `[A-Za-z0-9_-]+` are written `["a.b"]`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The detail (what was found, what was expected).
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// For [`LockErrorKind::Syntax`]: the parser error (kind and byte offset).
    pub fn json_error(&self) -> Option<Error> {
        self.json
    }

    /// The CLI exit code for any lock error: always 2 ("could not run").
    pub const fn exit_code(&self) -> i32 {
        2
    }
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(err) = &self.json {
            return write!(f, "lock file is not valid JSON: {err}");
        }
        if self.kind == LockErrorKind::Io {
            return write!(f, "cannot read lock file: {}", self.detail);
        }
        f.write_str("invalid lock file: ")?;
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.detail)
    }
}

/// A syntax error's source is the parser's [`Error`] (kind and offset).
#[cfg(feature = "std")]
impl std::error::Error for LockError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.json
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
