//! The allocation-free entry points: every buffer comes from the caller.

use crate::contract::batch::{OneAtATime, ToolHasher};
use crate::contract::tool::{digest_tool, project_tool};
use crate::contract::tools_list::{digest_parsed_list, ListOptions, ListSummary, ToolReport};
use crate::contract::FieldDigests;
use crate::digest::Digest;
use crate::error::{Error, ErrorKind};
use crate::jcs::{write_value, Sink, SliceSink};
use crate::json::{Node, SliceStore, Store};
use crate::limits::Limits;

/// Parses into `store` and writes the canonical form of the whole document.
pub(crate) fn canonical_to<S: Store, K: Sink>(
    input: &[u8],
    store: &mut S,
    limits: &Limits,
    sink: &mut K,
) -> Result<(), Error> {
    crate::json::parser_entry(input, store, limits)?;
    write_value(sink, input, store.nodes(), &[], 0)
}

/// Parses one tool object into `store` and writes its canonical contract.
#[cfg(feature = "alloc")]
pub(crate) fn contract_to<S: Store, K: Sink>(
    input: &[u8],
    store: &mut S,
    limits: &Limits,
    sink: &mut K,
) -> Result<(), Error> {
    crate::json::parser_entry(input, store, limits)?;
    let nodes = store.nodes();
    let projection = project_tool(input, nodes, 0)?;
    crate::contract::tool::write_contract(sink, input, nodes, &[], &projection)
}

/// Parses one tool object into `store`; its tool digest and field digests.
pub(crate) fn tool_digest_in<S: Store>(
    input: &[u8],
    store: &mut S,
    limits: &Limits,
) -> Result<(Digest, FieldDigests), Error> {
    crate::json::parser_entry(input, store, limits)?;
    let nodes = store.nodes();
    let projection = project_tool(input, nodes, 0)?;
    digest_tool(input, nodes, &[], &projection, true)
}

/// Canonicalizes any JSON document into `out`, returning the length written.
///
/// Fails with [`ErrorKind::OutputTooSmall`] (and [`Error::needed`] bytes) when
/// `out` is too short, or [`ErrorKind::ScratchTooSmall`] when `scratch` is.
pub fn canonicalize_into(
    input: &[u8],
    scratch: &mut [Node],
    limits: &Limits,
    out: &mut [u8],
) -> Result<usize, Error> {
    let mut store = SliceStore {
        buf: scratch,
        len: 0,
    };
    let mut sink = SliceSink::new(out);
    canonical_to(input, &mut store, limits, &mut sink)?;
    if !sink.fits() {
        return Err(Error::with_needed(
            ErrorKind::OutputTooSmall,
            0,
            sink.needed(),
        ));
    }
    Ok(sink.needed())
}

/// The tool digest and field digests of one tool object (spec sections 2, 4.1, 4.2).
pub fn tool_digest_with(
    input: &[u8],
    scratch: &mut [Node],
    limits: &Limits,
) -> Result<(Digest, FieldDigests), Error> {
    let mut store = SliceStore {
        buf: scratch,
        len: 0,
    };
    tool_digest_in(input, &mut store, limits)
}

/// Digests a whole tools/list in any accepted shape (spec sections 4.3, 4.4).
///
/// `on_tool` is called once per tool, in canonical name order, before the
/// server digest is final.
pub fn digest_tools_list_with<F: FnMut(&ToolReport<'_>)>(
    input: &[u8],
    scratch: &mut [Node],
    limits: &Limits,
    options: ListOptions,
    on_tool: F,
) -> Result<ListSummary, Error> {
    let mut store = SliceStore {
        buf: scratch,
        len: 0,
    };
    digest_list_in(input, &mut store, limits, options, &mut OneAtATime, on_tool)
}

/// [`digest_tools_list_with`] over any node store.
pub(crate) fn digest_list_in<S: Store, H: ToolHasher, F: FnMut(&ToolReport<'_>)>(
    input: &[u8],
    store: &mut S,
    limits: &Limits,
    options: ListOptions,
    hasher: &mut H,
    on_tool: F,
) -> Result<ListSummary, Error> {
    crate::json::parser_entry(input, store, limits)?;
    digest_parsed_list(input, store.nodes(), &[], limits, options, hasher, on_tool)
}
