//! One tool: projection onto the contract (spec section 2), canonical
//! contract bytes, tool digest and field digests (spec sections 4.1, 4.2).

use super::{Field, FieldDigests};
use crate::digest::Digest;
use crate::error::{Error, ErrorKind};
use crate::jcs::{write_value, Sink, Staged};
use crate::json::{next_index, unescape, Node, Tag};
use crate::sha256::{Sha256, Sha256Pair};

/// Where each contract field's value sits on the tape (`None`: absent, or
/// `null` for an optional field).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Projection {
    slots: [Option<usize>; 5],
    /// Byte offset of the tool object.
    pub offset: usize,
}

#[cfg(feature = "alloc")]
impl Projection {
    /// Tape index of the tool's name (a string node).
    pub(crate) fn name_node(&self) -> u32 {
        // `project` fails a tool without one, so there always is one.
        self.slots[Field::Name as usize].map_or(0, |i| i as u32)
    }
}

/// Which contract field (if any) the key node at `key` names, after unescaping.
fn field_of_key(input: &[u8], key: &Node) -> Option<Field> {
    let raw = &input[key.start()..key.start() + key.value()];
    Field::ALL.iter().copied().find(|f| {
        if key.flag() {
            unescape::decoded_eq(raw, f.name().as_bytes())
        } else {
            raw == f.name().as_bytes()
        }
    })
}

/// Whether the key (string) node `key` is a case variant of one of `names`
/// ([`super::variant`]). Most keys fail on their length or first letter.
pub(crate) fn is_variant_key(input: &[u8], key: &Node, names: &[&str]) -> bool {
    let raw = &input[key.start()..key.start() + key.value()];
    super::variant::is_variant(raw, names)
}

/// Whether the key (string) node `n` spells `key` after unescaping.
pub(crate) fn key_is(input: &[u8], n: &Node, key: &str) -> bool {
    let raw = &input[n.start()..n.start() + n.value()];
    if n.flag() {
        unescape::decoded_eq(raw, key.as_bytes())
    } else {
        raw == key.as_bytes()
    }
}

/// One pass over the members of the tool object at tape index `tool`: the
/// tape index of its `name` value, and, when `variants`, the byte offset of
/// its first key that is a case variant of a contract member's (spec
/// section 6). Without `variants` the pass stops at the name.
pub(crate) fn name_and_variant(
    input: &[u8],
    nodes: &[Node],
    tool: usize,
    variants: bool,
) -> (Option<usize>, Option<usize>) {
    let (mut name, mut variant) = (None, None);
    let end = nodes[tool].value();
    let mut key = tool + 1;
    while key < end {
        let k = &nodes[key];
        if name.is_none() && key_is(input, k, "name") {
            name = Some(key + 1);
            if !variants {
                break;
            }
        } else if variants && variant.is_none() && is_variant_key(input, k, &super::variant::TOOL) {
            variant = Some(k.start() - 1);
        }
        key = next_index(nodes, key + 1);
    }
    (name, variant)
}

/// [`project`] for a tool whose keys no list check has seen (a tool on its
/// own, or a tool of a streamed list): after its name is checked, a member
/// whose key is a case variant of a contract member's is
/// [`ErrorKind::CaseVariantKey`] (spec section 6). One pass over the
/// members does both.
pub(crate) fn project_tool(input: &[u8], nodes: &[Node], tool: usize) -> Result<Projection, Error> {
    let (projection, variant) = project_walk(input, nodes, tool, true)?;
    match variant {
        Some(at) => Err(Error::new(ErrorKind::CaseVariantKey, at)),
        None => Ok(projection),
    }
}

/// Finds the contract fields of the tool object at tape index `tool`
/// (case-variant keys are the caller's: `tools_list`, or [`project_tool`]).
pub(crate) fn project(input: &[u8], nodes: &[Node], tool: usize) -> Result<Projection, Error> {
    project_walk(input, nodes, tool, false).map(|(projection, _)| projection)
}

/// [`project`], and when `variants` the byte offset of the first key that
/// is a case variant of a contract member's. A key that names a field is
/// none (the names never fold to each other), so only the others are
/// checked.
fn project_walk(
    input: &[u8],
    nodes: &[Node],
    tool: usize,
    variants: bool,
) -> Result<(Projection, Option<usize>), Error> {
    let t = &nodes[tool];
    if t.tag() != Tag::Object {
        let offset = if t.tag() == Tag::String {
            t.start() - 1
        } else {
            t.start()
        };
        return Err(Error::new(ErrorKind::ToolNotObject, offset));
    }
    let mut slots = [None; 5];
    let mut variant = None;
    let end = t.value();
    let mut key = tool + 1;
    while key < end {
        let k = &nodes[key];
        if let Some(f) = field_of_key(input, k) {
            let value = key + 1;
            let is_null = nodes[value].tag() == Tag::Null;
            // An optional field that is null is the same as absent.
            if !is_null || f.required() {
                slots[f as usize] = Some(value);
            }
        } else if variants && variant.is_none() && is_variant_key(input, k, &super::variant::TOOL) {
            variant = Some(k.start() - 1);
        }
        key = next_index(nodes, key + 1);
    }
    match slots[Field::Name as usize] {
        Some(i) if nodes[i].tag() == Tag::String => {}
        Some(i) => return Err(Error::new(ErrorKind::NameNotString, nodes[i].start())),
        None => return Err(Error::new(ErrorKind::NameNotString, t.start())),
    }
    // A required field that is explicitly null is the same as absent.
    for f in [Field::Description, Field::InputSchema] {
        if let Some(i) = slots[f as usize] {
            if nodes[i].tag() == Tag::Null {
                slots[f as usize] = None;
            }
        }
    }
    let projection = Projection {
        slots,
        offset: t.start(),
    };
    Ok((projection, variant))
}

/// Writes one field value (or `null`) to `sink`.
fn write_field<S: Sink>(
    sink: &mut S,
    input: &[u8],
    nodes: &[Node],
    canon: &[u8],
    slot: Option<usize>,
) -> Result<(), Error> {
    match slot {
        Some(i) => write_value(sink, input, nodes, canon, i),
        None => {
            sink.write(b"null");
            Ok(())
        }
    }
}

/// Where [`emit_contract`] sends the canonical contract: its framing (braces,
/// commas, member names) and each member value, which may also feed that
/// field's digest.
pub(super) trait ContractOut {
    /// Contract bytes outside member values.
    fn frame(&mut self, bytes: &[u8]);
    /// Bytes of the current member value.
    fn value(&mut self, bytes: &[u8]);
    /// The value of `field` is complete.
    fn end_value(&mut self, field: Field);
}

/// The [`Sink`] for the member values of a [`ContractOut`].
struct Values<'o, O>(&'o mut O);

impl<O: ContractOut> Sink for Values<'_, O> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.0.value(bytes)
    }
}

/// The contract alone, to any sink.
struct Plain<'s, S>(&'s mut S);

impl<S: Sink> ContractOut for Plain<'_, S> {
    #[inline]
    fn frame(&mut self, bytes: &[u8]) {
        self.0.write(bytes)
    }
    #[inline]
    fn value(&mut self, bytes: &[u8]) {
        self.0.write(bytes)
    }
    #[inline]
    fn end_value(&mut self, _: Field) {}
}

/// Both streams of a [`Sha256Pair`], as one sink.
struct Both(Sha256Pair);

impl Sink for Both {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.0.update_both(bytes)
    }
}

/// The tool digest in stream A and the current field's digest in stream B of
/// one [`Sha256Pair`]: every value byte is hashed twice, and the two streams'
/// blocks are compressed in pairs (see `sha256::pair`). Value bytes reach the
/// pair through a [`Staged`] buffer, in runs instead of piece by piece.
struct Paired<'d> {
    values: &'d mut Staged<Both>,
    fields: &'d mut FieldDigests,
}

impl ContractOut for Paired<'_> {
    #[inline]
    fn frame(&mut self, bytes: &[u8]) {
        self.values.flush();
        self.values.inner.0.update_a(bytes)
    }
    #[inline]
    fn value(&mut self, bytes: &[u8]) {
        self.values.write(bytes)
    }
    #[inline]
    fn end_value(&mut self, field: Field) {
        self.values.flush();
        let digest = self.values.inner.0.finalize_reset_b();
        self.fields.0[field as usize] = Some(Digest(digest));
    }
}

/// Writes the canonical contract (spec section 2) to `out`, one member at a
/// time. `canon` holds the bytes of the tape's collapsed containers
/// (`json::tape`; empty for a tape without any).
pub(super) fn emit_contract<O: ContractOut>(
    out: &mut O,
    input: &[u8],
    nodes: &[Node],
    canon: &[u8],
    projection: &Projection,
) -> Result<(), Error> {
    let mut first = true;
    for f in Field::ALL {
        let slot = projection.slots[f as usize];
        if slot.is_none() && !f.required() {
            continue;
        }
        out.frame(if first { b"{\"" } else { b",\"" });
        first = false;
        out.frame(f.name().as_bytes());
        out.frame(b"\":");
        write_field(&mut Values(&mut *out), input, nodes, canon, slot)?;
        out.end_value(f);
    }
    out.frame(b"}");
    Ok(())
}

/// Writes the canonical contract to `sink`.
pub(crate) fn write_contract<S: Sink>(
    sink: &mut S,
    input: &[u8],
    nodes: &[Node],
    canon: &[u8],
    projection: &Projection,
) -> Result<(), Error> {
    emit_contract(&mut Plain(sink), input, nodes, canon, projection)
}

/// Tool digest (and optionally field digests, from the same pass) of the
/// projected tool.
pub(crate) fn digest_tool(
    input: &[u8],
    nodes: &[Node],
    canon: &[u8],
    projection: &Projection,
    with_fields: bool,
) -> Result<(Digest, FieldDigests), Error> {
    let mut fields = FieldDigests::default();
    if !with_fields {
        // One stream: `Sha256`'s own block buffer already takes short pieces
        // cheaply (a `Staged` buffer in front measured 2-3% slower).
        let mut hasher = Sha256::new();
        write_contract(&mut hasher, input, nodes, canon, projection)?;
        return Ok((Digest(hasher.finalize()), fields));
    }
    let mut values = Staged::new(Both(Sha256Pair::new()));
    let mut out = Paired {
        values: &mut values,
        fields: &mut fields,
    };
    emit_contract(&mut out, input, nodes, canon, projection)?;
    out.values.flush();
    let digest = Digest(out.values.inner.0.finalize_reset_a());
    Ok((digest, fields))
}
