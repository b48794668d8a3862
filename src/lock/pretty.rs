//! A small pretty JSON writer: two-space indent, `": "` after keys, LF,
//! strings escaped as RFC 8785 does. The caller emits keys in the order it
//! wants (canonical order for the lock and the verify report).

use alloc::vec::Vec;

use crate::digest::Digest;
use crate::jcs::write_str;

/// The end of the token of compact JSON that starts at `i`: one structural
/// byte, a whole string (escapes skipped), or a run up to the next
/// structural byte (a number or literal).
fn token_end(json: &[u8], i: usize) -> usize {
    match json[i] {
        b'{' | b'[' | b'}' | b']' | b',' | b':' => i + 1,
        b'"' => {
            let mut j = i + 1;
            while j < json.len() && json[j] != b'"' {
                j += if json[j] == b'\\' { 2 } else { 1 };
            }
            (j + 1).min(json.len())
        }
        _ => {
            let mut j = i + 1;
            while j < json.len()
                && !matches!(json[j], b'{' | b'[' | b'}' | b']' | b',' | b':' | b'"')
            {
                j += 1;
            }
            j
        }
    }
}

/// The deepest container nesting of compact JSON (`{}` is 1, a scalar 0).
pub(crate) fn nesting_depth(json: &[u8]) -> usize {
    let (mut depth, mut deepest, mut i) = (0usize, 0usize, 0);
    while i < json.len() {
        match json[i] {
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i = token_end(json, i);
    }
    deepest
}

/// The pretty writer. It may be given a byte limit: once the output would
/// pass it, the writer stops writing (every later call does nothing), so
/// the memory it holds stays within the limit however much the input would
/// grow (a snapshot nested 250 deep grows about 250 times when indented).
pub(crate) struct Pretty {
    out: Vec<u8>,
    /// For each open container: whether it has a member yet.
    open: Vec<bool>,
    /// A key was just written; the next value goes on the same line.
    after_key: bool,
    /// The bytes written (or, when not `store`, counted) so far.
    len: usize,
    /// The most bytes the output may have.
    limit: usize,
    /// The output passed `limit`: nothing more is written.
    over: bool,
    /// Whether bytes are kept (`false`: only counted, see [`Pretty::measure`]).
    store: bool,
}

impl Pretty {
    /// A writer without a size limit.
    pub(crate) fn new() -> Pretty {
        Pretty::within(usize::MAX)
    }

    /// A writer that stops once its output would pass `limit` bytes
    /// ([`Pretty::finish_within`] then gives `None`).
    pub(crate) fn within(limit: usize) -> Pretty {
        Pretty {
            out: Vec::with_capacity(4096.min(limit)),
            open: Vec::new(),
            after_key: false,
            len: 0,
            limit,
            over: false,
            store: true,
        }
    }

    /// A writer that keeps nothing and counts what it would write up to
    /// `limit`, positioned as the value of a key inside `depth` open
    /// containers: how large a value would be at that place of a document.
    pub(crate) fn measure(limit: usize, depth: usize) -> Pretty {
        Pretty {
            out: Vec::new(),
            open: alloc::vec![true; depth],
            after_key: true,
            len: 0,
            limit,
            over: false,
            store: false,
        }
    }

    /// Whether `n` more bytes fit; past the limit the writer stops.
    fn room(&mut self, n: usize) -> bool {
        if self.over || n > self.limit - self.len {
            self.over = true;
            return false;
        }
        self.len += n;
        true
    }

    /// Writes `bytes` (counts them when not storing), unless they would
    /// pass the limit.
    fn put(&mut self, bytes: &[u8]) {
        if self.room(bytes.len()) && self.store {
            self.out.extend_from_slice(bytes);
        }
    }

    /// Writes `s` as an escaped JSON string. Escaping can lengthen it, so
    /// the limit is checked before (with the shortest form) and after.
    fn put_str(&mut self, s: &str) {
        if !self.room(s.len() + 2) {
            return;
        }
        let start = self.out.len();
        write_str(&mut self.out, s);
        let extra = self.out.len() - start - (s.len() + 2);
        if !self.store {
            self.out.truncate(start);
        }
        self.room(extra);
    }

    fn newline(&mut self) {
        let indent = 2 * self.open.len();
        if self.room(1 + indent) && self.store {
            self.out.push(b'\n');
            self.out.resize(self.out.len() + indent, b' ');
        }
    }

    /// Positions the output for a new array element or object key.
    fn item(&mut self) {
        if self.after_key {
            self.after_key = false;
            return;
        }
        if let Some(has) = self.open.last_mut() {
            let had = *has;
            *has = true;
            if had {
                self.put(b",");
            }
            self.newline();
        }
    }

    pub(crate) fn key(&mut self, key: &str) {
        self.item();
        self.put_str(key);
        self.put(b": ");
        self.after_key = true;
    }

    pub(crate) fn string(&mut self, s: &str) {
        self.item();
        self.put_str(s);
    }

    pub(crate) fn digest(&mut self, d: &Digest) {
        self.item();
        self.put(b"\"");
        self.put(&d.to_hex_prefixed());
        self.put(b"\"");
    }

    pub(crate) fn opt_string(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.string(s),
            None => self.null(),
        }
    }

    pub(crate) fn opt_digest(&mut self, d: Option<&Digest>) {
        match d {
            Some(d) => self.digest(d),
            None => self.null(),
        }
    }

    pub(crate) fn uint(&mut self, v: u64) {
        self.item();
        let mut buf = [0u8; 20];
        let mut i = buf.len();
        let mut v = v;
        loop {
            i -= 1;
            buf[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.put(&buf[i..]);
    }

    pub(crate) fn int(&mut self, v: i64) {
        if v < 0 {
            self.item();
            self.put(b"-");
            self.after_key = true;
        }
        self.uint(v.unsigned_abs());
    }

    /// A value that is already JSON (compact canonical bytes), written as is.
    pub(crate) fn raw(&mut self, json: &[u8]) {
        self.item();
        self.put(json);
    }

    pub(crate) fn bool(&mut self, v: bool) {
        self.item();
        self.put(if v { b"true" as &[u8] } else { b"false" });
    }

    pub(crate) fn null(&mut self) {
        self.item();
        self.put(b"null");
    }

    fn open(&mut self, c: u8) {
        self.item();
        self.put(&[c]);
        self.open.push(false);
    }

    fn close(&mut self, c: u8) {
        if self.open.pop() == Some(true) {
            self.newline();
        }
        self.put(&[c]);
    }

    pub(crate) fn begin_object(&mut self) {
        self.open(b'{')
    }

    pub(crate) fn end_object(&mut self) {
        self.close(b'}')
    }

    pub(crate) fn begin_array(&mut self) {
        self.open(b'[')
    }

    pub(crate) fn end_array(&mut self) {
        self.close(b']')
    }

    /// A value given as canonical JSON (no whitespace outside strings,
    /// strings and numbers already canonical), re-indented: keys keep their
    /// order, every token is copied as it is. The lock's contract snapshot.
    pub(crate) fn canonical(&mut self, json: &[u8]) {
        // For each open container: is it an object? And is the next string
        // of the innermost object a key?
        let mut objects: Vec<bool> = Vec::new();
        let mut key_next = false;
        let mut i = 0;
        while i < json.len() && !self.over {
            let end = token_end(json, i);
            match json[i] {
                b'{' | b'[' => {
                    let object = json[i] == b'{';
                    self.open(json[i]);
                    objects.push(object);
                    key_next = object;
                }
                b'}' | b']' => {
                    self.close(json[i]);
                    objects.pop();
                }
                b',' => key_next = objects.last() == Some(&true),
                b':' => {}
                _ if key_next => {
                    self.item();
                    self.put(&json[i..end]);
                    self.put(b": ");
                    self.after_key = true;
                    key_next = false;
                }
                _ => {
                    self.item();
                    self.put(&json[i..end]);
                }
            }
            i = end;
        }
    }

    /// The document with its final newline.
    pub(crate) fn finish(self) -> Vec<u8> {
        debug_assert!(self.limit == usize::MAX, "use finish_within");
        self.finish_within().unwrap_or_default()
    }

    /// The document with its final newline, or `None` when it would pass
    /// the writer's limit.
    pub(crate) fn finish_within(mut self) -> Option<Vec<u8>> {
        self.put(b"\n");
        (!self.over && self.store).then_some(self.out)
    }

    /// The bytes counted so far, or `None` once past the limit.
    pub(crate) fn measured(&self) -> Option<usize> {
        (!self.over).then_some(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::{nesting_depth, Pretty};

    fn pretty(json: &[u8]) -> std::string::String {
        let mut p = Pretty::new();
        p.canonical(json);
        std::string::String::from_utf8(p.finish()).unwrap()
    }

    #[test]
    fn canonical_json_is_reindented_token_for_token() {
        assert_eq!(pretty(b"{}"), "{}\n");
        assert_eq!(pretty(b"[]"), "[]\n");
        assert_eq!(pretty(b"\"x\""), "\"x\"\n");
        assert_eq!(
            pretty(br#"{"a":[1,{"b":null},[]],"c":{}}"#),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    },\n    []\n  ],\n  \"c\": {}\n}\n"
        );
        // Structural bytes and escaped quotes inside strings are text.
        assert_eq!(
            pretty(br#"{"k:,{":"v\"]},[\\","n":-1.5e-7}"#),
            "{\n  \"k:,{\": \"v\\\"]},[\\\\\",\n  \"n\": -1.5e-7\n}\n"
        );
        // A string value that looks like a key after a comma in an array.
        assert_eq!(pretty(br#"["a","b"]"#), "[\n  \"a\",\n  \"b\"\n]\n");
    }

    /// A contract nested `depth` deep around `n` zeros: small as canonical
    /// JSON, about `2 * depth` bytes per zero once indented.
    fn deep(depth: usize, n: usize) -> std::vec::Vec<u8> {
        let zeros = std::vec!["0"; n].join(",");
        std::format!(
            r#"{{"x":{}[{zeros}]{}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        )
        .into_bytes()
    }

    #[test]
    fn a_limited_writer_stops_at_its_limit() {
        let json = deep(200, 20_000);
        let full = pretty(&json);
        assert!(full.len() > 100 * json.len(), "{}", full.len());
        for limit in [0, 1, 4096, 100_000, full.len() - 1] {
            let mut p = Pretty::within(limit);
            p.canonical(&json);
            // Nothing past the limit was ever written: memory stays within it.
            assert!(p.out.len() <= limit && p.out.capacity() <= limit.max(4096) * 2);
            assert_eq!(p.finish_within(), None, "{limit}");
        }
        let mut p = Pretty::within(full.len());
        p.canonical(&json);
        assert_eq!(p.finish_within(), Some(full.clone().into_bytes()));
        // Escaped strings count at their escaped length.
        let mut p = Pretty::within(8);
        p.string("\u{1}\u{1}");
        assert_eq!(p.finish_within(), None);
        let mut p = Pretty::within(15);
        p.string("\u{1}\u{1}");
        assert_eq!(p.finish_within().unwrap(), b"\"\\u0001\\u0001\"\n");
    }

    #[test]
    fn measuring_counts_what_writing_writes() {
        let json = deep(30, 50);
        let mut p = Pretty::measure(usize::MAX, 0);
        p.canonical(&json);
        // `measure` starts after a key: no final newline counted.
        assert_eq!(p.measured(), Some(pretty(&json).len() - 1));
        assert!(p.out.is_empty());
        let mut p = Pretty::measure(100, 3);
        p.canonical(&json);
        assert_eq!(p.measured(), None);
    }

    #[test]
    fn nesting_depth_ignores_brackets_in_strings() {
        assert_eq!(nesting_depth(b"1"), 0);
        assert_eq!(nesting_depth(b"{}"), 1);
        assert_eq!(nesting_depth(br#"{"a":[[{}]],"b":"[[[["}"#), 4);
        assert_eq!(nesting_depth(br#"["\"[["]"#), 1);
    }
}
