//! A small JSON value with the lock's pretty layout: keys in canonical
//! (UTF-16) order, two-space indent, LF line endings, trailing newline.

use contractpin::jcs;

/// A JSON value as the CLI prints it.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// A non-negative integer.
    UInt(u64),
    /// A string.
    Str(String),
    /// An object; keys are sorted when written.
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// Pretty text with a trailing newline.
    pub fn to_pretty(&self) -> String {
        let mut out = Vec::new();
        write_value(&mut out, self, 0);
        out.push(b'\n');
        // Every piece written is UTF-8 (strings come from `String`s).
        String::from_utf8(out).unwrap_or_default()
    }
}

fn indent(out: &mut Vec<u8>, level: usize) {
    out.push(b'\n');
    for _ in 0..level {
        out.extend_from_slice(b"  ");
    }
}

fn write_value(out: &mut Vec<u8>, value: &Json, level: usize) {
    match value {
        Json::UInt(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Json::Str(s) => jcs::write_str(out, s),
        Json::Obj(members) => {
            if members.is_empty() {
                out.extend_from_slice(b"{}");
                return;
            }
            let mut sorted: Vec<&(String, Json)> = members.iter().collect();
            sorted.sort_by(|a, b| contractpin::jcs::cmp_utf16(&a.0, &b.0));
            out.push(b'{');
            for (i, (key, item)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                indent(out, level + 1);
                jcs::write_str(out, key);
                out.extend_from_slice(b": ");
                write_value(out, item, level + 1);
            }
            indent(out, level);
            out.push(b'}');
        }
    }
}
