//! Errors: a stable kind, the byte offset where it was found, and (for buffer
//! errors) how much room would have been enough.

use core::fmt;

/// What went wrong. The numeric values are stable and are also the C ABI
/// status codes; a value is never reused for a different meaning.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended in the middle of a value (or was empty).
    UnexpectedEnd = 1,
    /// A byte that JSON does not allow at this position.
    UnexpectedByte = 2,
    /// A string holds bytes that are not valid UTF-8 (overlong forms,
    /// encoded surrogates, values above U+10FFFF, truncated sequences).
    InvalidUtf8 = 3,
    /// The input starts with a UTF-8 byte order mark.
    ByteOrderMark = 4,
    /// A raw control character (U+0000..U+001F) inside a string.
    ControlCharacter = 5,
    /// An unknown escape letter, or a `\u` escape without four hex digits.
    InvalidEscape = 6,
    /// A `\u` escape of a surrogate that is not part of a valid pair.
    LoneSurrogate = 7,
    /// A number token that is not RFC 8259 number grammar.
    InvalidNumber = 8,
    /// A number whose value rounds to infinity as an IEEE-754 double.
    NumberOutOfRange = 9,
    /// Two members of one object have the same key (compared after unescaping).
    DuplicateKey = 10,
    /// Containers nested deeper than the configured limit.
    DepthLimit = 11,
    /// The input is longer than the configured limit.
    SizeLimit = 12,
    /// Non-whitespace bytes after the top-level value.
    TrailingData = 13,
    /// The caller's scratch memory is too small; `needed()` says how many nodes suffice.
    ScratchTooSmall = 14,
    /// The caller's output buffer is too small; `needed()` says how many bytes suffice.
    OutputTooSmall = 15,
    /// The document is not one of the accepted `tools/list` shapes.
    NotToolsList = 32,
    /// An element of a `tools` array is not a JSON object.
    ToolNotObject = 33,
    /// A tool's `name` is missing or is not a string.
    NameNotString = 34,
    /// Two tools share a name (spec section 4.4), within or across pages.
    DuplicateToolName = 35,
    /// The document is a JSON-RPC error response, not a result.
    JsonRpcError = 36,
    /// More tools than the configured limit.
    ToolLimit = 37,
    /// A member's key is a name the spec reads at that level only under
    /// case folding (`Description`, `Tools`; spec section 6), which a
    /// case-insensitive decoder would take for that member.
    CaseVariantKey = 38,
}

impl ErrorKind {
    /// Every kind, in numeric order.
    pub const ALL: [ErrorKind; 22] = [
        ErrorKind::UnexpectedEnd,
        ErrorKind::UnexpectedByte,
        ErrorKind::InvalidUtf8,
        ErrorKind::ByteOrderMark,
        ErrorKind::ControlCharacter,
        ErrorKind::InvalidEscape,
        ErrorKind::LoneSurrogate,
        ErrorKind::InvalidNumber,
        ErrorKind::NumberOutOfRange,
        ErrorKind::DuplicateKey,
        ErrorKind::DepthLimit,
        ErrorKind::SizeLimit,
        ErrorKind::TrailingData,
        ErrorKind::ScratchTooSmall,
        ErrorKind::OutputTooSmall,
        ErrorKind::NotToolsList,
        ErrorKind::ToolNotObject,
        ErrorKind::NameNotString,
        ErrorKind::DuplicateToolName,
        ErrorKind::JsonRpcError,
        ErrorKind::ToolLimit,
        ErrorKind::CaseVariantKey,
    ];

    /// The stable kebab-case name used in messages, vectors and reports.
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::UnexpectedEnd => "unexpected-end",
            ErrorKind::UnexpectedByte => "unexpected-byte",
            ErrorKind::InvalidUtf8 => "invalid-utf8",
            ErrorKind::ByteOrderMark => "byte-order-mark",
            ErrorKind::ControlCharacter => "control-character",
            ErrorKind::InvalidEscape => "invalid-escape",
            ErrorKind::LoneSurrogate => "lone-surrogate",
            ErrorKind::InvalidNumber => "invalid-number",
            ErrorKind::NumberOutOfRange => "number-out-of-range",
            ErrorKind::DuplicateKey => "duplicate-key",
            ErrorKind::DepthLimit => "depth-limit",
            ErrorKind::SizeLimit => "size-limit",
            ErrorKind::TrailingData => "trailing-data",
            ErrorKind::ScratchTooSmall => "scratch-too-small",
            ErrorKind::OutputTooSmall => "output-too-small",
            ErrorKind::NotToolsList => "not-tools-list",
            ErrorKind::ToolNotObject => "tool-not-object",
            ErrorKind::NameNotString => "name-not-string",
            ErrorKind::DuplicateToolName => "duplicate-tool-name",
            ErrorKind::JsonRpcError => "json-rpc-error",
            ErrorKind::ToolLimit => "tool-limit",
            ErrorKind::CaseVariantKey => "case-variant-key",
        }
    }

    /// A one-line human explanation.
    pub const fn message(self) -> &'static str {
        match self {
            ErrorKind::UnexpectedEnd => "input ended in the middle of a JSON value",
            ErrorKind::UnexpectedByte => "byte not allowed here by JSON syntax",
            ErrorKind::InvalidUtf8 => "string is not valid UTF-8",
            ErrorKind::ByteOrderMark => "input starts with a byte order mark",
            ErrorKind::ControlCharacter => "raw control character in a string",
            ErrorKind::InvalidEscape => "invalid escape sequence in a string",
            ErrorKind::LoneSurrogate => "unpaired UTF-16 surrogate escape",
            ErrorKind::InvalidNumber => "malformed number",
            ErrorKind::NumberOutOfRange => "number is too large for an IEEE-754 double",
            ErrorKind::DuplicateKey => "duplicate object key",
            ErrorKind::DepthLimit => "nesting deeper than the depth limit",
            ErrorKind::SizeLimit => "input larger than the size limit",
            ErrorKind::TrailingData => "data after the top-level JSON value",
            ErrorKind::ScratchTooSmall => "scratch memory too small",
            ErrorKind::OutputTooSmall => "output buffer too small",
            ErrorKind::NotToolsList => {
                "not a tools/list result, response, tools array or page sequence"
            }
            ErrorKind::ToolNotObject => "tool is not a JSON object",
            ErrorKind::NameNotString => "tool name is missing or not a string",
            ErrorKind::DuplicateToolName => "two tools have the same name",
            ErrorKind::JsonRpcError => "JSON-RPC error response",
            ErrorKind::ToolLimit => "more tools than the tool limit",
            ErrorKind::CaseVariantKey => {
                "a member's key is a name read here only under case folding"
            }
        }
    }

    /// The kind with this stable numeric code, if any.
    pub fn from_code(code: u32) -> Option<ErrorKind> {
        Self::ALL.iter().copied().find(|k| *k as u32 == code)
    }

    /// The kind with this stable name, if any.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        Self::ALL.iter().copied().find(|k| k.name() == name)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An error with its kind and the byte offset in the input where it was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    offset: usize,
    needed: usize,
}

impl Error {
    /// An error of `kind` at byte `offset`.
    pub const fn new(kind: ErrorKind, offset: usize) -> Error {
        Error {
            kind,
            offset,
            needed: 0,
        }
    }

    /// A buffer error: `needed` units would have been enough.
    pub const fn with_needed(kind: ErrorKind, offset: usize, needed: usize) -> Error {
        Error {
            kind,
            offset,
            needed,
        }
    }

    /// The stable kind.
    pub const fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Byte offset into the input where the problem was found.
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// For [`ErrorKind::ScratchTooSmall`] the number of scratch nodes, and for
    /// [`ErrorKind::OutputTooSmall`] the number of output bytes, that suffice;
    /// zero for every other kind.
    pub const fn needed(&self) -> usize {
        self.needed
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at byte {}: {}",
            self.kind.name(),
            self.offset,
            self.kind.message()
        )?;
        match self.kind {
            ErrorKind::ScratchTooSmall => write!(f, " ({} nodes needed)", self.needed),
            ErrorKind::OutputTooSmall => write!(f, " ({} bytes needed)", self.needed),
            _ => Ok(()),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}
