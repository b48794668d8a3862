//! `contractpin digest [FILE|-] [--json]`: server and tool digests of a tools/list.

use contractpin::ServerDigest;

use crate::abi::{self, DocLimits};
use crate::args::{DigestArgs, DocLimitArgs};
use crate::fail::{CliResult, Failure, EXIT_OK};
use crate::input::read_document;
use crate::output::{printable, write_stdout};
use crate::pretty::Json;

/// Document limits from the flags, defaults elsewhere.
pub fn doc_limits(args: &DocLimitArgs, max_tools: Option<usize>) -> DocLimits {
    let mut limits = DocLimits::default();
    if let Some(n) = args.max_input_bytes {
        limits.max_input = n;
    }
    if let Some(n) = args.max_depth {
        limits.max_depth = n;
    }
    if let Some(n) = max_tools {
        limits.max_tools = n;
    }
    limits
}

/// Runs `digest`.
pub fn run(args: &DigestArgs) -> CliResult {
    let limits = doc_limits(&args.limits, args.max_tools);
    let input = read_document(args.file.as_deref(), limits.max_input)?;
    let server =
        abi::digest_tools_list(&input, &limits).map_err(|e| Failure::usage(e.to_string()))?;
    let text = if args.json {
        server_entry_json(&server).to_pretty()
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

/// The spec section 5 server entry: `digest`, `tool_count`, `tools`.
pub fn server_entry_json(server: &ServerDigest) -> Json {
    let tools = server
        .tools
        .iter()
        .map(|t| {
            let fields = t
                .fields
                .iter()
                .map(|(f, d)| (f.name().to_string(), Json::Str(d.to_string())))
                .collect();
            (
                t.name.clone(),
                Json::Obj(vec![
                    ("digest".to_string(), Json::Str(t.digest.to_string())),
                    ("fields".to_string(), Json::Obj(fields)),
                ]),
            )
        })
        .collect();
    Json::Obj(vec![
        ("digest".to_string(), Json::Str(server.digest.to_string())),
        (
            "tool_count".to_string(),
            Json::UInt(server.tools.len() as u64),
        ),
        ("tools".to_string(), Json::Obj(tools)),
    ])
}
