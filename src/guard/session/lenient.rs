//! The id of a client message the strict parser would not read to the end
//! because of a limit (nested deeper than the depth limit, longer than the
//! size limit), so that the session's refusal answers that request and not
//! `null`: JSON-RPC reserves a `null` id for a message whose id cannot be
//! determined, and an SDK that gets a `null`-id error may take it for a
//! broken connection and end the whole session (the Go SDK does).
//!
//! The scan is lenient and only ever used for that answer, never for a
//! decision: it walks the top-level object's members without building
//! anything (iterative, constant memory, one pass), takes the raw bytes of
//! the one member named exactly `id`, and keeps them only if they are a
//! string or a number the strict parser accepts. Two `id` members, or
//! anything it cannot follow, give `None`.

/// The raw bytes of the top-level `id` of `input`, when it is a request: a
/// top-level object with one string or number `id` member and a string
/// `method` member. A response the client sends (to a server's request)
/// gives none: an answer under its id would read as the answer to the
/// client's own request of that number.
pub(crate) fn top_level_id(input: &[u8]) -> Option<&[u8]> {
    let mut i = skip_ws(input, 0);
    if input.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut found = None;
    let mut method = false;
    loop {
        i = skip_ws(input, i);
        let key_end = string_end(input, i)?;
        let key = &input[i..key_end];
        i = skip_ws(input, key_end);
        if input.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(input, i + 1);
        let end = value_end(input, i)?;
        if key == b"\"id\"" {
            if found.is_some() {
                return None;
            }
            found = Some(&input[i..end]);
        } else if key == b"\"method\"" {
            method = input[i] == b'"';
        }
        i = skip_ws(input, end);
        match input.get(i) {
            Some(b',') => i += 1,
            Some(b'}') => break,
            _ => return None,
        }
    }
    found.filter(|id| method && is_id(id))
}

/// Whether `raw` is one JSON string or number (strictly parsed).
fn is_id(raw: &[u8]) -> bool {
    matches!(raw.first(), Some(b'"' | b'-' | b'0'..=b'9')) && crate::canonicalize(raw).is_ok()
}

/// The first index at or after `i` that is not JSON whitespace.
fn skip_ws(input: &[u8], mut i: usize) -> usize {
    while matches!(input.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The index just past the string that starts at `i` (a `"`).
fn string_end(input: &[u8], i: usize) -> Option<usize> {
    if input.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    loop {
        match *input.get(j)? {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
}

/// The index just past the value that starts at `i`: a string, a
/// container (brackets counted, strings skipped, not checked), or a
/// scalar (up to the next delimiter).
fn value_end(input: &[u8], i: usize) -> Option<usize> {
    match *input.get(i)? {
        b'"' => string_end(input, i),
        b'{' | b'[' => container_end(input, i),
        _ => {
            let len = input[i..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(input.len() - i);
            (len > 0).then_some(i + len)
        }
    }
}

/// The index just past the container that starts at `i`.
fn container_end(input: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    while j < input.len() {
        match input[j] {
            b'"' => {
                j = string_end(input, j)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            _ => {}
        }
        j += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::top_level_id;
    use alloc::format;
    use alloc::string::String;

    fn id(s: &str) -> Option<&str> {
        top_level_id(s.as_bytes()).map(|b| core::str::from_utf8(b).unwrap())
    }

    #[test]
    fn finds_the_top_level_id_past_any_nesting() {
        let deep: String = "[".repeat(300) + &"]".repeat(300);
        let msg = format!(
            r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"a":{deep},"id":9}},"id":7}}"#
        );
        assert_eq!(id(&msg), Some("7"));
        let msg =
            format!(r#" {{ "id" : "a\"b}}" , "params" : {{"x":"]}}{deep}"}}, "method":"m" }}"#);
        assert_eq!(id(&msg), Some(r#""a\"b}""#));
        assert_eq!(id(r#"{"id":-1.5e3,"method":"ping"}"#), Some("-1.5e3"));
        // A message that never closes gives nothing.
        let open = format!(r#"{{"id":3,"params":{}"#, "[".repeat(300));
        assert_eq!(id(&open), None);
    }

    #[test]
    fn anything_else_is_none() {
        // A response (no method): its id is the server's request's.
        let deep: String = "[".repeat(300) + &"]".repeat(300);
        assert_eq!(
            id(&format!(r#"{{"jsonrpc":"2.0","id":3,"result":{deep}}}"#)),
            None
        );
        assert_eq!(id(r#"{"id":3,"method":1}"#), None);
        // Raw control characters and bytes that are not UTF-8 in an id.
        assert_eq!(top_level_id(b"{\"id\":\"a\x01\",\"method\":\"m\"}"), None);
        assert_eq!(top_level_id(b"{\"id\":\"a\xff\",\"method\":\"m\"}"), None);
        for msg in [
            r#"{"method":"m","id":null}"#,
            r#"{"method":"m","id":true}"#,
            r#"{"method":"m","id":{"a":1}}"#,
            r#"{"method":"m","id":[1]}"#,
            r#"{"method":"m","id":01}"#,
            r#"{"method":"m","id":"\x"}"#,
            r#"{"method":"m","id":1,"id":2}"#,
            r#"{"method":"m","\u0069d":1}"#,
            r#"{"method":"m","ID":1}"#,
            r#"[{"method":"m","id":1}]"#,
            r#"{"method":"m","params":{"id":1}}"#,
            r#"{"method":"m","id":1"#,
            r#"{"method":"m","id" 1}"#,
            r#"{"method":"m","id":}"#,
            r#"{"method":"m","id":1,}"#,
            "",
            "{",
            r#"{"method":"m""#,
            r#"{"method":"m","id":""#,
        ] {
            assert_eq!(id(msg), None, "{msg}");
        }
    }
}
