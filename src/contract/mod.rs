//! Tool contracts (spec section 2) and their digests (spec section 4).
//!
//! - [`tool`]: projecting one tool object onto its contract and hashing it.
//! - `batch`: hashing a list's tools one at a time or in batches.
//! - [`tools_list`]: the accepted `tools/list` shapes, duplicate names.
//! - `server`: the server digest framing (spec 4.3), the one copy of it.
//! - `stream`: a reused context's list digest, each tool hashed as its
//!   object closes during the parse.
//! - `instructions`: the digest of a server's instructions text (spec section 13).
//! - [`variant`]: the case-variant key rule (spec section 6).

pub(crate) mod batch;
pub(crate) mod instructions;
pub(crate) mod server;
#[cfg(feature = "alloc")]
pub(crate) mod stream;
pub mod tool;
pub mod tools_list;
pub mod variant;

use crate::digest::Digest;
use crate::json::unescape;

/// A contract member. The variants are in canonical (UTF-16) key order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Field {
    /// `annotations` (optional).
    Annotations = 0,
    /// `description` (required; `null` when absent).
    Description = 1,
    /// `inputSchema` (required; `null` when absent).
    InputSchema = 2,
    /// `name` (required; must be a string).
    Name = 3,
    /// `outputSchema` (optional).
    OutputSchema = 4,
}

impl Field {
    /// All fields in canonical order.
    pub const ALL: [Field; 5] = [
        Field::Annotations,
        Field::Description,
        Field::InputSchema,
        Field::Name,
        Field::OutputSchema,
    ];

    /// The member name as it appears in the tool object.
    pub const fn name(self) -> &'static str {
        match self {
            Field::Annotations => "annotations",
            Field::Description => "description",
            Field::InputSchema => "inputSchema",
            Field::Name => "name",
            Field::OutputSchema => "outputSchema",
        }
    }

    /// Whether the field is always present in the contract.
    pub const fn required(self) -> bool {
        matches!(self, Field::Description | Field::InputSchema | Field::Name)
    }

    /// The field with this member name.
    pub fn from_name(name: &str) -> Option<Field> {
        Field::ALL.iter().copied().find(|f| f.name() == name)
    }
}

/// The advisory per-field digests of one contract (spec section 4.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FieldDigests(pub(crate) [Option<Digest>; 5]);

impl FieldDigests {
    /// The digest of `field`, if the contract has it.
    pub fn get(&self, field: Field) -> Option<Digest> {
        self.0[field as usize]
    }

    /// The present fields and their digests, in canonical order.
    pub fn iter(&self) -> impl Iterator<Item = (Field, Digest)> + '_ {
        Field::ALL
            .iter()
            .filter_map(move |&f| self.0[f as usize].map(|d| (f, d)))
    }

    /// Whether no field digest was computed.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }
}

/// A JSON string as it appears in the input: raw bytes between the quotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsonStr<'a> {
    pub(crate) raw: &'a [u8],
    pub(crate) escaped: bool,
}

impl<'a> JsonStr<'a> {
    /// The raw bytes between the quotes (escapes not decoded).
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// The text, when it has no escapes (no decoding needed).
    pub fn as_plain(&self) -> Option<&'a str> {
        if self.escaped {
            None
        } else {
            core::str::from_utf8(self.raw).ok()
        }
    }

    /// Length in bytes of the decoded UTF-8 text.
    pub fn decoded_len(&self) -> usize {
        if self.escaped {
            unescape::decoded_len(self.raw)
        } else {
            self.raw.len()
        }
    }

    /// Decodes into `out`; `None` if `out` is shorter than [`JsonStr::decoded_len`].
    pub fn decode_into<'b>(&self, out: &'b mut [u8]) -> Option<&'b str> {
        let n = unescape::decode_into(self.raw, out)?;
        core::str::from_utf8(&out[..n]).ok()
    }

    /// The decoded text.
    #[cfg(feature = "alloc")]
    pub fn to_owned_string(&self) -> alloc::string::String {
        let mut out = alloc::vec![0u8; self.decoded_len()];
        let n = unescape::decode_into(self.raw, &mut out).unwrap_or(0);
        out.truncate(n);
        alloc::string::String::from_utf8(out).unwrap_or_default()
    }
}
