//! `contractpin_status`: the stable status codes of the C ABI.

use core::ffi::c_char;

use crate::error::ErrorKind;

/// The result of a `contractpin_*` call. The numbers are stable and are never
/// reused for a different meaning:
///
/// - `0` is success;
/// - `1-15` and `32-38` are the core's error kinds (same numbers and
///   names as `contractpin::ErrorKind`): the input was rejected, and the
///   byte offset is reported through `error_offset`;
/// - `64-99` are lock-file errors of `contractpin_verify` (the offset, when
///   reported, is into the lock bytes);
/// - `100..` are errors in how the ABI was called.
///
/// `contractpin_status_name` gives the stable kebab-case name of each.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub enum contractpin_status {
    /// Success.
    Ok = 0,
    /// The input ended in the middle of a value (or was empty).
    UnexpectedEnd = 1,
    /// A byte that JSON does not allow at this position.
    UnexpectedByte = 2,
    /// A string holds bytes that are not valid UTF-8.
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
    /// Two members of one object have the same key (after unescaping).
    DuplicateKey = 10,
    /// Containers nested deeper than the depth limit.
    DepthLimit = 11,
    /// The input is longer than the size limit.
    SizeLimit = 12,
    /// Non-whitespace bytes after the top-level value.
    TrailingData = 13,
    /// Internal scratch memory too small (not returned by the ABI, which
    /// sizes its own scratch; listed because the number is taken).
    ScratchTooSmall = 14,
    /// The caller's output buffer is too small; the needed size is returned
    /// through the function's length out-parameter.
    OutputTooSmall = 15,
    /// The document is not one of the accepted `tools/list` shapes.
    NotToolsList = 32,
    /// An element of a `tools` array is not a JSON object.
    ToolNotObject = 33,
    /// A tool's `name` is missing or is not a string.
    NameNotString = 34,
    /// Two tools share a name, within or across pages.
    DuplicateToolName = 35,
    /// The tools/list document is a JSON-RPC error response.
    JsonRpcError = 36,
    /// More tools than the tool limit.
    ToolLimit = 37,
    /// A member's key is a name the format reads at that level only under
    /// case folding (`Description`, `Tools`), which a case-insensitive
    /// decoder would take for that member.
    CaseVariantKey = 38,
    /// The lock is not valid JSON; `error_offset` is the byte offset in the
    /// lock where the JSON error was found.
    LockSyntax = 64,
    /// The lock's `contractpin` format version is not one this library implements.
    LockUnsupportedVersion = 65,
    /// The lock's `algorithm` is not `sha256`.
    LockUnsupportedAlgorithm = 66,
    /// The lock's `canonicalization` is not `contractpin-canonical-json/1`.
    LockUnsupportedCanonicalization = 67,
    /// The lock is JSON but not a valid lock: a missing or mistyped key, a
    /// malformed digest or timestamp, an unknown transport, or a
    /// `tool_count` or server `digest` that does not match its tools (a hand
    /// edit or a bad merge).
    LockInvalid = 68,
    /// The requested server name is not in the lock.
    LockUnknownServer = 69,
    /// A required pointer argument was NULL (or NULL with a non-zero length).
    NullArgument = 100,
    /// An argument is out of its domain: unknown flag bits, an unknown field
    /// id, a length above `PTRDIFF_MAX`, a server name that is not UTF-8, an
    /// uninitialised SHA-256 state.
    InvalidArgument = 101,
    /// A bug: a Rust panic was caught at the boundary (or an internal error
    /// had no status of its own). Please report it.
    Panic = 102,
    /// An index is not below the item count.
    IndexOutOfRange = 103,
    /// The requested field is not part of this tool's contract
    /// (`outputSchema` or `annotations` absent or null).
    FieldAbsent = 104,
    /// No item has the requested name.
    NotFound = 105,
}

/// `(status, NUL-terminated name, NUL-terminated message)` for every status.
const TABLE: [(contractpin_status, &str, &str); 35] = {
    use contractpin_status as S;
    [
        (S::Ok, "ok\0", "success\0"),
        (
            S::UnexpectedEnd,
            "unexpected-end\0",
            "input ended in the middle of a JSON value\0",
        ),
        (
            S::UnexpectedByte,
            "unexpected-byte\0",
            "byte not allowed here by JSON syntax\0",
        ),
        (
            S::InvalidUtf8,
            "invalid-utf8\0",
            "string is not valid UTF-8\0",
        ),
        (
            S::ByteOrderMark,
            "byte-order-mark\0",
            "input starts with a byte order mark\0",
        ),
        (
            S::ControlCharacter,
            "control-character\0",
            "raw control character in a string\0",
        ),
        (
            S::InvalidEscape,
            "invalid-escape\0",
            "invalid escape sequence in a string\0",
        ),
        (
            S::LoneSurrogate,
            "lone-surrogate\0",
            "unpaired UTF-16 surrogate escape\0",
        ),
        (S::InvalidNumber, "invalid-number\0", "malformed number\0"),
        (
            S::NumberOutOfRange,
            "number-out-of-range\0",
            "number is too large for an IEEE-754 double\0",
        ),
        (S::DuplicateKey, "duplicate-key\0", "duplicate object key\0"),
        (
            S::DepthLimit,
            "depth-limit\0",
            "nesting deeper than the depth limit\0",
        ),
        (
            S::SizeLimit,
            "size-limit\0",
            "input larger than the size limit\0",
        ),
        (
            S::TrailingData,
            "trailing-data\0",
            "data after the top-level JSON value\0",
        ),
        (
            S::ScratchTooSmall,
            "scratch-too-small\0",
            "scratch memory too small\0",
        ),
        (
            S::OutputTooSmall,
            "output-too-small\0",
            "output buffer too small\0",
        ),
        (
            S::NotToolsList,
            "not-tools-list\0",
            "not a tools/list result, response, tools array or page sequence\0",
        ),
        (
            S::ToolNotObject,
            "tool-not-object\0",
            "tool is not a JSON object\0",
        ),
        (
            S::NameNotString,
            "name-not-string\0",
            "tool name is missing or not a string\0",
        ),
        (
            S::DuplicateToolName,
            "duplicate-tool-name\0",
            "two tools have the same name\0",
        ),
        (
            S::JsonRpcError,
            "json-rpc-error\0",
            "JSON-RPC error response\0",
        ),
        (
            S::ToolLimit,
            "tool-limit\0",
            "more tools than the tool limit\0",
        ),
        (
            S::CaseVariantKey,
            "case-variant-key\0",
            "a member's key is a name read here only under case folding\0",
        ),
        (
            S::LockSyntax,
            "lock-syntax\0",
            "lock file is not valid JSON\0",
        ),
        (
            S::LockUnsupportedVersion,
            "lock-unsupported-version\0",
            "lock file format version is not supported\0",
        ),
        (
            S::LockUnsupportedAlgorithm,
            "lock-unsupported-algorithm\0",
            "lock file digest algorithm is not supported\0",
        ),
        (
            S::LockUnsupportedCanonicalization,
            "lock-unsupported-canonicalization\0",
            "lock file canonicalization is not supported\0",
        ),
        (
            S::LockInvalid,
            "lock-invalid\0",
            "lock file does not have the shape of a contractpin lock\0",
        ),
        (
            S::LockUnknownServer,
            "lock-unknown-server\0",
            "server name is not in the lock file\0",
        ),
        (
            S::NullArgument,
            "null-argument\0",
            "a required pointer argument is NULL\0",
        ),
        (
            S::InvalidArgument,
            "invalid-argument\0",
            "an argument is outside its domain\0",
        ),
        (
            S::Panic,
            "panic\0",
            "internal error (caught panic); please report a bug\0",
        ),
        (
            S::IndexOutOfRange,
            "index-out-of-range\0",
            "index is not below the item count\0",
        ),
        (
            S::FieldAbsent,
            "field-absent\0",
            "the field is not part of this tool's contract\0",
        ),
        (S::NotFound, "not-found\0", "no item has this name\0"),
    ]
};

const UNKNOWN_NAME: &str = "unknown-status\0";
const UNKNOWN_MESSAGE: &str = "unknown status code\0";
const UNKNOWN_ROW: (contractpin_status, &str, &str) =
    (contractpin_status::Panic, UNKNOWN_NAME, UNKNOWN_MESSAGE);

impl contractpin_status {
    /// Every status, in numeric order.
    pub fn all() -> impl Iterator<Item = contractpin_status> {
        TABLE.iter().map(|row| row.0)
    }

    /// The status with this number, if any.
    pub fn from_code(code: u32) -> Option<contractpin_status> {
        Self::all().find(|s| *s as u32 == code)
    }

    fn row(self) -> &'static (contractpin_status, &'static str, &'static str) {
        // Every variant has a row (a unit test checks); the fallback is unreachable.
        TABLE
            .iter()
            .find(|row| row.0 == self)
            .unwrap_or(&UNKNOWN_ROW)
    }

    /// The stable kebab-case name (`"ok"`, `"unexpected-end"`, ...).
    pub fn name(self) -> &'static str {
        let n = self.row().1;
        &n[..n.len() - 1]
    }

    /// A one-line human explanation.
    pub fn message(self) -> &'static str {
        let m = self.row().2;
        &m[..m.len() - 1]
    }

    /// Whether this is [`contractpin_status::Ok`].
    pub fn is_ok(self) -> bool {
        self == contractpin_status::Ok
    }

    /// The core error kind with the same number, if this status is one.
    pub fn error_kind(self) -> Option<ErrorKind> {
        ErrorKind::from_code(self as u32)
    }
}

impl From<ErrorKind> for contractpin_status {
    /// The status with the same stable number as the core error kind.
    fn from(kind: ErrorKind) -> Self {
        contractpin_status::from_code(kind as u32).unwrap_or(contractpin_status::Panic)
    }
}

impl core::fmt::Display for contractpin_status {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

fn c_str(text: &'static str) -> *const c_char {
    text.as_ptr().cast()
}

/// The stable name of a status, such as `"ok"`, `"unexpected-end"` or
/// `"null-argument"`, as a static NUL-terminated ASCII string.
///
/// `status` may be any number: unknown numbers give `"unknown-status"`.
/// Never returns NULL. The string is owned by the library and lives for the
/// whole program; do not free it. Thread-safe.
#[no_mangle]
pub extern "C" fn contractpin_status_name(status: u32) -> *const c_char {
    match contractpin_status::from_code(status) {
        Some(s) => c_str(s.row().1),
        None => c_str(UNKNOWN_NAME),
    }
}

/// A one-line English explanation of a status, as a static NUL-terminated
/// ASCII string.
///
/// `status` may be any number: unknown numbers give `"unknown status
/// code"`. Never returns NULL. The string is owned by the library and lives
/// for the whole program; do not free it. Thread-safe.
#[no_mangle]
pub extern "C" fn contractpin_status_message(status: u32) -> *const c_char {
    match contractpin_status::from_code(status) {
        Some(s) => c_str(s.row().2),
        None => c_str(UNKNOWN_MESSAGE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_kind_is_a_status_with_the_same_number_and_name() {
        for kind in ErrorKind::ALL {
            let status = contractpin_status::from(kind);
            assert_eq!(status as u32, kind as u32, "{kind:?}");
            assert_eq!(status.name(), kind.name());
            assert_eq!(status.message(), kind.message());
            assert_eq!(status.error_kind(), Some(kind));
        }
    }

    #[test]
    fn table_is_complete_sorted_and_nul_terminated() {
        let mut last = None;
        for row in TABLE.iter() {
            assert!(
                row.1.ends_with('\0') && row.2.ends_with('\0'),
                "{:?}",
                row.0
            );
            assert_eq!(row.1.matches('\0').count(), 1);
            assert_eq!(row.2.matches('\0').count(), 1);
            if let Some(prev) = last {
                assert!((row.0 as u32) > prev, "{:?} out of order", row.0);
            }
            last = Some(row.0 as u32);
            assert_eq!(contractpin_status::from_code(row.0 as u32), Some(row.0));
        }
        let names: alloc::vec::Vec<_> = TABLE.iter().map(|r| r.1).collect();
        for (i, a) in names.iter().enumerate() {
            assert!(!names[i + 1..].contains(a), "duplicate name {a}");
        }
    }

    #[test]
    fn unknown_codes() {
        for code in [16, 31, 39, 63, 70, 99, 106, 1000, u32::MAX] {
            assert_eq!(contractpin_status::from_code(code), None, "{code}");
        }
    }
}
