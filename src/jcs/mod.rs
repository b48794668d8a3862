//! The canonical writer: RFC 8785 output of a parsed tape into any [`Sink`].
//!
//! ```
//! use contractpin::{jcs, json, Limits};
//! let mut scratch = [json::Node::EMPTY; 8];
//! let tape = json::parse(br#"{"b":1e2,"a":"\u0041"}"#, &mut scratch, &Limits::DEFAULT).unwrap();
//! let mut out = [0u8; 32];
//! let mut sink = jcs::SliceSink::new(&mut out);
//! jcs::write(&mut sink, tape.root()).unwrap();
//! let n = sink.needed();
//! assert_eq!(&out[..n], br#"{"a":"A","b":100}"#);
//! ```

mod key_order;
mod sink;
mod string;
mod writer;

pub use key_order::cmp_utf16;
pub(crate) use key_order::{cmp_utf8_as_utf16, utf16_rank};
#[cfg(feature = "alloc")]
pub(crate) use sink::GrowBuf;
pub(crate) use sink::Staged;
pub use sink::{CountSink, Sink, SliceSink, Tee};
#[cfg(feature = "alloc")]
pub(crate) use string::{escape_is_canonical, write_code_point};
pub use string::{write_str, write_string};
#[cfg(feature = "alloc")]
pub(crate) use writer::write_number;
pub(crate) use writer::write_value;

use crate::error::Error;
use crate::json::Value;

/// Writes `value` (and everything under it) in canonical form.
pub fn write<S: Sink>(sink: &mut S, value: Value<'_>) -> Result<(), Error> {
    write_value(sink, value.tape.input, value.tape.nodes, &[], value.index)
}
