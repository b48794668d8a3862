//! The streaming digest of a `tools/list` (a reused
//! [`Context`](crate::Context)): each tool's contract is written to the
//! batch as soon as its object closes during the parse, while the canonical
//! bytes of its schemas are still in cache, and once no tool or page is
//! open the one-pass canonicalizer's buffer is rewound, so that it holds
//! one tool's (or one page's) bytes instead of the whole document's. After
//! the parse the list is checked and ordered as `tools_list` does, and the
//! finished tools are reported in name order.
//!
//! It gives the same digests, reports and errors as the parse-then-hash
//! path (`tools_list::digest_parsed_list`), or nothing: a listed tool
//! without a streamed result (a tool whose projection, case-variant check
//! or contract failed, more objects than the tool limit), or any error of
//! the list check, makes [`digest_streamed`] return `None` before anything
//! is reported, and the caller runs that path, which reports every error
//! in its order.

use alloc::vec::Vec;

use super::batch::{Batch, Done, ToolHasher};
use super::tool::project_tool;
use super::tools_list::{sorted_names, ListShape, ListSummary, Reporter, ToolReport};
use crate::json::onepass::Canon;
use crate::json::{Containers, Index, Node, Place, SortItem, Tag, END, NO_PARENT};
use crate::limits::Limits;

/// The tape builder's hooks for a streamed list: containers are collapsed
/// as [`ListShape`] does, and each candidate tool is hashed as it closes.
pub(crate) struct Streamed<'c> {
    pub canon: &'c mut Canon,
    pub batch: &'c mut Batch,
    /// The finished tools, in the order their objects closed.
    pub done: &'c mut Vec<Done>,
    pub fields: bool,
    /// At most this many tools are kept (the tool limit).
    pub max_tools: usize,
}

/// Whether `n` is an object that is an element of an array: a tool, a page
/// of a sequence, or an element of a `tools` or `result` member inside a
/// tool (the only elements that stay nodes, see [`ListShape`]).
fn is_element(nodes: &[Node], n: &Node) -> bool {
    n.tag() == Tag::Object && n.parent != NO_PARENT && nodes[n.parent as usize].tag() == Tag::Array
}

/// Whether no element object encloses the one at `at`: then none is open
/// while it closes, and the canonical bytes written so far are needed by
/// nothing still to come.
fn outermost(nodes: &[Node], at: usize) -> bool {
    let mut p = nodes[at].parent;
    while p != NO_PARENT {
        let n = &nodes[p as usize];
        if is_element(nodes, n) {
            return false;
        }
        p = n.parent;
    }
    true
}

impl Containers for Streamed<'_> {
    #[inline]
    fn collapse(
        &mut self,
        input: &[u8],
        index: &mut Index<'_>,
        pos: usize,
        place: Place<'_>,
        max_depth: u32,
    ) -> Result<Option<(usize, usize)>, ()> {
        ListShape(self.canon).collapse(input, index, pos, place, max_depth)
    }

    fn closed(&mut self, input: &[u8], nodes: &[Node], at: usize) {
        if !is_element(nodes, &nodes[at]) {
            return;
        }
        // Every element object with a name and no case-variant key gets a
        // result; only the listed tools' are looked up. (A page projects to
        // nothing.) The keys are checked here, while the tool's nodes are
        // in cache, so the list check after the parse need not read them.
        if self.done.len() < self.max_tools {
            if let Ok(projection) = project_tool(input, nodes, at) {
                let tool = (&projection, projection.name_node());
                let done = &mut *self.done;
                // An error leaves the tool without a result: see the module doc.
                let _ = self.batch.add(
                    input,
                    nodes,
                    self.canon.bytes(),
                    tool,
                    self.fields,
                    &mut |d| done.push(d),
                );
            }
        }
        // Its contract is in the batch (or hashed already); once no element
        // around it is open, the canonical bytes so far are needed no more.
        if outermost(nodes, at) {
            self.canon.rewind();
        }
    }
}

/// After a streamed parse of `input` into `nodes` (whose tools are in
/// `done`; `names`: a reused buffer for sorting): the list checked, and
/// every tool reported in name order.
/// `None` when a listed tool has no result, or the list check fails
/// (nothing has been reported then).
pub(crate) fn digest_streamed<F: FnMut(&ToolReport<'_>)>(
    input: &[u8],
    nodes: &mut [Node],
    (done, names): (&mut [Done], &mut Vec<SortItem>),
    limits: &Limits,
    on_tool: F,
) -> Option<ListSummary> {
    // Every listed tool with a result had its case-variant keys checked
    // as it closed; on any error the caller's exact path reports the
    // first in its order.
    let (head, count) = sorted_names(input, nodes, limits, names).ok()?;
    let nodes: &[Node] = nodes;
    // In the order the objects closed: by name node, but for an element
    // inside a tool, which closes before the tool.
    if !done.is_sorted_by_key(|d| d.name) {
        done.sort_unstable_by_key(|d| d.name);
    }
    let done: &[Done] = done;
    let find = |name: u32| done.binary_search_by_key(&name, |d| d.name).ok();
    let mut name = head;
    while name != END {
        find(name)?;
        name = nodes[name as usize].link;
    }
    let mut reporter = Reporter::new(input, nodes, on_tool);
    let mut name = head;
    while name != END {
        reporter.report(done[find(name)?]);
        name = nodes[name as usize].link;
    }
    Some(reporter.finish(count))
}
