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

pub(crate) struct Pretty {
    out: Vec<u8>,
    /// For each open container: whether it has a member yet.
    open: Vec<bool>,
    /// A key was just written; the next value goes on the same line.
    after_key: bool,
}

impl Pretty {
    pub(crate) fn new() -> Pretty {
        Pretty {
            out: Vec::with_capacity(4096),
            open: Vec::new(),
            after_key: false,
        }
    }

    fn newline(&mut self) {
        self.out.push(b'\n');
        for _ in 0..self.open.len() {
            self.out.extend_from_slice(b"  ");
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
                self.out.push(b',');
            }
            self.newline();
        }
    }

    pub(crate) fn key(&mut self, key: &str) {
        self.item();
        write_str(&mut self.out, key);
        self.out.extend_from_slice(b": ");
        self.after_key = true;
    }

    pub(crate) fn string(&mut self, s: &str) {
        self.item();
        write_str(&mut self.out, s);
    }

    pub(crate) fn digest(&mut self, d: &Digest) {
        self.item();
        self.out.push(b'"');
        self.out.extend_from_slice(&d.to_hex_prefixed());
        self.out.push(b'"');
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
        self.out.extend_from_slice(&buf[i..]);
    }

    pub(crate) fn int(&mut self, v: i64) {
        if v < 0 {
            self.item();
            self.out.push(b'-');
            self.after_key = true;
        }
        self.uint(v.unsigned_abs());
    }

    /// A value that is already JSON (compact canonical bytes), written as is.
    pub(crate) fn raw(&mut self, json: &[u8]) {
        self.item();
        self.out.extend_from_slice(json);
    }

    pub(crate) fn bool(&mut self, v: bool) {
        self.item();
        self.out
            .extend_from_slice(if v { b"true" as &[u8] } else { b"false" });
    }

    pub(crate) fn null(&mut self) {
        self.item();
        self.out.extend_from_slice(b"null");
    }

    fn open(&mut self, c: u8) {
        self.item();
        self.out.push(c);
        self.open.push(false);
    }

    fn close(&mut self, c: u8) {
        if self.open.pop() == Some(true) {
            self.newline();
        }
        self.out.push(c);
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
        while i < json.len() {
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
                    self.out.extend_from_slice(&json[i..end]);
                    self.out.extend_from_slice(b": ");
                    self.after_key = true;
                    key_next = false;
                }
                _ => {
                    self.item();
                    self.out.extend_from_slice(&json[i..end]);
                }
            }
            i = end;
        }
    }

    /// The document with its final newline.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.out.push(b'\n');
        self.out
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

    #[test]
    fn nesting_depth_ignores_brackets_in_strings() {
        assert_eq!(nesting_depth(b"1"), 0);
        assert_eq!(nesting_depth(b"{}"), 1);
        assert_eq!(nesting_depth(br#"{"a":[[{}]],"b":"[[[["}"#), 4);
        assert_eq!(nesting_depth(br#"["\"[["]"#), 1);
    }
}
