//! A small pretty JSON writer: two-space indent, `": "` after keys, LF,
//! strings escaped as RFC 8785 does. The caller emits keys in the order it
//! wants (canonical order for the lock and the verify report).

use alloc::vec::Vec;

use crate::digest::Digest;
use crate::jcs::write_str;

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

    /// The document with its final newline.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.out.push(b'\n');
        self.out
    }
}
