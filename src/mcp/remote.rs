//! Fetching a tools/list over HTTP: the Streamable HTTP transport first,
//! and, when the endpoint refuses POST (404/405) before answering anything,
//! the legacy HTTP+SSE transport. It sits above `http` and `legacy_sse`,
//! which share the HTTP client pieces of `http` but not each other.

use std::string::String;

use super::error::{McpError, McpErrorKind};
use super::http::{check_url, StreamableHttp};
use super::legacy_sse::LegacySse;
use super::listing;
use super::options::ClientOptions;
use super::session::Session;
use super::Fetched;

/// Fetches `tools/list` from an HTTP endpoint; `url` and `headers` are
/// already expanded and checked (`credentials::http`).
pub(crate) fn fetch(
    url: &str,
    headers: &[(String, String)],
    opts: &ClientOptions,
) -> Result<Fetched, McpError> {
    check_url(url)?;
    let mut s = Session::new(opts);
    let mut t = StreamableHttp::new(url, headers, opts)?;
    let mut listing = listing::run(&mut t, &mut s);
    if t.session_lost {
        // The server forgot our session (HTTP 404): the spec says to start a
        // new one. Once; a server that loses it again has failed. Warnings of
        // the first attempt would repeat: drop them.
        let warnings_before = 0;
        let first_error = listing
            .err()
            .map(|e| String::from(e.message()))
            .unwrap_or_default();
        s.warnings.truncate(warnings_before);
        s.warnings.push(std::format!(
            "the server lost the session ({first_error}); started a new session once"
        ));
        t = StreamableHttp::new(url, headers, opts)?;
        listing = listing::run(&mut t, &mut s);
    }
    let (listing, transport) = match listing {
        Err(e) if !t.answered && matches!(e.kind(), McpErrorKind::Http { status: 404 | 405 }) => {
            // The endpoint refuses POST: maybe a server of the legacy HTTP+SSE transport.
            let mut legacy = match LegacySse::connect(url, headers, &s.clock, opts) {
                Ok(l) => l,
                Err(le) => {
                    return Err(McpError::new(
                        e.kind().clone(),
                        std::format!(
                            "{}; the legacy HTTP+SSE transport did not work either: {}",
                            e.message(),
                            le.message()
                        ),
                    ))
                }
            };
            let listing = listing::run(&mut legacy, &mut s);
            legacy.close();
            (listing?, "legacy-sse")
        }
        other => {
            t.delete_session(&s);
            (other?, "streamable-http")
        }
    };
    Ok(Fetched {
        pages: listing.pages,
        page_count: listing.page_count,
        tool_names_seen: listing.tool_names_seen,
        protocol_version: listing.protocol_version,
        handshake: listing.handshake,
        warnings: s.warnings,
        skipped_stdout_lines: 0,
        transport,
        server_info: listing.server_info,
        instructions: listing.instructions,
    })
}
