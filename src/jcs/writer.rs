//! Writes any subtree of a tape as canonical JSON (spec section 3),
//! iteratively: object members are visited in the UTF-16 key order the
//! parser linked up, and `parent` links replace a recursion stack.

use super::sink::Sink;
use super::string::write_string;
use crate::error::{Error, ErrorKind};
use crate::json::{next_index, Node, NumberForm as Form, Tag, END};
use crate::number::{format_f64, format_token, token_to_f64, MAX_LEN};

/// Writes a number token canonically. Tokens already canonical are copied
/// through; those whose own digits are the shortest are laid out from them
/// (`number::format_token`); everything else goes through an IEEE-754 double
/// (`number::token_to_f64`, else `core`'s parser) and ES `Number::toString`.
#[inline]
pub(crate) fn write_number<S: Sink>(
    sink: &mut S,
    token: &[u8],
    form: Form,
    offset: usize,
) -> Result<(), Error> {
    if form == Form::Canonical {
        sink.write(token);
        return Ok(());
    }
    let mut buf = [0u8; MAX_LEN];
    if form == Form::Digits {
        if let Some(n) = format_token(token, &mut buf) {
            sink.write(&buf[..n]);
            return Ok(());
        }
    }
    let value = match token_to_f64(token) {
        Some(value) => value,
        None => parse_f64(token).ok_or(Error::new(ErrorKind::InvalidNumber, offset))?,
    };
    let n = format_f64(value, &mut buf).ok_or(Error::new(ErrorKind::NumberOutOfRange, offset))?;
    sink.write(&buf[..n]);
    Ok(())
}

/// `core`'s parse of a number token, for what `number::token_to_f64`
/// leaves: more than 19 digits, below 1e-292, or an undecided product.
#[cold]
fn parse_f64(token: &[u8]) -> Option<f64> {
    core::str::from_utf8(token).ok()?.parse().ok()
}

/// Writes a string node. Without escapes the token is already canonical, and
/// it is written with its quotes as one slice of the input.
#[inline(always)]
fn write_string_node<S: Sink>(sink: &mut S, input: &[u8], node: &Node) {
    let (start, end) = (node.start(), node.start() + node.value());
    if !node.flag() {
        // The tape guarantees the quotes at `start - 1` and `end`.
        sink.write(&input[start - 1..end + 1]);
    } else {
        write_string(sink, &input[start..end], true);
    }
}

/// Writes a key node and the colon: one slice of the input when the key has
/// no escapes and the colon follows it directly (compact input).
#[inline(always)]
fn write_key<S: Sink>(sink: &mut S, input: &[u8], node: &Node) {
    let (start, end) = (node.start(), node.start() + node.value());
    if !node.flag() && input.get(end + 1) == Some(&b':') {
        sink.write(&input[start - 1..end + 2]);
    } else {
        write_string_node(sink, input, node);
        sink.write(b":");
    }
}

/// Writes the subtree rooted at node `root` in canonical form. `canon`
/// holds the bytes of the tape's collapsed containers (see `json::tape`;
/// empty for a tape without any).
pub(crate) fn write_value<S: Sink>(
    sink: &mut S,
    input: &[u8],
    nodes: &[Node],
    canon: &[u8],
    root: usize,
) -> Result<(), Error> {
    let mut i = root;
    'enter: loop {
        let n = &nodes[i];
        match n.tag() {
            Tag::Object | Tag::Array if n.flag() => {
                sink.write(&canon[n.collapsed_range()]);
            }
            Tag::Object => {
                if n.link == END {
                    sink.write(b"{}");
                } else {
                    sink.write(b"{");
                    let key = n.link as usize;
                    write_key(sink, input, &nodes[key]);
                    i = key + 1;
                    continue 'enter;
                }
            }
            Tag::Array => {
                if n.value() == i + 1 {
                    sink.write(b"[]");
                } else {
                    sink.write(b"[");
                    i += 1;
                    continue 'enter;
                }
            }
            Tag::String => write_string_node(sink, input, n),
            Tag::Number => write_number(
                sink,
                &input[n.start()..n.start() + n.value()],
                // The tape keeps only whether the token is canonical.
                if n.flag() {
                    Form::Canonical
                } else {
                    Form::Digits
                },
                n.start(),
            )?,
            Tag::True => sink.write(b"true"),
            Tag::False => sink.write(b"false"),
            Tag::Null => sink.write(b"null"),
        }
        // Node `i` is complete: move to its next sibling, closing finished containers.
        loop {
            if i == root {
                return Ok(());
            }
            let p = nodes[i].parent as usize;
            let parent = &nodes[p];
            if parent.tag() == Tag::Array {
                let next = next_index(nodes, i);
                if next < parent.value() {
                    sink.write(b",");
                    i = next;
                    continue 'enter;
                }
                sink.write(b"]");
            } else {
                let next_key = nodes[i - 1].link;
                if next_key != END {
                    sink.write(b",");
                    write_key(sink, input, &nodes[next_key as usize]);
                    i = next_key as usize + 1;
                    continue 'enter;
                }
                sink.write(b"}");
            }
            i = p;
        }
    }
}
