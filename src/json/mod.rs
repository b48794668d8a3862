//! The strict JSON parser (RFC 8259 plus the I-JSON rules of SPEC.md) and the
//! flat tape it produces.
//!
//! ```
//! use contractpin::json::{self, Node, Tag};
//! use contractpin::Limits;
//! let mut scratch = [Node::EMPTY; 16];
//! let tape = json::parse(br#"{"b":1,"a":[true,null]}"#, &mut scratch, &Limits::DEFAULT).unwrap();
//! assert_eq!(tape.root().tag(), Tag::Object);
//! assert_eq!(tape.root().get("a").unwrap().elements().count(), 2);
//! ```

mod index;
mod indexed;
mod key_sort;
mod number_token;
#[cfg(feature = "alloc")]
pub(crate) mod onepass;
mod parser;
#[cfg(feature = "alloc")]
mod span;
mod string_scan;
mod tape;
#[cfg(test)]
mod test_docs;
pub(crate) mod unescape;

#[cfg(feature = "alloc")]
pub(crate) use index::Index;
#[cfg(feature = "alloc")]
pub(crate) use indexed::{Containers, Place};
pub(crate) use key_sort::{find_adjacent_equal, sort_list, END};
#[cfg(feature = "alloc")]
pub(crate) use key_sort::{sort_list_keyed, Item as SortItem};
pub(crate) use number_token::Form as NumberForm;
#[cfg(feature = "alloc")]
pub(crate) use parser::is_ws;
#[cfg(feature = "alloc")]
pub(crate) use parser::parse_fast;
pub(crate) use parser::parse_into as parser_entry;
pub use parser::scratch_needed;
pub(crate) use parser::{SliceStore, Store};
#[cfg(feature = "alloc")]
pub(crate) use span::{decode, splice, value_end, value_span};
pub(crate) use tape::next_index;
pub use tape::{Elements, Members, Node, SortedMembers, Tag, Tape, Value, NO_PARENT};

use crate::error::Error;
use crate::limits::Limits;

/// Parses `input` into a tape whose nodes `nodes` holds, grown as the parse
/// goes (for the std layer's documents: messages, handshakes, the lock, the
/// client configurations the CLI reads). Unlike scratch sized by
/// [`scratch_needed`] first, an input over the size limit fails before any
/// node is stored, and one that fails early (a syntax error, the depth
/// limit) has cost only the nodes before its error.
#[cfg(feature = "alloc")]
pub fn parse_growing<'a>(
    input: &'a [u8],
    nodes: &'a mut alloc::vec::Vec<Node>,
    limits: &Limits,
) -> Result<Tape<'a>, Error> {
    nodes.clear();
    parser::parse_into(input, nodes, limits)?;
    Ok(Tape { input, nodes })
}

/// Parses `input` into a tape stored in `scratch`, allocating nothing.
///
/// `scratch` needs one node per value and per object key;
/// [`scratch_needed`] computes that. Too little scratch fails with
/// [`ErrorKind::ScratchTooSmall`](crate::ErrorKind::ScratchTooSmall), whose
/// [`Error::needed`] is a sufficient node count.
pub fn parse<'a>(
    input: &'a [u8],
    scratch: &'a mut [Node],
    limits: &Limits,
) -> Result<Tape<'a>, Error> {
    let mut store = SliceStore {
        buf: scratch,
        len: 0,
    };
    parser::parse_into(input, &mut store, limits)?;
    let len = store.len;
    Ok(Tape {
        input,
        nodes: &store.buf[..len],
    })
}
