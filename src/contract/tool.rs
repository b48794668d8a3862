//! One tool: projection onto the contract (spec section 2), canonical
//! contract bytes, tool digest and field digests (spec sections 4.1, 4.2).

use super::{Field, FieldDigests};
use crate::digest::Digest;
use crate::error::{Error, ErrorKind};
use crate::jcs::{write_value, Sink, Tee};
use crate::json::{next_index, unescape, Node, Tag};
use crate::sha256::Sha256;

/// Where each contract field's value sits on the tape (`None`: absent, or
/// `null` for an optional field).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Projection {
    slots: [Option<usize>; 5],
    /// Byte offset of the tool object.
    pub offset: usize,
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

/// Finds the contract fields of the tool object at tape index `tool`.
pub(crate) fn project(input: &[u8], nodes: &[Node], tool: usize) -> Result<Projection, Error> {
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
    let end = t.value();
    let mut key = tool + 1;
    while key < end {
        if let Some(f) = field_of_key(input, &nodes[key]) {
            let value = key + 1;
            let is_null = nodes[value].tag() == Tag::Null;
            // An optional field that is null is the same as absent.
            if !is_null || f.required() {
                slots[f as usize] = Some(value);
            }
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
    Ok(Projection {
        slots,
        offset: t.start(),
    })
}

/// Writes one field value (or `null`) to `sink`.
fn write_field<S: Sink>(
    sink: &mut S,
    input: &[u8],
    nodes: &[Node],
    slot: Option<usize>,
) -> Result<(), Error> {
    match slot {
        Some(i) => write_value(sink, input, nodes, i),
        None => {
            sink.write(b"null");
            Ok(())
        }
    }
}

/// Writes the canonical contract to `sink`; with `fields`, also hashes each
/// member value into its field digest from the same pass.
pub(crate) fn write_contract<S: Sink>(
    sink: &mut S,
    input: &[u8],
    nodes: &[Node],
    projection: &Projection,
    mut fields: Option<&mut FieldDigests>,
) -> Result<(), Error> {
    let mut first = true;
    for f in Field::ALL {
        let slot = projection.slots[f as usize];
        if slot.is_none() && !f.required() {
            continue;
        }
        sink.write(if first { b"{\"" } else { b",\"" });
        first = false;
        sink.write(f.name().as_bytes());
        sink.write(b"\":");
        match fields.as_deref_mut() {
            Some(digests) => {
                let mut field_hasher = Sha256::new();
                write_field(&mut Tee(&mut *sink, &mut field_hasher), input, nodes, slot)?;
                digests.0[f as usize] = Some(Digest(field_hasher.finalize()));
            }
            None => write_field(sink, input, nodes, slot)?,
        }
    }
    sink.write(b"}");
    Ok(())
}

/// Tool digest (and optionally field digests) of the tool at tape index `tool`.
pub(crate) fn digest_tool(
    input: &[u8],
    nodes: &[Node],
    projection: &Projection,
    with_fields: bool,
) -> Result<(Digest, FieldDigests), Error> {
    let mut hasher = Sha256::new();
    let mut fields = FieldDigests::default();
    write_contract(
        &mut hasher,
        input,
        nodes,
        projection,
        if with_fields { Some(&mut fields) } else { None },
    )?;
    Ok((Digest(hasher.finalize()), fields))
}
