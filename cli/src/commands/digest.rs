//! `contractpin digest [FILE|-] [--json]`: server and tool digests of a tools/list.

use contractpin::lock::{LockServer, Source};
use contractpin::{Context, Limits, ListOptions, ServerDigest};

use crate::args::DigestArgs;
use crate::fail::{CliResult, Failure, EXIT_OK};
use crate::input::read_document;
use crate::output::{printable, write_stdout};

/// Server, tool and field digests of a tools/list under `limits`.
pub fn digest_list(input: &[u8], limits: Limits) -> Result<ServerDigest, contractpin::Error> {
    digest_with(input, limits, true)
}

/// Server and tool digests, with field digests only when `fields` (the
/// text listing prints none: without them every contract byte is hashed
/// once instead of twice; the server and tool digests are the same).
fn digest_with(
    input: &[u8],
    limits: Limits,
    fields: bool,
) -> Result<ServerDigest, contractpin::Error> {
    Context::with_limits(limits).digest_tools_list_owned(
        input,
        ListOptions {
            field_digests: fields,
        },
    )
}

/// Runs `digest`.
pub fn run(args: &DigestArgs) -> CliResult {
    let limits = args.limits.limits(args.max_tools);
    let input = read_document(args.file.as_deref(), limits.max_input)?;
    let server =
        digest_with(&input, limits, args.json).map_err(|e| Failure::usage(e.to_string()))?;
    let text = if args.json {
        server_entry_json(&server)
    } else {
        text_listing(&server)
    };
    write_stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// The text form: `<server digest>  (N tools)`, then `<tool digest>  <name>` lines.
pub fn text_listing(server: &ServerDigest) -> String {
    let n = server.tools.len();
    let mut text = format!(
        "{}  ({} tool{})\n",
        server.digest,
        n,
        if n == 1 { "" } else { "s" }
    );
    for tool in &server.tools {
        text.push_str(&tool.digest.to_string());
        text.push_str("  ");
        text.push_str(&printable(&tool.name));
        text.push('\n');
    }
    text
}

/// The pins the lock would hold for this list (`digest`, `tool_count`,
/// `tools`), in the lock's own layout (the lock writer prints them).
pub fn server_entry_json(server: &ServerDigest) -> String {
    let entry = LockServer::from_server_digest(
        Source::File {
            path: String::new(),
        },
        server,
    );
    // The lock writer writes UTF-8 (from `String`s and ASCII), so this takes
    // the bytes as they are; a lossy copy of ~0.5 MB on L cost 0.6 ms.
    String::from_utf8(entry.pins_to_pretty())
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}
