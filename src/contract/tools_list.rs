//! A whole `tools/list`: the accepted input shapes, duplicate-name checks,
//! per-tool digests and the server digest (spec sections 4.3, 4.4).
//!
//! Accepted shapes (SPEC.md section "tools/list input"):
//! - a result object `{"tools": [...], ...}`;
//! - a JSON-RPC response `{"result": {"tools": [...]}, ...}` (one with an
//!   `error` member is [`ErrorKind::JsonRpcError`]; one with a `tools`
//!   member beside `result` is [`ErrorKind::NotToolsList`], since the two
//!   readings would check different lists);
//! - a bare array of tool objects;
//! - a page sequence: an array whose first element is an object with a
//!   `tools`, `result` or `error` member and no `name` member; every element
//!   is then a result object or a JSON-RPC response.

use super::batch::{Done, ToolHasher};
use super::server::ServerObject;
use super::tool::{key_is, project};
use super::{variant, FieldDigests, JsonStr};
use crate::digest::Digest;
use crate::error::{Error, ErrorKind};
#[cfg(feature = "alloc")]
use crate::json::sort_list_keyed;
use crate::json::{find_adjacent_equal, next_index, sort_list, Node, Tag, END};
use crate::limits::Limits;
use crate::sha256::Sha256;

/// One tool's digests, handed to the caller in canonical name order.
#[derive(Clone, Copy, Debug)]
pub struct ToolReport<'a> {
    /// The tool's name as written in the input.
    pub name: JsonStr<'a>,
    /// The tool digest (spec section 4.1).
    pub digest: Digest,
    /// Field digests (spec section 4.2); empty unless requested.
    pub fields: FieldDigests,
    /// Byte offset of the tool object in the input.
    pub offset: usize,
}

/// What to compute for each tool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListOptions {
    /// Also compute field digests (needed for a lock; not for a plain check).
    pub field_digests: bool,
}

/// The result for a whole tools/list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListSummary {
    /// The server digest (spec section 4.3).
    pub digest: Digest,
    /// Number of tools over all pages.
    pub tool_count: usize,
}

fn offset_of(nodes: &[Node], i: usize) -> usize {
    let n = &nodes[i];
    if n.tag() == Tag::String {
        n.start() - 1
    } else {
        n.start()
    }
}

/// Value index of the member `key` of the object at `obj`.
fn find_member(input: &[u8], nodes: &[Node], obj: usize, key: &str) -> Option<usize> {
    let end = nodes[obj].value();
    let mut k = obj + 1;
    while k < end {
        if key_is(input, &nodes[k], key) {
            return Some(k + 1);
        }
        k = next_index(nodes, k + 1);
    }
    None
}

/// The containers the shapes above read node by node stay nodes: the root,
/// an object that is an element of such an array (a page or a tool), and
/// the value of a `result` or `tools` member of such an object. Every other
/// array or object (a tool's schemas and annotations, an `error` object,
/// `_meta`) is canonicalized whole by the one-pass canonicalizer and kept
/// as one collapsed node (`json::tape`), which the contract writer copies.
#[cfg(feature = "alloc")]
pub(crate) struct ListShape<'c>(pub &'c mut crate::json::onepass::Canon);

#[cfg(feature = "alloc")]
impl crate::json::Containers for ListShape<'_> {
    #[inline]
    fn collapse(
        &mut self,
        input: &[u8],
        index: &mut crate::json::Index<'_>,
        pos: usize,
        place: crate::json::Place<'_>,
        max_depth: u32,
    ) -> Result<Option<(usize, usize)>, ()> {
        use crate::json::Place;
        let nodes = match place {
            Place::Root => true,
            Place::Element => input[pos] == b'{',
            Place::Member(key) => key_is(input, key, "result") || key_is(input, key, "tools"),
        };
        if nodes {
            return Ok(None);
        }
        self.0
            .container(input, index, pos, max_depth)
            .map(Some)
            .ok_or(())
    }
}

fn is_page(input: &[u8], nodes: &[Node], i: usize) -> bool {
    nodes[i].tag() == Tag::Object
        && find_member(input, nodes, i, "name").is_none()
        && ["tools", "result", "error"]
            .iter()
            .any(|k| find_member(input, nodes, i, k).is_some())
}

/// The first key of the object at `obj` that is a case variant of one of
/// `names` (spec section 6), as an error at that key.
fn no_variant(input: &[u8], nodes: &[Node], obj: usize, names: &[&str]) -> Result<(), Error> {
    let end = nodes[obj].value();
    let mut k = obj + 1;
    while k < end {
        if super::tool::is_variant_key(input, &nodes[k], names) {
            return Err(Error::new(ErrorKind::CaseVariantKey, offset_of(nodes, k)));
        }
        k = next_index(nodes, k + 1);
    }
    Ok(())
}

/// The `tools` array of one page (result object or JSON-RPC response). A
/// key that is a case variant of a member read here (`Tools`, `Result`) is
/// [`ErrorKind::CaseVariantKey`].
fn page_tools(input: &[u8], nodes: &[Node], page: usize) -> Result<usize, Error> {
    if nodes[page].tag() != Tag::Object {
        return Err(Error::new(ErrorKind::NotToolsList, offset_of(nodes, page)));
    }
    no_variant(input, nodes, page, &variant::PAGE)?;
    no_variant(input, nodes, page, &variant::MESSAGE)?;
    if let Some(e) = find_member(input, nodes, page, "error") {
        return Err(Error::new(ErrorKind::JsonRpcError, offset_of(nodes, e)));
    }
    let mut obj = page;
    if let Some(r) = find_member(input, nodes, page, "result") {
        // `tools` beside `result`: a client reads one list and a checker
        // could read the other, so neither is taken.
        if nodes[r].tag() != Tag::Object || find_member(input, nodes, page, "tools").is_some() {
            return Err(Error::new(ErrorKind::NotToolsList, offset_of(nodes, r)));
        }
        obj = r;
        no_variant(input, nodes, obj, &variant::PAGE)?;
    }
    match find_member(input, nodes, obj, "tools") {
        Some(t) if nodes[t].tag() == Tag::Array => Ok(t),
        Some(t) => Err(Error::new(ErrorKind::NotToolsList, offset_of(nodes, t))),
        None => Err(Error::new(ErrorKind::NotToolsList, offset_of(nodes, obj))),
    }
}

/// Links the name nodes of every tool into a list (document order) and
/// returns `(head, count)`. Checks tool objects, names, case-variant keys
/// (spec section 6; only when `variants`) and the tool limit.
fn collect_tools(
    input: &[u8],
    nodes: &mut [Node],
    limits: &Limits,
    variants: bool,
) -> Result<(u32, usize), Error> {
    let mut head = END;
    let mut tail = END;
    let mut count = 0usize;
    let mut add_array = |nodes: &mut [Node], array: usize| -> Result<(), Error> {
        let end = nodes[array].value();
        let mut e = array + 1;
        while e < end {
            if nodes[e].tag() != Tag::Object {
                return Err(Error::new(ErrorKind::ToolNotObject, offset_of(nodes, e)));
            }
            let (name, variant) = super::tool::name_and_variant(input, nodes, e, variants);
            let name = match name {
                Some(v) if nodes[v].tag() == Tag::String => v as u32,
                Some(v) => return Err(Error::new(ErrorKind::NameNotString, offset_of(nodes, v))),
                None => return Err(Error::new(ErrorKind::NameNotString, offset_of(nodes, e))),
            };
            if let Some(at) = variant {
                return Err(Error::new(ErrorKind::CaseVariantKey, at));
            }
            if count >= limits.max_tools {
                return Err(Error::new(ErrorKind::ToolLimit, offset_of(nodes, e)));
            }
            count += 1;
            if tail == END {
                head = name;
            } else {
                nodes[tail as usize].link = name;
            }
            tail = name;
            e = next_index(nodes, e);
        }
        Ok(())
    };
    match nodes[0].tag() {
        Tag::Object => {
            let t = page_tools(input, nodes, 0)?;
            add_array(nodes, t)?;
        }
        Tag::Array if nodes[0].value() > 1 && is_page(input, nodes, 1) => {
            let end = nodes[0].value();
            let mut p = 1;
            while p < end {
                let t = page_tools(input, nodes, p)?;
                add_array(nodes, t)?;
                p = next_index(nodes, p);
            }
        }
        Tag::Array => add_array(nodes, 0)?,
        _ => return Err(Error::new(ErrorKind::NotToolsList, offset_of(nodes, 0))),
    }
    Ok((head, count))
}

/// The listed tools in canonical name order: the head of the list of their
/// name nodes (linked through `link`) and the count. The errors of the
/// list's shape, its tools' objects and names and case-variant keys, the
/// tool limit and duplicate names, in that order.
pub(crate) fn sorted_tools(
    input: &[u8],
    nodes: &mut [Node],
    limits: &Limits,
) -> Result<(u32, usize), Error> {
    let (head, count) = collect_tools(input, nodes, limits, true)?;
    let (head, maybe_equal) = sort_list(input, nodes, head);
    check_duplicates(input, nodes, head, maybe_equal)?;
    Ok((head, count))
}

/// [`sorted_tools`] without the tools' case-variant keys, for a caller
/// that has checked every listed tool's keys itself ([`super::stream`],
/// with `tool::project_tool` as each tool closed, while its nodes were in
/// cache), sorted in the reused buffer `names` ([`sort_list_keyed`]). Its
/// errors are those of `sorted_tools` but neither in its order (the keys of
/// a tool after the failing one were not checked here) nor at its offsets
/// (of several equal names, another pair may be found), so such a caller
/// reports none of them itself.
#[cfg(feature = "alloc")]
pub(crate) fn sorted_names(
    input: &[u8],
    nodes: &mut [Node],
    limits: &Limits,
    names: &mut alloc::vec::Vec<crate::json::SortItem>,
) -> Result<(u32, usize), Error> {
    let (head, count) = collect_tools(input, nodes, limits, false)?;
    let (head, maybe_equal) = sort_list_keyed(input, nodes, head, names);
    check_duplicates(input, nodes, head, maybe_equal)?;
    Ok((head, count))
}

/// [`ErrorKind::DuplicateToolName`] at the later of the first two equal
/// adjacent names of the sorted list at `head`, when `maybe_equal`.
fn check_duplicates(
    input: &[u8],
    nodes: &[Node],
    head: u32,
    maybe_equal: bool,
) -> Result<(), Error> {
    if maybe_equal {
        if let Some((a, b)) = find_adjacent_equal(input, nodes, head) {
            let later = nodes[a as usize].start().max(nodes[b as usize].start());
            return Err(Error::new(ErrorKind::DuplicateToolName, later - 1));
        }
    }
    Ok(())
}

/// Takes the finished tools in canonical name order: each goes into the
/// canonical server object (spec 4.3), hashed as it is written, and to the
/// caller's `on_tool`.
pub(crate) struct Reporter<'a, F> {
    input: &'a [u8],
    nodes: &'a [Node],
    hash: Sha256,
    object: ServerObject,
    on_tool: F,
}

impl<'a, F: FnMut(&ToolReport<'_>)> Reporter<'a, F> {
    pub(crate) fn new(input: &'a [u8], nodes: &'a [Node], on_tool: F) -> Self {
        let mut hash = Sha256::new();
        let object = ServerObject::begin(&mut hash);
        Reporter {
            input,
            nodes,
            hash,
            object,
            on_tool,
        }
    }

    /// The next tool in name order.
    pub(crate) fn report(&mut self, done: Done) {
        let n = &self.nodes[done.name as usize];
        let raw = &self.input[n.start()..n.start() + n.value()];
        self.object
            .entry(&mut self.hash, raw, n.flag(), &done.digest);
        (self.on_tool)(&ToolReport {
            name: JsonStr {
                raw,
                escaped: n.flag(),
            },
            digest: done.digest,
            fields: done.fields,
            offset: done.offset,
        });
    }

    /// The server digest of the `tool_count` tools reported.
    pub(crate) fn finish(self, tool_count: usize) -> ListSummary {
        let Reporter {
            mut hash, object, ..
        } = self;
        object.end(&mut hash);
        ListSummary {
            digest: Digest(hash.finalize()),
            tool_count,
        }
    }
}

/// Digests every tool of the tools/list parsed into `nodes` (`canon`: the
/// bytes of its collapsed containers, see `json::tape`; empty for a tape
/// without any): the server digest of the canonical server object
/// `{name: tool_digest, ...}`, and the tool count. `on_tool` sees each
/// tool in canonical name order. Rewrites the `link` fields of name nodes.
/// `hasher` decides how the contracts are hashed (one at a time, or in
/// batches); the digests, the order and any error are the same.
pub(crate) fn digest_parsed_list<H: ToolHasher, F: FnMut(&ToolReport<'_>)>(
    input: &[u8],
    nodes: &mut [Node],
    canon: &[u8],
    limits: &Limits,
    options: ListOptions,
    hasher: &mut H,
    on_tool: F,
) -> Result<ListSummary, Error> {
    let (head, count) = sorted_tools(input, nodes, limits)?;
    let nodes: &[Node] = nodes;
    let mut reporter = Reporter::new(input, nodes, on_tool);
    let mut emit = |done: Done| reporter.report(done);
    let mut name = head;
    while name != END {
        let n = &nodes[name as usize];
        let added = project(input, nodes, n.parent as usize).and_then(|projection| {
            let tool = (&projection, name);
            hasher.add(input, nodes, canon, tool, options.field_digests, &mut emit)
        });
        if let Err(e) = added {
            hasher.flush(&mut emit);
            return Err(e);
        }
        name = n.link;
    }
    hasher.flush(&mut emit);
    Ok(reporter.finish(count))
}
