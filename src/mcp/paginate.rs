//! Following `nextCursor` through every page of `tools/list`.
//!
//! The rules (DESIGN.md): stop when `nextCursor` is absent or null. An
//! empty-string cursor is a real cursor and is followed; but when that
//! request fails with a JSON-RPC error, or returns only tools already seen,
//! the list was complete (older servers use `""` to mean "the end") and a
//! warning says so. Any other cursor seen twice is a stuck cursor; more than
//! `max_pages` pages is an error; a tool name on two pages is the server's
//! fault.
//!
//! Memory: the assembled document (`[page,page,...]`) is checked against
//! the input size limit (`max_input_bytes`) as each page is added, so a
//! server sending many large pages is refused after the page that crosses
//! the limit, not after the last one.

use std::collections::{BTreeMap, BTreeSet};
use std::string::{String, ToString};
use std::vec::Vec;

use crate::jcs;
use crate::json::Tag;

use super::error::{one_line, McpError, McpErrorKind};
use super::handshake::Negotiated;
use super::jsonrpc;
use super::session::Session;
use super::transport::Transport;

/// The pages of one listing.
pub(crate) struct Pages {
    /// `[page, page, ...]`, each page the canonical JSON of one result object.
    pub json: Vec<u8>,
    /// Number of pages.
    pub count: usize,
    /// Distinct tool names seen.
    pub names: usize,
}

/// Fetches every page of `tools/list`.
pub(crate) fn list_tools(
    t: &mut dyn Transport,
    s: &mut Session<'_>,
    neg: &Negotiated,
) -> Result<Pages, McpError> {
    let mut json = Vec::from(&b"["[..]);
    let mut count = 0usize;
    // Tool name -> page (1-based) it was first seen on.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    // Canonical JSON of every non-empty cursor followed so far.
    let mut cursors: BTreeSet<Vec<u8>> = BTreeSet::new();
    let mut cursor: Option<Vec<u8>> = None;
    loop {
        if count >= s.opts.max_pages {
            return Err(McpError::new(
                McpErrorKind::PageLimit,
                std::format!(
                    "the server still had more tools/list pages after {count} (the page limit is {})",
                    s.opts.max_pages
                ),
            ));
        }
        let empty_cursor = cursor.as_deref() == Some(b"\"\"");
        let params = params(cursor.as_deref(), neg.meta.as_deref());
        let result = match s.call(t, "tools/list", params.as_deref()) {
            Ok(r) => r,
            Err(e) if empty_cursor && matches!(e.kind(), McpErrorKind::JsonRpc { .. }) => {
                s.warnings.push(std::format!(
                    "the server sent an empty nextCursor and then refused it ({}); took \"\" to mean the end of the list, as older servers do",
                    e.message()
                ));
                break;
            }
            Err(e)
                if count == 0 && neg.tools_capability == Some(false) && is_method_not_found(&e) =>
            {
                s.warnings.push(String::from(
                    "the server declares no tools capability and does not implement tools/list; it has no tools",
                ));
                json.extend_from_slice(b"{\"tools\":[]}");
                count = 1;
                break;
            }
            Err(e) if count == 0 => return Err(e),
            Err(e) => {
                let page = count + 1;
                return Err(e.context(&std::format!("tools/list page {page}")));
            }
        };
        let mut nodes = Vec::new();
        let tape = jsonrpc::parse(&result, &mut nodes)
            .map_err(|e| McpError::new(McpErrorKind::Protocol, e.to_string()))?;
        let root = tape.root();
        let tools = match root.get("tools") {
            Some(v) if root.tag() == Tag::Object && v.tag() == Tag::Array => v,
            _ => {
                return Err(McpError::new(
                    McpErrorKind::Protocol,
                    std::format!(
                        "the tools/list result (page {}) has no `tools` array",
                        count + 1
                    ),
                ))
            }
        };
        let page = count + 1;
        let mut names = Vec::new();
        for tool in tools.elements() {
            if let Some(name) = tool.get("name").and_then(jsonrpc::decode) {
                names.push(name);
            }
        }
        if empty_cursor && !names.is_empty() && names.iter().all(|n| seen.contains_key(n)) {
            s.warnings.push(String::from(
                "the server sent an empty nextCursor and then repeated tools already listed; took \"\" to mean the end of the list, as older servers do",
            ));
            break;
        }
        let mut on_this_page = BTreeSet::new();
        for name in names {
            if let Some(first) = seen.get(&name) {
                return Err(McpError::new(
                    McpErrorKind::DuplicateTool,
                    std::format!(
                        "the server listed tool `{}` twice (pages {first} and {page}); its tools/list is invalid",
                        one_line(&name)
                    ),
                ));
            }
            if !on_this_page.insert(name.clone()) {
                return Err(McpError::new(
                    McpErrorKind::DuplicateTool,
                    std::format!(
                        "the server listed tool `{}` twice on page {page}; its tools/list is invalid",
                        one_line(&name)
                    ),
                ));
            }
        }
        for name in on_this_page {
            seen.insert(name, page);
        }
        if count > 0 {
            json.push(b',');
        }
        write_page(&mut json, &result, root, s)?;
        count += 1;
        check_size(json.len(), page, s.opts.max_input_bytes)?;
        let next = match root.get("nextCursor") {
            None => None,
            Some(v) if v.is_null() => None,
            Some(v) if v.tag() == Tag::String => Some(jsonrpc::canonical(v)?),
            Some(_) => {
                return Err(McpError::new(
                    McpErrorKind::Protocol,
                    std::format!("nextCursor on tools/list page {page} is not a string"),
                ))
            }
        };
        let Some(next) = next else { break };
        if next != b"\"\"" && !cursors.insert(next.clone()) {
            return Err(McpError::new(
                McpErrorKind::StuckCursor,
                std::format!(
                    "the server returned the cursor {} again on page {page}; its pagination is stuck",
                    one_line(&String::from_utf8_lossy(&next))
                ),
            ));
        }
        cursor = Some(next);
    }
    json.push(b']');
    Ok(Pages {
        json,
        count,
        names: seen.len(),
    })
}

/// Fails when the document so far (`so_far` bytes), with its closing `]`,
/// is over the input size limit (never more than [`MAX_INPUT`](crate::MAX_INPUT)).
fn check_size(so_far: usize, page: usize, max_input: usize) -> Result<(), McpError> {
    let limit = crate::Limits {
        max_input,
        ..crate::Limits::DEFAULT
    }
    .input_cap();
    if so_far.saturating_add(1) <= limit {
        return Ok(());
    }
    Err(McpError::new(
        McpErrorKind::SizeLimit,
        std::format!(
            "size-limit: the tools/list pages add up to more than {limit} bytes (the input size limit) with page {page}; stopped there"
        ),
    ))
}

fn is_method_not_found(e: &McpError) -> bool {
    matches!(e.kind(), McpErrorKind::JsonRpc { code: -32601, .. })
}

/// `{"_meta":...,"cursor":...}` with whichever members apply, or nothing.
fn params(cursor: Option<&[u8]>, meta: Option<&[u8]>) -> Option<Vec<u8>> {
    if cursor.is_none() && meta.is_none() {
        return None;
    }
    let mut p = Vec::from(&b"{"[..]);
    if let Some(m) = meta {
        p.extend_from_slice(b"\"_meta\":");
        p.extend_from_slice(m);
    }
    if let Some(c) = cursor {
        if meta.is_some() {
            p.push(b',');
        }
        p.extend_from_slice(b"\"cursor\":");
        p.extend_from_slice(c);
    }
    p.push(b'}');
    Some(p)
}

/// Appends one page. The result is already canonical; a (pathological)
/// top-level `name` member is dropped so that the page sequence cannot be
/// mistaken for a bare array of tools.
fn write_page(
    json: &mut Vec<u8>,
    result: &[u8],
    root: crate::json::Value<'_>,
    s: &mut Session<'_>,
) -> Result<(), McpError> {
    if root.get("name").is_none() {
        json.extend_from_slice(result);
        return Ok(());
    }
    s.warnings.push(String::from(
        "a tools/list result had a top-level `name` member; it was ignored",
    ));
    json.push(b'{');
    let mut first = true;
    for (k, v) in root.members_sorted() {
        if k.str_eq("name") {
            continue;
        }
        if !first {
            json.push(b',');
        }
        first = false;
        jcs::write(json, k).map_err(|e| McpError::new(McpErrorKind::Protocol, e.to_string()))?;
        json.push(b':');
        jcs::write(json, v).map_err(|e| McpError::new(McpErrorKind::Protocol, e.to_string()))?;
    }
    json.push(b'}');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::options::ClientOptions;
    use crate::mcp::transport::Deadline;

    /// Serves `pages` results (page k points to page k + 1), counting requests.
    struct Pager {
        pages: Vec<Vec<u8>>,
        asked: usize,
    }

    impl Pager {
        /// `n` pages, each with one tool whose description is `pad` bytes.
        fn new(n: usize, pad: usize) -> Pager {
            let pages = (0..n)
                .map(|k| {
                    let next = if k + 1 < n {
                        std::format!(",\"nextCursor\":\"c{}\"", k + 1)
                    } else {
                        String::new()
                    };
                    std::format!(
                        "{{\"tools\":[{{\"description\":\"{}\",\"inputSchema\":{{}},\"name\":\"t{k}\"}}]{next}}}",
                        "x".repeat(pad)
                    )
                    .into_bytes()
                })
                .collect();
            Pager { pages, asked: 0 }
        }

        /// Size of the document assembled from the first `n` pages.
        fn assembled(&self, n: usize) -> usize {
            2 + self.pages[..n].iter().map(Vec::len).sum::<usize>() + (n - 1)
        }
    }

    impl Transport for Pager {
        fn request(
            &mut self,
            _id: u64,
            _method: &str,
            _message: &[u8],
            _deadline: &Deadline,
        ) -> Result<Vec<u8>, McpError> {
            self.asked += 1;
            Ok(self.pages[self.asked - 1].clone())
        }

        fn notify(&mut self, _: &str, _: &[u8], _: &Deadline) -> Result<(), McpError> {
            Ok(())
        }
    }

    fn list(t: &mut Pager, max_input: usize) -> Result<Pages, McpError> {
        let opts = ClientOptions {
            max_input_bytes: max_input,
            ..ClientOptions::default()
        };
        let mut s = Session::new(&opts);
        let neg = Negotiated {
            version: String::from("2025-11-25"),
            handshake: "initialize",
            tools_capability: Some(true),
            meta: None,
            server_info: None,
            instructions: None,
        };
        list_tools(t, &mut s, &neg)
    }

    #[test]
    fn the_assembled_pages_may_be_exactly_the_input_limit() {
        let mut t = Pager::new(5, 1000);
        let size = t.assembled(5);
        let pages = list(&mut t, size).expect("exactly at the limit");
        assert_eq!((pages.json.len(), pages.count, t.asked), (size, 5, 5));
    }

    #[test]
    fn the_page_that_crosses_the_input_limit_ends_the_listing() {
        // One byte under the size of 3 pages: page 3 crosses it, and no
        // fourth page is asked for although the server has 1000.
        let mut t = Pager::new(1000, 1000);
        let limit = t.assembled(3) - 1;
        let e = list(&mut t, limit).err().expect("over the limit");
        assert_eq!(e.kind(), &McpErrorKind::SizeLimit, "{e}");
        assert_eq!(e.kind().name(), "size-limit");
        assert!(
            e.message()
                .contains(&std::format!("more than {limit} bytes")),
            "{e}"
        );
        assert!(e.message().contains("with page 3"), "{e}");
        assert_eq!(t.asked, 3);
    }

    #[test]
    fn the_input_limit_is_capped_at_max_input() {
        assert!(check_size(crate::MAX_INPUT, 1, usize::MAX).is_err());
        assert!(check_size(crate::MAX_INPUT - 1, 1, usize::MAX).is_ok());
    }
}
