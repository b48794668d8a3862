//! JSON paths for error messages: `servers.acme.tools["a.b"].digest`.

use alloc::string::String;

use crate::jcs::write_str;

/// Appends `.name` (or `["name"]` when the name is not plain) to `path`.
pub(crate) fn child(path: &str, name: &str) -> String {
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    let mut out = String::with_capacity(path.len() + name.len() + 5);
    out.push_str(path);
    if plain {
        if !path.is_empty() {
            out.push('.');
        }
        out.push_str(name);
    } else {
        let mut quoted = alloc::vec::Vec::new();
        write_str(&mut quoted, name);
        out.push('[');
        // Canonical JSON escaping of valid UTF-8 is valid UTF-8.
        out.push_str(core::str::from_utf8(&quoted).unwrap_or("\"?\""));
        out.push(']');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::child;

    #[test]
    fn plain_and_quoted() {
        assert_eq!(child("", "servers"), "servers");
        assert_eq!(child("servers", "acme-1_x"), "servers.acme-1_x");
        assert_eq!(child("servers", "a.b"), "servers[\"a.b\"]");
        assert_eq!(child("servers", ""), "servers[\"\"]");
        assert_eq!(child("t", "q\"\n"), "t[\"q\\\"\\n\"]");
    }
}
