//! The C ABI (feature `ffi`): every `contractpin_*` symbol of
//! `include/contractpin.h`.
//!
//! Modelled on rustls-ffi and BLAKE3's C API:
//!
//! - every function returns a [`contractpin_status`] (stable numbers, never
//!   reused) or a plain value that cannot fail;
//! - input buffers are `(pointer, length)` pairs; a NULL pointer with length
//!   0 is an empty input, a NULL pointer with a non-zero length is
//!   [`contractpin_status::NullArgument`];
//! - outputs are written only on success (the documented exceptions: the
//!   needed size on [`contractpin_status::OutputTooSmall`] and the byte offset
//!   of an input error, both through out-parameters);
//! - the byte offset of an input error is returned through an optional
//!   `size_t *error_offset` out-parameter; there is no thread-local "last
//!   error";
//! - library-allocated results ([`contractpin_server`],
//!   [`contractpin_report`], [`contractpin_lock`], [`contractpin_lock_error`],
//!   [`contractpin_guard_result`], [`contractpin_guard_instructions_result`],
//!   [`contractpin_gate`], [`contractpin_enforcer`], [`contractpin_decision`])
//!   are opaque and freed by a matching `*_free`;
//! - the streaming SHA-256 state [`contractpin_sha256`] is caller-allocated,
//!   with a fixed size and alignment;
//! - no panic unwinds across the boundary: with the `std` feature (the
//!   shipped library) every export runs under `catch_unwind` and a panic
//!   becomes [`contractpin_status::Panic`]. Without `std` a panic cannot be
//!   caught; Rust aborts the process instead of unwinding out of an
//!   `extern "C"` function, so the boundary stays sound either way.
//!
//! The ABI code, including verification ([`contractpin_verify`], built on
//! the lock reader and the verify classifier; [`contractpin_lock_verify_server`]
//! and [`contractpin_verify_server_with_limits`] also compare the
//! handshake, as `contractpin verify` does) and the run-time guard
//! ([`contractpin_guard_page`] and [`contractpin_guard_instructions`], the
//! decisions of `contractpin proxy`, built on [`crate::guard`], and
//! [`contractpin_gate_new`], the proxy's tool-call state, and
//! [`contractpin_enforcer_new`], the proxy's decisions on whole messages),
//! needs only
//! `alloc`. The
//! shipped `cdylib`/`staticlib` (`scripts/build-lib.sh`) are built with the
//! features `ffi,std`: `std` gives the panic boundary, the panic handler and
//! the allocator (a `no_std` build must bring its own, and then panics abort
//! instead of being caught). No CLI, HTTP or TLS crate is linked in.
//!
//! The `contractpin` CLI does not call these functions: it uses the safe
//! Rust API. The ABI is covered by its own suites (C, Go, Python, Miri and
//! the `ffi` fuzz target).
//!
//! See `docs/C_ABI.md` for the full reference.
#![allow(non_camel_case_types)]

mod boundary;
mod canon;
mod digest_text;
mod enforcer;
mod gate;
mod guard;
mod limits;
mod lock;
mod server;
mod sha256;
mod status;
mod verify;
mod verify_server;
mod version;

pub use canon::{
    contractpin_canonicalize, contractpin_canonicalize_with_limits, contractpin_tool_contract,
    contractpin_tool_digest, contractpin_tool_digest_bytes,
};
pub use digest_text::{
    contractpin_digest_to_text, CONTRACTPIN_DIGEST_SIZE, CONTRACTPIN_DIGEST_TEXT_LEN,
    CONTRACTPIN_DIGEST_TEXT_SIZE,
};
pub use enforcer::{
    contractpin_action, contractpin_decision, contractpin_decision_action,
    contractpin_decision_bytes, contractpin_decision_event_count, contractpin_decision_event_json,
    contractpin_decision_free, contractpin_decision_reply, contractpin_enforcer,
    contractpin_enforcer_client, contractpin_enforcer_free, contractpin_enforcer_new,
    contractpin_enforcer_server, contractpin_enforcer_summary, CONTRACTPIN_ENFORCER_BLOCK,
    CONTRACTPIN_ENFORCER_IGNORE_INSTRUCTIONS,
};
pub use gate::{
    contractpin_gate, contractpin_gate_check, contractpin_gate_free, contractpin_gate_list_changed,
    contractpin_gate_new, contractpin_gate_page, contractpin_gate_refused, contractpin_refusal,
    contractpin_refusal_message, contractpin_refusal_name, CONTRACTPIN_PAGE_FIRST,
    CONTRACTPIN_PAGE_NEXT, CONTRACTPIN_PAGE_UNMATCHED,
};
pub use guard::{
    contractpin_guard_instructions, contractpin_guard_instructions_result,
    contractpin_guard_instructions_result_bytes, contractpin_guard_instructions_result_event_json,
    contractpin_guard_instructions_result_free, contractpin_guard_instructions_result_verdict,
    contractpin_guard_page, contractpin_guard_result, contractpin_guard_result_bytes,
    contractpin_guard_result_callable, contractpin_guard_result_event,
    contractpin_guard_result_event_count, contractpin_guard_result_event_json,
    contractpin_guard_result_free, contractpin_guard_result_passed_count,
    contractpin_guard_result_passed_name, contractpin_guard_status,
    contractpin_instructions_status, CONTRACTPIN_GUARD_OBSERVE,
};
pub use limits::{contractpin_limits, contractpin_limits_default};
pub use lock::{
    contractpin_lock, contractpin_lock_error, contractpin_lock_error_detail,
    contractpin_lock_error_free, contractpin_lock_error_offset, contractpin_lock_error_path,
    contractpin_lock_error_status, contractpin_lock_free, contractpin_lock_parse,
    contractpin_lock_server_count, contractpin_lock_server_name, contractpin_lock_verify,
};
pub use server::{
    contractpin_digest_tools_list, contractpin_digest_tools_list_with_limits, contractpin_field,
    contractpin_field_name, contractpin_server, contractpin_server_digest,
    contractpin_server_find_tool, contractpin_server_free, contractpin_server_tool_count,
    contractpin_server_tool_digest, contractpin_server_tool_field_digest,
    contractpin_server_tool_fields, contractpin_server_tool_name, CONTRACTPIN_FIELD_COUNT,
};
pub use sha256::{
    contractpin_sha256, contractpin_sha256_backend, contractpin_sha256_digest,
    contractpin_sha256_final, contractpin_sha256_init, contractpin_sha256_update,
    CONTRACTPIN_SHA256_STATE_SIZE,
};
pub use status::{contractpin_status, contractpin_status_message, contractpin_status_name};
pub use verify::{
    contractpin_report, contractpin_report_counts, contractpin_report_exit_code,
    contractpin_report_free, contractpin_report_json, contractpin_report_live_digest,
    contractpin_report_pinned_digest, contractpin_report_tool, contractpin_report_tool_count,
    contractpin_report_tool_live_digest, contractpin_report_tool_pinned_digest,
    contractpin_report_tool_rename, contractpin_tool_status, contractpin_verify,
    contractpin_verify_with_limits, CONTRACTPIN_VERIFY_ALLOW_NEW,
    CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS,
};
pub use verify_server::{
    contractpin_input, contractpin_lock_verify_server, contractpin_report_instructions,
    contractpin_report_instructions_live_digest, contractpin_report_instructions_pinned_digest,
    contractpin_report_version_changed, contractpin_verify_server_with_limits,
};
pub use version::{
    contractpin_version, contractpin_version_major, contractpin_version_minor,
    contractpin_version_patch,
};
