//! The flat tape a parse produces: one fixed-size [`Node`] per JSON value or
//! object key, in document order, with links that make every later walk
//! iterative (no recursion anywhere).
//!
//! Layout of a node (16 bytes):
//! - `start`: byte offset of the token (for strings, the first byte after the
//!   opening quote);
//! - `meta`: 3-bit tag, 1 flag bit, 28-bit value. The value is the byte length
//!   for strings (without quotes) and numbers, and the index one past the
//!   subtree for arrays and objects. The flag means "has escapes" for strings
//!   and "already canonical" for numbers;
//! - `link`: for an object, the index of its first key in canonical (UTF-16)
//!   order; for a key, the next key in that order; `0` ends a list (index 0 is
//!   always the root, which is never a key);
//! - `parent`: index of the enclosing array or object ([`NO_PARENT`] for the root).
//!
//! A key node is always immediately followed by its value.
//!
//! **Collapsed containers.** The digest pipeline of a reused `Context`
//! parses the bulk of a document (everything below the tools' members) with
//! the one-pass canonicalizer (`json::onepass`), which writes the canonical
//! bytes of a whole array or object to a separate buffer instead of nodes.
//! Such a container is one node with the flag set: `start` is still its
//! offset in the input, the value is the length of its canonical bytes and
//! `link` their offset in that buffer; it has no child nodes
//! ([`next_index`] steps over it as over a scalar). Tapes with collapsed
//! nodes stay inside the crate: [`Tape`] and [`Value`] never see one.

/// Marks the root's parent.
pub const NO_PARENT: u32 = u32::MAX;

const TAG_SHIFT: u32 = 29;
const FLAG: u32 = 1 << 28;
const VALUE_MASK: u32 = FLAG - 1;

/// The type of a tape node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Tag {
    /// `null`
    Null = 0,
    /// `false`
    False = 1,
    /// `true`
    True = 2,
    /// A number token.
    Number = 3,
    /// A string (value or object key).
    String = 4,
    /// An array; its elements follow it on the tape.
    Array = 5,
    /// An object; its key/value pairs follow it on the tape.
    Object = 6,
}

/// One tape entry. Opaque outside the crate except through [`Tape`]; public so
/// that callers can provide scratch memory as `&mut [Node]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Node {
    pub(crate) start: u32,
    pub(crate) meta: u32,
    pub(crate) link: u32,
    pub(crate) parent: u32,
}

impl Node {
    /// An all-zero node, for initialising scratch arrays in `const` context.
    pub const EMPTY: Node = Node {
        start: 0,
        meta: 0,
        link: 0,
        parent: 0,
    };

    #[inline]
    pub(crate) fn new(tag: Tag, flag: bool, start: usize, value: usize, parent: u32) -> Node {
        Node {
            start: start as u32,
            meta: ((tag as u32) << TAG_SHIFT) | if flag { FLAG } else { 0 } | (value as u32),
            link: 0,
            parent,
        }
    }

    /// The node's type.
    #[inline]
    pub fn tag(&self) -> Tag {
        match self.meta >> TAG_SHIFT {
            0 => Tag::Null,
            1 => Tag::False,
            2 => Tag::True,
            3 => Tag::Number,
            4 => Tag::String,
            5 => Tag::Array,
            _ => Tag::Object,
        }
    }

    #[inline]
    pub(crate) fn flag(&self) -> bool {
        self.meta & FLAG != 0
    }

    #[inline]
    pub(crate) fn value(&self) -> usize {
        (self.meta & VALUE_MASK) as usize
    }

    #[inline]
    pub(crate) fn set_value(&mut self, value: usize) {
        self.meta = (self.meta & !VALUE_MASK) | value as u32;
    }

    /// A collapsed container (see the module docs): `canon[at..at + len]`
    /// holds its canonical bytes.
    #[inline]
    pub(crate) fn collapsed(tag: Tag, start: usize, at: usize, len: usize, parent: u32) -> Node {
        Node {
            start: start as u32,
            meta: ((tag as u32) << TAG_SHIFT) | FLAG | (len as u32),
            link: at as u32,
            parent,
        }
    }

    /// For a collapsed container (see the module docs): where its canonical
    /// bytes are in the one-pass canonicalizer's buffer.
    #[inline]
    pub(crate) fn collapsed_range(&self) -> core::ops::Range<usize> {
        self.link as usize..self.link as usize + self.value()
    }

    /// Byte offset of the token in the input. For strings this is the first
    /// byte after the opening quote.
    #[inline]
    pub fn start(&self) -> usize {
        self.start as usize
    }
}

/// Index of the first node after the subtree rooted at `i` (a collapsed
/// container has no subtree on the tape).
#[inline]
pub(crate) fn next_index(nodes: &[Node], i: usize) -> usize {
    let n = &nodes[i];
    match n.tag() {
        Tag::Array | Tag::Object if !n.flag() => n.value(),
        _ => i + 1,
    }
}

/// A parsed document: the input bytes and the tape over them.
#[derive(Clone, Copy, Debug)]
pub struct Tape<'a> {
    pub(crate) input: &'a [u8],
    pub(crate) nodes: &'a [Node],
}

impl<'a> Tape<'a> {
    /// The top-level value.
    pub fn root(&self) -> Value<'a> {
        Value {
            tape: *self,
            index: 0,
        }
    }

    /// The input the tape was parsed from.
    pub fn input(&self) -> &'a [u8] {
        self.input
    }

    /// Number of nodes used.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always false: a successful parse has at least the root node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// A cursor on one value of a [`Tape`].
#[derive(Clone, Copy, Debug)]
pub struct Value<'a> {
    pub(crate) tape: Tape<'a>,
    pub(crate) index: usize,
}

impl<'a> Value<'a> {
    fn node(&self) -> &'a Node {
        &self.tape.nodes[self.index]
    }

    /// The value's type.
    pub fn tag(&self) -> Tag {
        self.node().tag()
    }

    /// Index of this value's node on the tape.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Byte offset of the value in the input (for a string, of its opening quote).
    pub fn offset(&self) -> usize {
        let n = self.node();
        match n.tag() {
            Tag::String => n.start() - 1,
            _ => n.start(),
        }
    }

    /// For a string: its raw bytes between the quotes, escapes not decoded.
    pub fn raw_str(&self) -> Option<&'a [u8]> {
        let n = self.node();
        (n.tag() == Tag::String).then(|| &self.tape.input[n.start()..n.start() + n.value()])
    }

    /// For a number: its token text exactly as written.
    pub fn raw_number(&self) -> Option<&'a [u8]> {
        let n = self.node();
        (n.tag() == Tag::Number).then(|| &self.tape.input[n.start()..n.start() + n.value()])
    }

    /// For a string: whether it contains escapes (if not, the raw bytes are the text).
    pub fn has_escapes(&self) -> bool {
        self.node().tag() == Tag::String && self.node().flag()
    }

    /// For a string without escapes: the text. `None` for other values and
    /// for strings that need decoding (see [`Value::decode_str`]).
    pub fn as_plain_str(&self) -> Option<&'a str> {
        if self.has_escapes() {
            return None;
        }
        self.raw_str().and_then(|b| core::str::from_utf8(b).ok())
    }

    /// Decodes a string value into `out`, returning the decoded text, or
    /// `None` when this is not a string or `out` is too small.
    pub fn decode_str<'b>(&self, out: &'b mut [u8]) -> Option<&'b str> {
        let raw = self.raw_str()?;
        let n = crate::json::unescape::decode_into(raw, out)?;
        core::str::from_utf8(&out[..n]).ok()
    }

    /// Whether the string value equals `text` after unescaping.
    pub fn str_eq(&self, text: &str) -> bool {
        match self.raw_str() {
            Some(raw) if !self.node().flag() => raw == text.as_bytes(),
            Some(raw) => crate::json::unescape::decoded_eq(raw, text.as_bytes()),
            None => false,
        }
    }

    /// For `true`/`false`: the boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self.tag() {
            Tag::True => Some(true),
            Tag::False => Some(false),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        self.tag() == Tag::Null
    }

    /// For an object: the value of the member whose key equals `key` after unescaping.
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        self.members().find(|(k, _)| k.str_eq(key)).map(|(_, v)| v)
    }

    /// For an object: its members in document order (empty for other values).
    pub fn members(&self) -> Members<'a> {
        let n = self.node();
        let (next, end) = if n.tag() == Tag::Object {
            (self.index + 1, n.value())
        } else {
            (0, 0)
        };
        Members {
            tape: self.tape,
            next,
            end,
        }
    }

    /// For an object: its members in canonical key order (UTF-16 code units),
    /// the order RFC 8785 writes them (empty for other values).
    pub fn members_sorted(&self) -> SortedMembers<'a> {
        let n = self.node();
        let key = if n.tag() == Tag::Object { n.link } else { 0 };
        SortedMembers {
            tape: self.tape,
            key,
        }
    }

    /// For an array: its elements in order (empty for other values).
    pub fn elements(&self) -> Elements<'a> {
        let n = self.node();
        let (next, end) = if n.tag() == Tag::Array {
            (self.index + 1, n.value())
        } else {
            (0, 0)
        };
        Elements {
            tape: self.tape,
            next,
            end,
        }
    }
}

/// Iterator over an object's `(key, value)` pairs in document order.
#[derive(Clone, Debug)]
pub struct Members<'a> {
    tape: Tape<'a>,
    next: usize,
    end: usize,
}

impl<'a> Iterator for Members<'a> {
    type Item = (Value<'a>, Value<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let key = Value {
            tape: self.tape,
            index: self.next,
        };
        let value = Value {
            tape: self.tape,
            index: self.next + 1,
        };
        self.next = next_index(self.tape.nodes, self.next + 1);
        Some((key, value))
    }
}

/// Iterator over an object's `(key, value)` pairs in canonical key order.
#[derive(Clone, Debug)]
pub struct SortedMembers<'a> {
    tape: Tape<'a>,
    key: u32,
}

impl<'a> Iterator for SortedMembers<'a> {
    type Item = (Value<'a>, Value<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        if self.key == 0 {
            return None;
        }
        let k = self.key as usize;
        self.key = self.tape.nodes[k].link;
        Some((
            Value {
                tape: self.tape,
                index: k,
            },
            Value {
                tape: self.tape,
                index: k + 1,
            },
        ))
    }
}

/// Iterator over an array's elements.
#[derive(Clone, Debug)]
pub struct Elements<'a> {
    tape: Tape<'a>,
    next: usize,
    end: usize,
}

impl<'a> Iterator for Elements<'a> {
    type Item = Value<'a>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let v = Value {
            tape: self.tape,
            index: self.next,
        };
        self.next = next_index(self.tape.nodes, self.next);
        Some(v)
    }
}
