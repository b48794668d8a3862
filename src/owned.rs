//! Owned, growable results (feature `alloc`) and the reusable [`Context`].

use alloc::string::String;
use alloc::vec::Vec;

use crate::contract::batch::{Batch, Done, OneAtATime, ToolHasher};
use crate::contract::stream::{digest_streamed, Streamed};
use crate::contract::tool::{digest_tool, project, project_tool, write_contract};
use crate::contract::tools_list::{digest_parsed_list, ListShape};
use crate::contract::tools_list::{ListOptions, ToolReport};
use crate::contract::FieldDigests;
use crate::digest::Digest;
use crate::error::Error;
use crate::jcs::write_value;
use crate::jcs::Sink;
use crate::json::onepass::Canon;
use crate::json::{Node, SortItem, Store};
use crate::limits::Limits;
use crate::scratch_api::{canonical_to, contract_to, digest_list_in, tool_digest_in};

/// One tool of a [`ServerDigest`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolDigest {
    /// The tool name (decoded).
    pub name: String,
    /// The tool digest.
    pub digest: Digest,
    /// The field digests of every contract member (empty for an unchanged
    /// tool in [`live_digest_against`](crate::verify::live_digest_against)).
    pub fields: FieldDigests,
}

/// The digests of a whole tools/list: the lock's server entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerDigest {
    /// The server digest.
    pub digest: Digest,
    /// Every tool, sorted by name in UTF-16 order.
    pub tools: Vec<ToolDigest>,
}

/// Canonical RFC 8785 bytes of any JSON document.
pub fn canonicalize(input: &[u8]) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(presize_for(input, &Limits::DEFAULT));
    Context::new().canonicalize_to(input, &mut out)?;
    Ok(out)
}

/// The tool digest of one tool object (projected onto its contract first).
pub fn tool_digest(tool_json: &[u8]) -> Result<Digest, Error> {
    Context::new().tool_digest(tool_json).map(|(d, _)| d)
}

/// Canonical bytes of one tool's contract (spec section 2).
pub fn tool_contract(tool_json: &[u8]) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    let mut ctx = Context::new();
    contract_to(tool_json, &mut ctx.nodes, &ctx.limits, &mut out)?;
    Ok(out)
}

/// Every tool's decoded name and canonical contract, in canonical name order.
pub type Contracts = Vec<(String, Vec<u8>)>;

/// The canonical contract (spec section 2) of every tool of a tools/list in
/// any accepted shape, with its decoded name, in canonical name order: what
/// a lock's snapshot records and what a drift report compares.
pub fn tool_contracts(input: &[u8], limits: &Limits) -> Result<Contracts, Error> {
    digest_with_contracts(input, limits, ListOptions::default()).map(|(_, contracts)| contracts)
}

/// The digests of a tools/list (field digests as `options` asks) and the
/// canonical contract of every tool, as [`tool_contracts`] gives them, from
/// one parse: what `contractpin init` pins and snapshots.
pub fn digest_with_contracts(
    input: &[u8],
    limits: &Limits,
    options: ListOptions,
) -> Result<(ServerDigest, Contracts), Error> {
    let mut ctx = Context::with_limits(*limits);
    let mut tools = Vec::new();
    let mut offsets = Vec::new();
    let on_tool = |t: &ToolReport<'_>| {
        tools.push(tool_digest_of(t));
        offsets.push(t.offset);
    };
    let (digest, _) = ctx.digest_whole(input, options, on_tool, true)?;
    // The list's tape and canonical bytes are still in `ctx` (the digest
    // only relinked the name nodes, which the writer does not follow), so
    // each contract is written from them.
    let (nodes, canon) = (&ctx.nodes[..], ctx.canon.bytes());
    let contracts = tools
        .iter()
        .zip(offsets)
        .map(|(tool, offset)| {
            let projection = project(input, nodes, tool_at(nodes, offset))?;
            let mut out = Vec::new();
            write_contract(&mut out, input, nodes, canon, &projection)?;
            Ok((tool.name.clone(), out))
        })
        .collect::<Result<_, Error>>()?;
    Ok((ServerDigest { digest, tools }, contracts))
}

/// The tape index of the tool object whose `{` is at `offset`: the tape is
/// in document order, so node starts strictly increase along it.
fn tool_at(nodes: &[Node], offset: usize) -> usize {
    let i = nodes.partition_point(|n| n.start() < offset);
    debug_assert!(nodes[i].start() == offset && nodes[i].tag() == crate::json::Tag::Object);
    i
}

/// Server digest, tool digests and field digests of a tools/list in any accepted shape.
pub fn digest_tools_list(input: &[u8]) -> Result<ServerDigest, Error> {
    // One-shot: reserve the exact node count (one cheap lexical pass) rather
    // than a reused context's estimate, so peak heap stays near the input size.
    let within = Limits::DEFAULT.accepts_len(input.len());
    let mut nodes = Vec::with_capacity(if within {
        crate::json::scratch_needed(input)
    } else {
        0
    });
    owned_list_in(
        input,
        &mut nodes,
        &Limits::default(),
        ListOptions {
            field_digests: true,
        },
        &mut OneAtATime,
    )
}

/// The room to reserve for the canonical bytes of `input`: its length
/// within `limits`, nothing over them (the parse then fails on its size
/// before writing anything).
pub(crate) fn presize_for(input: &[u8], limits: &Limits) -> usize {
    if limits.accepts_len(input.len()) {
        input.len()
    } else {
        0
    }
}

/// The owned form of one tool's report.
fn tool_digest_of(t: &ToolReport<'_>) -> ToolDigest {
    ToolDigest {
        name: t.name.to_owned_string(),
        digest: t.digest,
        fields: t.fields,
    }
}

/// Digests a tools/list into `store`, collecting an owned [`ServerDigest`].
fn owned_list_in<S: Store, H: ToolHasher>(
    input: &[u8],
    store: &mut S,
    limits: &Limits,
    options: ListOptions,
    hasher: &mut H,
) -> Result<ServerDigest, Error> {
    let mut tools = Vec::new();
    let summary = digest_list_in(input, store, limits, options, hasher, |t| {
        tools.push(tool_digest_of(t))
    })?;
    Ok(ServerDigest {
        digest: summary.digest,
        tools,
    })
}

/// Reusable state for repeated digests: after the first few calls its
/// buffers have grown to fit and further calls allocate nothing (except the
/// owned results of the `*_owned` methods).
#[derive(Debug, Default)]
pub struct Context {
    nodes: Vec<Node>,
    out: Vec<u8>,
    /// The batch the tools' contracts are written to and hashed from
    /// (`contract::batch`), at most 512 KiB of contracts.
    batch: Batch,
    limits: Limits,
    /// The one-pass canonicalizer's buffers: the bytes of the collapsed
    /// containers of the last parse (`json::tape`).
    canon: Canon,
    /// The tools of the last streamed list digest (`contract::stream`).
    done: Vec<Done>,
    /// Their names while the list is sorted (`json::sort_list_keyed`).
    names: Vec<SortItem>,
}

impl Context {
    /// A context with default limits.
    pub fn new() -> Context {
        Context::default()
    }

    /// A context with the given limits.
    pub fn with_limits(limits: Limits) -> Context {
        Context {
            limits,
            ..Context::default()
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Replaces the limits.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    fn reserve_nodes(&mut self, input: &[u8]) {
        // Typical JSON has one token per 8+ bytes; growth covers the rest.
        let want = input.len() / 8 + 16;
        if self.nodes.capacity() < want {
            self.nodes.reserve(want - self.nodes.len());
            #[cfg(feature = "std")]
            crate::mem::advise_huge_pages(&mut self.nodes);
        }
    }

    /// Canonical bytes of `input`, in a buffer owned by the context.
    pub fn canonicalize(&mut self, input: &[u8]) -> Result<&[u8], Error> {
        let mut out = core::mem::take(&mut self.out);
        out.clear();
        let result = self.canonicalize_to(input, &mut out);
        self.out = out;
        result.map(|_| &self.out[..])
    }

    /// Writes the canonical bytes of `input` to any sink.
    pub fn canonicalize_to<K: Sink>(&mut self, input: &[u8], sink: &mut K) -> Result<(), Error> {
        if self.parse_collapsed(input) {
            return write_value(sink, input, &self.nodes, self.canon.bytes(), 0);
        }
        canonical_to(input, &mut self.nodes, &self.limits, sink)
    }

    /// Tool digest and field digests of one tool object.
    pub fn tool_digest(&mut self, input: &[u8]) -> Result<(Digest, FieldDigests), Error> {
        if self.parse_collapsed(input) {
            let projection = project_tool(input, &self.nodes, 0)?;
            return digest_tool(input, &self.nodes, self.canon.bytes(), &projection, true);
        }
        tool_digest_in(input, &mut self.nodes, &self.limits)
    }

    /// Parses `input` the one-pass way: the containers below a tools/list's
    /// tools' members collapsed into `self.canon` ([`ListShape`]), the rest
    /// as nodes. `false` when it could not (invalid input, a limit, or an
    /// input this path does not take): the classic parse must then run,
    /// which also reports the error.
    fn parse_collapsed(&mut self, input: &[u8]) -> bool {
        if !self.limits.accepts_len(input.len()) {
            return false;
        }
        self.reserve_nodes(input);
        self.canon.reset(input.len());
        // The canonical form of a tools/list is about the input's size: one
        // allocation up front, starting at a huge page where it spans one,
        // on huge pages where the kernel gives them, and mapped in one call
        // rather than a fault per page as it is written.
        #[cfg(feature = "std")]
        let align = crate::mem::alignment_for(input.len());
        #[cfg(not(feature = "std"))]
        let align = 1;
        #[cfg_attr(not(feature = "std"), allow(unused_variables))]
        if let Some((buf, origin)) = self.canon.presize(input.len(), align) {
            #[cfg(feature = "std")]
            {
                crate::mem::advise_huge_pages(buf);
                crate::mem::prefault(buf, origin..origin + input.len());
            }
        }
        let mut shape = ListShape(&mut self.canon);
        crate::json::parse_fast(input, &mut self.nodes, &self.limits, &mut shape)
    }

    /// Parses `input` as [`Context::parse_collapsed`] does, hashing each
    /// tool as its object closes (`contract::stream`): its results in
    /// `self.done`. `false` when the parse failed.
    fn parse_streamed(&mut self, input: &[u8], fields: bool) -> bool {
        if !self.limits.accepts_len(input.len()) {
            return false;
        }
        self.reserve_nodes(input);
        // No presizing: the canonical buffer holds one tool at a time.
        self.canon.reset(input.len());
        self.done.clear();
        self.batch.discard();
        let mut shape = Streamed {
            canon: &mut self.canon,
            batch: &mut self.batch,
            done: &mut self.done,
            fields,
            max_tools: self.limits.max_tools,
        };
        if !crate::json::parse_fast(input, &mut self.nodes, &self.limits, &mut shape) {
            self.batch.discard();
            return false;
        }
        let done = &mut self.done;
        self.batch.flush(&mut |d| done.push(d));
        true
    }

    /// Digests a tools/list, calling `on_tool` for each tool in name order;
    /// returns the server digest and the tool count.
    pub fn digest_tools_list<F: FnMut(&ToolReport<'_>)>(
        &mut self,
        input: &[u8],
        options: ListOptions,
        mut on_tool: F,
    ) -> Result<(Digest, usize), Error> {
        let parsed = self.parse_streamed(input, options.field_digests);
        if parsed {
            let (nodes, done) = (&mut self.nodes, (&mut self.done[..], &mut self.names));
            if let Some(summary) = digest_streamed(input, nodes, done, &self.limits, &mut on_tool) {
                return Ok((summary.digest, summary.tool_count));
            }
        }
        // A parse error, or a list the stream did not finish: the tape
        // parsed again, and every error reported in its order.
        self.digest_whole(input, options, on_tool, parsed)
    }

    /// [`Context::digest_tools_list`] the parse-then-hash way: the whole
    /// tape and the canonical bytes of its collapsed containers are kept in
    /// the context afterward (`digest_with_contracts` writes each contract
    /// from them). `try_fast: false` goes straight to the exact parser.
    fn digest_whole<F: FnMut(&ToolReport<'_>)>(
        &mut self,
        input: &[u8],
        options: ListOptions,
        on_tool: F,
        try_fast: bool,
    ) -> Result<(Digest, usize), Error> {
        if try_fast && self.parse_collapsed(input) {
            let summary = digest_parsed_list(
                input,
                &mut self.nodes,
                self.canon.bytes(),
                &self.limits,
                options,
                &mut self.batch,
                on_tool,
            )?;
            return Ok((summary.digest, summary.tool_count));
        }
        let summary = digest_list_in(
            input,
            &mut self.nodes,
            &self.limits,
            options,
            &mut self.batch,
            on_tool,
        )?;
        Ok((summary.digest, summary.tool_count))
    }

    /// Like [`Context::digest_tools_list`] but collects an owned [`ServerDigest`].
    pub fn digest_tools_list_owned(
        &mut self,
        input: &[u8],
        options: ListOptions,
    ) -> Result<ServerDigest, Error> {
        let mut tools = Vec::new();
        let (digest, _) =
            self.digest_tools_list(input, options, |t| tools.push(tool_digest_of(t)))?;
        Ok(ServerDigest { digest, tools })
    }
}
