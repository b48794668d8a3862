//! `contractpin_server`: the digests of a whole tools/list.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::ffi::c_char;

use super::boundary::{borrow, finish, guarded, input, non_null, status_of, write_opt, Failure};
use super::digest_text::write_bytes;
use super::limits::{contractpin_limits, resolve};
use super::status::contractpin_status;
use crate::contract::tools_list::ListOptions;
use crate::contract::Field;
use crate::owned::{Context, ServerDigest, ToolDigest};

/// A contract member, as used by the field-digest accessors and the
/// changed-fields bit masks (bit `1 << field`). The numbers are stable.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum contractpin_field {
    /// `annotations` (optional in a contract).
    Annotations = 0,
    /// `description` (always in a contract; `null` when absent).
    Description = 1,
    /// `inputSchema` (always in a contract; `null` when absent).
    InputSchema = 2,
    /// `name` (always in a contract).
    Name = 3,
    /// `outputSchema` (optional in a contract).
    OutputSchema = 4,
}

/// Number of contract fields; valid field ids are `0..CONTRACTPIN_FIELD_COUNT`.
pub const CONTRACTPIN_FIELD_COUNT: u32 = 5;

impl contractpin_field {
    /// The core field.
    pub fn field(self) -> Field {
        match self {
            contractpin_field::Annotations => Field::Annotations,
            contractpin_field::Description => Field::Description,
            contractpin_field::InputSchema => Field::InputSchema,
            contractpin_field::Name => Field::Name,
            contractpin_field::OutputSchema => Field::OutputSchema,
        }
    }

    /// The ABI field for a core field.
    pub fn from_field(field: Field) -> contractpin_field {
        match field {
            Field::Annotations => contractpin_field::Annotations,
            Field::Description => contractpin_field::Description,
            Field::InputSchema => contractpin_field::InputSchema,
            Field::Name => contractpin_field::Name,
            Field::OutputSchema => contractpin_field::OutputSchema,
        }
    }

    /// The field with this id, if any.
    pub fn from_id(id: u32) -> Option<contractpin_field> {
        Field::ALL
            .iter()
            .map(|f| contractpin_field::from_field(*f))
            .find(|f| *f as u32 == id)
    }

    /// The bit of this field in a field mask.
    pub fn bit(self) -> u32 {
        1 << self as u32
    }
}

const FIELD_NAMES: [&str; 5] = [
    "annotations\0",
    "description\0",
    "inputSchema\0",
    "name\0",
    "outputSchema\0",
];

/// The member name of a contract field (`"inputSchema"` etc.) as a static
/// NUL-terminated string, or NULL when `field` is not below
/// `CONTRACTPIN_FIELD_COUNT`. Do not free the string. Thread-safe.
#[no_mangle]
pub extern "C" fn contractpin_field_name(field: u32) -> *const c_char {
    match contractpin_field::from_id(field) {
        Some(f) => FIELD_NAMES[f as usize].as_ptr().cast(),
        None => core::ptr::null(),
    }
}

/// The digests of a whole tools/list (an opaque, library-allocated object):
/// the server digest (spec 4.3) and, for every tool in canonical name order
/// (UTF-16 code units), its name, tool digest and field digests.
///
/// Created by `contractpin_digest_tools_list`, released by
/// `contractpin_server_free`. Immutable after creation: the accessors may be
/// called from several threads at once.
pub struct contractpin_server {
    digest: ServerDigest,
    /// Every tool name followed by a NUL byte, back to back.
    names: Vec<u8>,
    /// Where each tool's name starts in `names`.
    starts: Vec<usize>,
}

impl contractpin_server {
    /// Wraps an owned result.
    pub fn new(digest: ServerDigest) -> contractpin_server {
        let mut names = Vec::new();
        let mut starts = Vec::with_capacity(digest.tools.len());
        for tool in &digest.tools {
            starts.push(names.len());
            names.extend_from_slice(tool.name.as_bytes());
            names.push(0);
        }
        contractpin_server {
            digest,
            names,
            starts,
        }
    }

    /// The owned result, for Rust callers (the CLI) that created this object
    /// through `contractpin_digest_tools_list`.
    pub fn as_server_digest(&self) -> &ServerDigest {
        &self.digest
    }

    fn tool(&self, index: usize) -> Result<&ToolDigest, Failure> {
        self.digest
            .tools
            .get(index)
            .ok_or_else(|| contractpin_status::IndexOutOfRange.into())
    }

    /// Index of the tool called `name` (tools are sorted by UTF-16 code units).
    fn find(&self, name: &[u8]) -> Option<usize> {
        let name = core::str::from_utf8(name).ok()?;
        self.digest
            .tools
            .binary_search_by(|t| crate::jcs::cmp_utf16(&t.name, name))
            .ok()
    }
}

/// Digests a tools/list in any accepted shape, with the default limits.
///
/// Same as `contractpin_digest_tools_list_with_limits(input, input_len, NULL,
/// out, error_offset)`; see there.
///
/// # Safety
/// As for `contractpin_digest_tools_list_with_limits`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_digest_tools_list(
    input: *const u8,
    input_len: usize,
    out: *mut *mut contractpin_server,
    error_offset: *mut usize,
) -> contractpin_status {
    // SAFETY: forwarded contract; NULL limits are the defaults.
    unsafe {
        contractpin_digest_tools_list_with_limits(
            input,
            input_len,
            core::ptr::null(),
            out,
            error_offset,
        )
    }
}

/// Digests a tools/list in any accepted shape (a result object, a JSON-RPC
/// response, a bare array of tools, or an array of pages): the server digest,
/// and every tool's digest and field digests.
///
/// - `input`, `input_len`: the document. NULL with length 0 is the empty
///   input.
/// - `limits`: NULL for the defaults, or the limits to apply.
/// - `out` (required): on success receives a new `contractpin_server *`
///   owned by the caller, to be released with `contractpin_server_free`.
///   Not written on failure.
/// - `error_offset` (optional): the byte offset of an input error
///   (statuses 1-13 and 32-38).
///
/// Thread-safe: no shared state.
///
/// # Safety
/// `input` must be NULL or valid for reading `input_len` bytes; `limits` NULL
/// or valid for reading; `out` NULL or valid for writing a pointer;
/// `error_offset` NULL or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_digest_tools_list_with_limits(
    input: *const u8,
    input_len: usize,
    limits: *const contractpin_limits,
    out: *mut *mut contractpin_server,
    error_offset: *mut usize,
) -> contractpin_status {
    let result = guarded(|| {
        non_null(out)?;
        // SAFETY: `limits` is NULL or readable by the caller's contract.
        let limits = unsafe { resolve(limits) };
        // SAFETY: `input` is NULL or readable for `input_len` bytes.
        let doc = unsafe { self::input(input, input_len) }?;
        let digest = Context::with_limits(limits).digest_tools_list_owned(
            doc,
            ListOptions {
                field_digests: true,
            },
        )?;
        let server = Box::into_raw(Box::new(contractpin_server::new(digest)));
        // SAFETY: `out` is non-null and writable by the caller's contract.
        unsafe { out.write(server) };
        Ok(())
    });
    // SAFETY: `error_offset` is NULL or writable by the caller's contract.
    unsafe { finish(result, error_offset) }
}

/// Releases a `contractpin_server`. NULL is a no-op. Every pointer obtained
/// from its accessors (tool names) becomes invalid.
///
/// # Safety
/// `server` must be NULL or a pointer from `contractpin_digest_tools_list*`
/// that has not been freed yet; it must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn contractpin_server_free(server: *mut contractpin_server) {
    // SAFETY: by the caller's contract `server` is NULL or came from this
    // library and is freed only once.
    unsafe { super::boundary::free_boxed(server) }
}

/// The server digest (spec section 4.3) as 32 raw bytes.
///
/// `out` is a caller buffer of at least 32 bytes, written only on success
/// (format it with `contractpin_digest_to_text`). Returns
/// `CONTRACTPIN_STATUS_NULL_ARGUMENT` for a NULL argument.
///
/// # Safety
/// `server` must be NULL or a live `contractpin_server`; `out` NULL or valid
/// for writing 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_server_digest(
    server: *const contractpin_server,
    out: *mut u8,
) -> contractpin_status {
    status_of(|| {
        non_null(out)?;
        // SAFETY: `server` is NULL or live by the caller's contract.
        let server = unsafe { borrow(server) }?;
        // SAFETY: `out` is non-null and writable for 32 bytes.
        unsafe { write_bytes(&server.digest.digest, out) };
        Ok(())
    })
}

/// The number of tools (0 for a NULL `server`).
///
/// # Safety
/// `server` must be NULL or a live `contractpin_server`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_server_tool_count(server: *const contractpin_server) -> usize {
    // SAFETY: `server` is NULL or live by the caller's contract.
    match unsafe { borrow(server) } {
        Ok(server) => server.digest.tools.len(),
        Err(_) => 0,
    }
}

/// The name of the tool at `index` (tools are in canonical order: by UTF-16
/// code units of the name).
///
/// On success `*name` points at the UTF-8 name (which may contain NUL bytes
/// if the JSON escaped them) and `*name_len` holds its length in bytes; a
/// NUL byte follows the name, so names without embedded NULs can be used as C
/// strings. The memory belongs to `server` and lives until
/// `contractpin_server_free`. Both out-parameters are required and are
/// written only on success. Statuses: `CONTRACTPIN_STATUS_NULL_ARGUMENT`,
/// `CONTRACTPIN_STATUS_INDEX_OUT_OF_RANGE`.
///
/// # Safety
/// `server` must be NULL or a live `contractpin_server`; `name` and
/// `name_len` NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn contractpin_server_tool_name(
    server: *const contractpin_server,
    index: usize,
    name: *mut *const u8,
    name_len: *mut usize,
) -> contractpin_status {
    status_of(|| {
        non_null(name)?;
        non_null(name_len)?;
        // SAFETY: `server` is NULL or live by the caller's contract.
        let server = unsafe { borrow(server) }?;
        let tool = server.tool(index)?;
        let start = server.starts[index];
        // SAFETY: both pointers are non-null and writable by the contract.
        unsafe {
            name.write(server.names[start..].as_ptr());
            name_len.write(tool.name.len());
        }
        Ok(())
    })
}

/// The tool digest (spec section 4.1) of the tool at `index`, as 32 raw
/// bytes written to `out` (at least 32 bytes) only on success. Statuses:
/// `CONTRACTPIN_STATUS_NULL_ARGUMENT`, `CONTRACTPIN_STATUS_INDEX_OUT_OF_RANGE`.
///
/// # Safety
/// `server` must be NULL or a live `contractpin_server`; `out` NULL or valid
/// for writing 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_server_tool_digest(
    server: *const contractpin_server,
    index: usize,
    out: *mut u8,
) -> contractpin_status {
    status_of(|| {
        non_null(out)?;
        // SAFETY: `server` is NULL or live by the caller's contract.
        let server = unsafe { borrow(server) }?;
        let tool = server.tool(index)?;
        // SAFETY: `out` is non-null and writable for 32 bytes.
        unsafe { write_bytes(&tool.digest, out) };
        Ok(())
    })
}

/// The set of fields in the contract of the tool at `index`, as a bit mask
/// (`1u << CONTRACTPIN_FIELD_*`): `description`, `inputSchema` and `name` are
/// always present, `outputSchema` and `annotations` when the tool defines
/// them with a non-null value. Written to `*mask` only on success.
///
/// # Safety
/// `server` must be NULL or a live `contractpin_server`; `mask` NULL or valid
/// for writing a `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_server_tool_fields(
    server: *const contractpin_server,
    index: usize,
    mask: *mut u32,
) -> contractpin_status {
    status_of(|| {
        non_null(mask)?;
        // SAFETY: `server` is NULL or live by the caller's contract.
        let server = unsafe { borrow(server) }?;
        let tool = server.tool(index)?;
        let bits = tool
            .fields
            .iter()
            .fold(0u32, |m, (f, _)| m | contractpin_field::from_field(f).bit());
        // SAFETY: `mask` is non-null and writable.
        unsafe { mask.write(bits) };
        Ok(())
    })
}

/// The field digest (spec section 4.2) of one contract field of the tool at
/// `index`, as 32 raw bytes written to `out` only on success.
///
/// `field` is a `contractpin_field` value. Statuses:
/// `CONTRACTPIN_STATUS_NULL_ARGUMENT`, `CONTRACTPIN_STATUS_INDEX_OUT_OF_RANGE`,
/// `CONTRACTPIN_STATUS_INVALID_ARGUMENT` (unknown field id),
/// `CONTRACTPIN_STATUS_FIELD_ABSENT` (the optional field is not in this
/// tool's contract).
///
/// # Safety
/// `server` must be NULL or a live `contractpin_server`; `out` NULL or valid
/// for writing 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_server_tool_field_digest(
    server: *const contractpin_server,
    index: usize,
    field: u32,
    out: *mut u8,
) -> contractpin_status {
    status_of(|| {
        non_null(out)?;
        // SAFETY: `server` is NULL or live by the caller's contract.
        let server = unsafe { borrow(server) }?;
        let tool = server.tool(index)?;
        let field = contractpin_field::from_id(field).ok_or(contractpin_status::InvalidArgument)?;
        let digest = tool
            .fields
            .get(field.field())
            .ok_or(contractpin_status::FieldAbsent)?;
        // SAFETY: `out` is non-null and writable for 32 bytes.
        unsafe { write_bytes(&digest, out) };
        Ok(())
    })
}

/// Finds a tool by name (exact bytes, UTF-8) and writes its index to
/// `*index` on success. Returns `CONTRACTPIN_STATUS_NOT_FOUND` if no tool
/// has this name (including names that are not valid UTF-8). `name` may be
/// NULL when `name_len` is 0 (the empty name). O(log n).
///
/// # Safety
/// `server` must be NULL or a live `contractpin_server`; `name` NULL or valid
/// for reading `name_len` bytes; `index` NULL or valid for writing a
/// `size_t`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_server_find_tool(
    server: *const contractpin_server,
    name: *const u8,
    name_len: usize,
    index: *mut usize,
) -> contractpin_status {
    status_of(|| {
        non_null(index)?;
        // SAFETY: `server` is NULL or live by the caller's contract.
        let server = unsafe { borrow(server) }?;
        // SAFETY: `name` is NULL or readable for `name_len` bytes.
        let name = unsafe { input(name, name_len) }?;
        let found = server.find(name).ok_or(contractpin_status::NotFound)?;
        // SAFETY: `index` is non-null and writable.
        unsafe { write_opt(index, found) };
        Ok(())
    })
}
