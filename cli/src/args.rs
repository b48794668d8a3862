//! Command-line arguments (clap derive). Parsing only: no I/O here.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Default lock file name (spec section 5).
pub const DEFAULT_LOCK: &str = "contractpin.lock";

/// Top-level command line.
#[derive(Debug, Parser)]
#[command(
    name = "contractpin",
    version,
    about = "Pin MCP tool contracts as SHA-256 digests and fail CI when a server drifts",
    long_about = "Pin MCP tool contracts (name, description, inputSchema, outputSchema, annotations) \
                  as SHA-256 digests over RFC 8785 canonical JSON in contractpin.lock, and fail CI \
                  when a live server drifts.\n\n\
                  Exit codes: 0 = every selected server matches the lock; 1 = drift (a tool drifted, \
                  was added or removed) or a pinned server could not be reached or returned an \
                  invalid tools list; 2 = the tool could not run (bad arguments, missing or corrupt \
                  lock, unknown lock version, rejected input).",
    propagate_version = true,
    disable_help_subcommand = true
)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Fetch a server's tools/list and pin its contract digests in the lock
    #[command(
        long_about = "Fetch a server's tools/list and pin its contract digests in the lock.\n\n\
        Exactly one source: `-- CMD ARGS...` (stdio), `--http URL`, `--file DUMP`, or \
        `--from CONFIG` (an MCP client configuration: the `mcpServers` map of Claude Desktop, \
        Cursor and Claude Code, or VS Code's `servers` map; `--name` filters it).\n\n\
        Other servers in the lock are kept. Replacing an existing entry needs --force. If any \
        server cannot be fetched, no lock is written (exit 1). Only ${VAR} references are ever \
        stored: a header value such as 'Bearer ${TOKEN}' is stored as written, a literal header \
        value or URL user information is used for this fetch only, a literal env value is \
        stored as a reference to the variable of the same name, and a URL carrying a credential \
        in its query or path (?token=..., ?api_key=...) is refused unless that part is a \
        ${VAR} reference. Credentials are never sent over plain http:// to another machine.\n\n\
        Some servers list more tools to a client that declares roots, sampling or elicitation: \
        --client-capabilities declares them in the handshake and records them in the lock \
        entry (client_capabilities), and verify declares them again.",
        after_help = "Examples:\n  \
        contractpin init --name everything -- npx -y @modelcontextprotocol/server-everything\n  \
        contractpin init --name api --http https://mcp.example.com/mcp --header 'Authorization: Bearer ${TOKEN}'\n  \
        contractpin init --name dump --file tools-list.json\n  \
        contractpin init --from ~/.cursor/mcp.json\n  \
        contractpin init --from claude_desktop_config.json --client-capabilities roots,sampling,elicitation"
    )]
    Init(InitArgs),
    /// Re-fetch pinned servers and compare them with the lock (exit 0 / 1 / 2)
    #[command(
        long_about = "Re-fetch every pinned server (or those named with --server) using \
        the lock's command/env/cwd, url or path, and classify each tool as unchanged, drifted \
        (naming the changed fields), added or removed. Each server's handshake declares the \
        client capabilities its lock entry records (client_capabilities), unless \
        --client-capabilities overrides them.\n\n\
        Exit codes: 0 = every selected server matches; 1 = drift, an added tool (unless \
        --allow-new), or a server that could not be reached or returned an invalid tools list; \
        2 = bad arguments, missing or corrupt lock, unknown lock version."
    )]
    Verify(VerifyArgs),
    /// Re-pin chosen tools of one server after reviewing their changes (exit 0 / 1 / 2)
    #[command(
        long_about = "Re-fetch one pinned server exactly as verify does (the lock's own source, \
        env, cwd, headers and client capabilities; the same limits and environment rules), show \
        how it differs from the lock, and re-pin only the tools named with --tool: a drifted or \
        added tool takes its live pin, a removed one is dropped from the lock. Every other tool \
        keeps its old pin, even a drifted one; the server digest and tool_count are recomputed \
        from the resulting tools. --all approves every change (re-pinning the server, keeping its \
        source settings). --interactive asks tool by tool on a terminal (y = approve, n = keep the \
        old pin, q = approve none of the rest; the answers given so far are written).\n\n\
        --expect DIGEST binds the approval to the report you reviewed: the live server digest \
        (the `live` line of verify's report) must be DIGEST, or approve exits 1 before showing \
        or writing anything (a server that showed CI one contract now serves another). It binds \
        the tools: every tool digest, field digest and snapshot approve writes comes from the \
        one fetch whose server digest is checked. The server digest does not cover the \
        instructions: when changed instructions would be approved (--instructions, --all, \
        --interactive), --expect also needs --expect-instructions DIGEST (`instructions.live` \
        of verify --format json, or none), which binds the instructions digest and is checked \
        whenever it is given. The serverInfo and protocol version that --all records are \
        informational and outside every digest, so neither flag binds them: approve shows a \
        change of either among the changes before it writes, and a `recorded ...` line of its \
        summary names each one written.\n\n\
        A --tool that is unchanged is a no-op (a note); one that is neither pinned nor live is an \
        error (exit 2), and nothing is written. The lock is saved atomically under its advisory \
        lock; its other servers are kept as they are.\n\n\
        approve runs the command (or contacts the URL) of the lock it is given. On a pull \
        request's lock, pass --trusted-lock BASE (the base branch's lock), as to verify: the \
        server is run only if BASE pins the same source (transport, command, env, cwd, url, \
        headers, path, client capabilities), a stdio server without a cwd of its own in an empty \
        temporary directory rather than the checkout; otherwise approve exits 1 (\"source \
        differs from the trusted lock (...)\") and runs and writes nothing. The pins are still \
        read from and written to --lock, whose source settings are kept. --transports LIST \
        likewise runs only a server on one of those transports.\n\n\
        Exit codes: 0 = the lock was updated, or there was nothing to approve; 1 = the server \
        could not be reached, returned an invalid tools list, or no longer serves the digests \
        given with --expect / --expect-instructions, or was not run because its source differs \
        from (or is missing in) --trusted-lock or its transport is not in --transports, as \
        verify reports it (nothing written); 2 = bad arguments (a \
        malformed DIGEST, --expect without --expect-instructions for changed instructions), a \
        missing or invalid lock, an unknown server or tool, --interactive without a terminal.",
        after_help = "Examples:\n  \
        contractpin approve --server everything --tool echo\n  \
        contractpin approve --server search --tool search_web --tool export_data\n  \
        contractpin approve --server search --tool search_web --expect sha256:<live digest>\n  \
        contractpin approve --server search --tool search_web --trusted-lock base.lock\n  \
        contractpin approve --server search --all\n  \
        contractpin approve --server search --interactive"
    )]
    Approve(ApproveArgs),
    /// Make an MCP client start its pinned servers through `contractpin proxy`
    #[command(
        long_about = "Rewrite an MCP client configuration so that each server pinned in the lock \
        (matched by name) starts through `contractpin proxy`: Claude Desktop, Cursor and Claude \
        Code (`mcpServers`), VS Code `mcp.json` (`servers`) and `settings.json` (`mcp.servers`).\n\n\
        A wrapped entry is {\"command\": \"/abs/contractpin\", \"args\": [\"proxy\", \"--lock\", \
        \"/abs/contractpin.lock\", \"--name\", NAME]} plus the entry's other members (env, cwd, ...) \
        as written: the proxy takes the server's command or URL from the lock, and an HTTP entry \
        becomes a stdio entry (the proxy speaks stdio to the client). Servers not in the lock, \
        disabled ones and wrapped ones are left as they are; a second wrap changes nothing.\n\n\
        The original file is kept as FILE.contractpin-backup (same permissions; never \
        overwritten) for `contractpin unwrap`. Only the wrapped entries' bytes change: comments \
        and formatting elsewhere stay. Each ${VAR} the lock needs must be in the entry's env \
        block (clients start servers with a minimal environment): a warning names any missing \
        one.\n\n\
        Exit codes: 0 = done (or nothing to do); 2 = bad arguments, unreadable or invalid \
        configuration or lock, a symbolic link, or a backup already there.",
        after_help = "Examples:\n  \
        contractpin wrap --config ~/Library/Application\\ Support/Claude/claude_desktop_config.json --dry-run\n  \
        contractpin wrap --config .vscode/mcp.json --lock contractpin.lock"
    )]
    Wrap(WrapArgs),
    /// Undo `wrap`: put back the original entries from the backup
    #[command(
        long_about = "Undo `contractpin wrap`: put back, entry by entry, the original text of every \
        wrapped entry from FILE.contractpin-backup, then remove the backup. Changes made since \
        wrap elsewhere in the file (a new server, another setting) are kept; with none, the file \
        is byte-identical to the one before wrap.\n\n\
        A wrapped entry edited since wrap is refused (exit 2, nothing written) unless --force, \
        which restores it from the backup anyway (losing that edit).\n\n\
        Exit codes: 0 = done (or nothing to do); 2 = no backup, an edited entry without --force, \
        bad arguments, an unreadable or invalid file, a symbolic link."
    )]
    Unwrap(UnwrapArgs),
    /// Print the server digest and every tool digest of a tools/list document
    #[command(
        long_about = "Print the server digest and every tool digest of a tools/list \
        document (a result object, a JSON-RPC response, a bare array of tools, or a sequence of \
        pages).\n\n\
        Text output: the first line is `<server digest>  (<N> tools)`, then one line \
        `<tool digest>  <tool name>` per tool in canonical (UTF-16) name order.\n\
        With --json: the lock's server entry (`digest`, `tool_count`, `tools` with each tool's \
        `digest` and `fields`), pretty-printed like the lock.\n\n\
        Rejected input exits 2 with `error: <kind> at byte <offset>: <message>` on stderr."
    )]
    Digest(DigestArgs),
    /// Write the RFC 8785 canonical form of any JSON document to stdout
    #[command(
        long_about = "Write the RFC 8785 canonical form (contractpin-canonical-json/1) of \
        any JSON document to stdout, with no trailing newline.\n\n\
        Rejected input exits 2 with `error: <kind> at byte <offset>: <message>` on stderr."
    )]
    Canon(CanonArgs),
    /// Run a pinned server behind a checking proxy: MCP over stdio, every tools/list checked
    #[command(
        long_about = PROXY_ABOUT,
        after_help = PROXY_EXAMPLES
    )]
    Proxy(ProxyArgs),
}

const PROXY_ABOUT: &str = "Run the server pinned as NAME in the lock behind a checking proxy. \
Point an MCP client at `contractpin proxy --name NAME` instead of the server's own command: \
the proxy speaks MCP over stdio (newline-delimited JSON-RPC on its stdin/stdout) to the client, \
reaches the server exactly as verify does (a stdio entry: the lock's command, env with ${VAR} \
expanded, cwd inside the lock's directory, only HOME, LOGNAME, PATH, SHELL, TERM and USER of this \
environment unless --inherit-env, its own process group; an http entry: Streamable HTTP with the \
lock's headers and --header, falling back to legacy HTTP+SSE), and passes every message through unchanged, the client's \
own initialize included, so the server sees the real client: a server that serves clean contracts \
to contractpin and poisoned ones to other clients is caught here, where verify was fooled.\n\n\
Enforcement (--mode enforce, the default): every tools/list answer is checked page by page \
against the pins; tools that drifted or are not pinned are removed from it (--on-drift hide, the \
default) or the whole answer becomes a JSON-RPC error -32603 naming them (--on-drift block). A \
tools/call for a tool that the latest checked listing did not pass is answered by the proxy with \
-32602 \"Unknown tool: NAME\" and never reaches the server; before the first listing, and after \
the server sends notifications/tools/list_changed until the client lists the tools again, no tool \
passes. A page that cannot be checked (invalid, duplicate names, over a limit) is an error for the \
client. The instructions of the server's initialize (or server/discover) result are compared \
with the lock's instructions_digest: instructions that drifted, are not a string, or are not \
pinned (an entry made with init --ignore-instructions pins none) are removed from the result \
(--on-drift hide) or the client's initialize is answered with error -32603 (--on-drift block); \
instructions the lock pins but the server no longer sends are only logged; \
--ignore-instructions passes them through unchecked, as verify --ignore-instructions. A line from the server that is not a JSON-RPC message is dropped; an answer of an http server \
over --max-line-bytes is a JSON-RPC error for its request, never read whole. --mode observe changes \
nothing on the wire and only logs.\n\n\
Log: one JSON object per line (keys in canonical order; at, server, status, and tool, changed, \
live, pinned or reason) for each drifted or unpinned tool, refused or unverified call, blocked \
listing, rejected page, drifted, added or removed instructions and dropped line, appended to --log FILE, or written to stderr. The server's own \
stderr is passed through to stderr.\n\n\
Exit codes: 0 = the client ended the session (end of the proxy's stdin, its stdout closed, or \
SIGTERM/SIGINT/SIGHUP; on Windows Ctrl-C, Ctrl-Break or the console closing); 1 = the server could not start, exited, closed its stdout, wrote a line \
over --max-line-bytes or stopped reading while the client was connected (or the client wrote a \
line over the limit); 2 = bad arguments, a missing or invalid lock, an unknown server name, an \
unset ${VAR}, or an entry that cannot be proxied, all before the server is started. The server is \
always shut down (stdio: stdin closed, then SIGTERM and SIGKILL to its process group, on Windows \
its job object ended; http: the session is deleted).";

const PROXY_EXAMPLES: &str = "Examples:\n  \
contractpin proxy --name everything\n  \
contractpin proxy --lock /repo/contractpin.lock --name github --log ~/.cache/contractpin-proxy.log\n  \
contractpin proxy --name everything --mode observe\n\n\
In an MCP client configuration (Claude Desktop, Cursor, ...):\n  \
\"everything\": {\"command\": \"contractpin\", \"args\": [\"proxy\", \"--lock\", \"/repo/contractpin.lock\", \"--name\", \"everything\"]}";

/// `--mode` of `proxy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Remove (or block) what does not match the lock, refuse calls to it
    Enforce,
    /// Change nothing; log what enforce would do
    Observe,
}

/// `--on-drift` of `proxy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnDriftArg {
    /// Remove drifted and unpinned tools from the listing
    Hide,
    /// Answer the whole tools/list with a JSON-RPC error naming them
    Block,
}

/// `contractpin proxy`.
#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// The lock that pins the server
    #[arg(long, value_name = "PATH", default_value = DEFAULT_LOCK)]
    pub lock: PathBuf,
    /// The server's name in the lock
    #[arg(long, value_name = "NAME")]
    pub name: String,
    /// enforce: hide or block what does not match and refuse calls to it; observe: only log
    #[arg(long, value_enum, default_value_t = ModeArg::Enforce)]
    pub mode: ModeArg,
    /// In enforce mode, what a listing with drifted or unpinned tools becomes [default: hide]
    #[arg(long, value_enum, value_name = "hide|block")]
    pub on_drift: Option<OnDriftArg>,
    /// Append the event log (JSON lines) to this file instead of stderr
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Allow the stdio server's cwd outside the lock's directory
    #[arg(long)]
    pub allow_outside_paths: bool,
    /// HTTP header 'Name: value' for an http server (repeatable; ${VAR} is expanded; never printed)
    #[arg(
        long = "header",
        value_name = "'NAME: VALUE'",
        allow_hyphen_values = true
    )]
    pub headers: Vec<String>,
    /// Longest accepted message in bytes: a line from a stdio server or the client, an SSE event or JSON answer from an http server [default: 16777216]
    #[arg(long, value_name = "BYTES")]
    pub max_line_bytes: Option<usize>,
    /// Largest tools/list page checked, in bytes (a larger one is an error for the client) [default: 67108864]
    #[arg(long, value_name = "BYTES")]
    pub max_input_bytes: Option<usize>,
    /// Deepest accepted nesting in a tools/list page [default: 256]
    #[arg(long, value_name = "N")]
    pub max_depth: Option<u32>,
    /// Most tools accepted in one tools/list page [default: 100000]
    #[arg(long, value_name = "N")]
    pub max_tools: Option<usize>,
    /// Longest wait for the server to take a message from the client, in seconds [default: 30]
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Let the stdio server inherit this process's whole environment (secrets included)
    #[arg(long)]
    pub inherit_env: bool,
    /// Do not compare the server's instructions with the lock's instructions_digest (pass them through)
    #[arg(long)]
    pub ignore_instructions: bool,
}

/// Limits on a single JSON document.
#[derive(Debug, Args, Clone, Default)]
pub struct DocLimitArgs {
    /// Largest accepted JSON document in bytes [default: 67108864]
    #[arg(long, value_name = "BYTES")]
    pub max_input_bytes: Option<usize>,
    /// Deepest accepted nesting of arrays and objects [default: 256]
    #[arg(long, value_name = "N")]
    pub max_depth: Option<u32>,
}

/// Limits on fetching a tools/list from a server, and what a stdio server inherits.
#[derive(Debug, Args, Clone, Default)]
pub struct FetchLimitArgs {
    /// Largest accepted tools list in bytes, all pages together (checked as each page arrives) [default: 67108864]
    #[arg(long, value_name = "BYTES")]
    pub max_input_bytes: Option<usize>,
    /// Deepest accepted nesting of arrays and objects [default: 256]
    #[arg(long, value_name = "N")]
    pub max_depth: Option<u32>,
    /// Most tools accepted from one server, over all pages [default: 100000]
    #[arg(long, value_name = "N")]
    pub max_tools: Option<usize>,
    /// Most tools/list pages followed for one server [default: 1000]
    #[arg(long, value_name = "N")]
    pub max_pages: Option<usize>,
    /// Longest accepted stdout line from a stdio server, in bytes [default: 16777216]
    #[arg(long, value_name = "BYTES")]
    pub max_line_bytes: Option<usize>,
    /// Largest accepted HTTP response body (or SSE event, or dump file), in bytes [default: 67108864]
    #[arg(long, value_name = "BYTES")]
    pub max_response_bytes: Option<usize>,
    /// Time allowed for each request, in seconds (fractions allowed) [default: 30]
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Time allowed for fetching one server, in seconds (fractions allowed) [default: 120]
    #[arg(long, value_name = "SECONDS")]
    pub total_timeout: Option<f64>,
    /// Servers fetched at the same time (1: one after the other) [default: the number of servers, at most 8]
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Time a stdio server gets to exit by itself once its answer is complete and its stdin
    /// closed, in milliseconds, before SIGTERM to its process group (SIGKILL follows 1 s later) [default: 200]
    #[arg(long, value_name = "MS")]
    pub grace_ms: Option<u64>,
    /// Let stdio servers inherit this process's whole environment (CI secrets included)
    #[arg(
        long,
        long_help = "Let stdio servers inherit this process's whole environment, CI secrets \
        included. Without it a stdio server gets only HOME, LOGNAME, PATH, SHELL, TERM and USER \
        (as the official MCP SDK clients give it; a value starting with `()` is left out) plus \
        the env of its lock entry (`init --env`; ${VAR} references are expanded from this \
        environment either way). Not stored in the lock: give it to verify too."
    )]
    pub inherit_env: bool,
}

/// `contractpin init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The lock file to create or update
    #[arg(long, value_name = "PATH", default_value = DEFAULT_LOCK)]
    pub lock: PathBuf,
    /// Local name of the server in the lock (with --from: import only this server)
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Replace an existing entry of the same name
    #[arg(long)]
    pub force: bool,
    /// Pin a streamable HTTP (or legacy SSE) server at this URL
    #[arg(long, value_name = "URL", conflicts_with_all = ["file", "from"])]
    pub http: Option<String>,
    /// Pin a local tools/list JSON dump (file transport)
    #[arg(long, value_name = "DUMP", conflicts_with_all = ["http", "from"])]
    pub file: Option<PathBuf>,
    /// Import servers from an MCP client configuration (Claude Desktop, Cursor, Claude Code, VS Code)
    #[arg(long, value_name = "CONFIG", conflicts_with_all = ["http", "file"])]
    pub from: Option<PathBuf>,
    /// HTTP header 'Name: value' (repeatable). A value of ${VAR} references (optionally after a
    /// scheme word: 'Authorization: Bearer ${TOKEN}') is stored in the lock; a literal value is
    /// used for this fetch only and never stored. With --from, needs --name
    #[arg(
        long = "header",
        value_name = "'NAME: VALUE'",
        allow_hyphen_values = true
    )]
    pub headers: Vec<String>,
    /// Allow a --file path or --cwd outside the lock's directory
    #[arg(long)]
    pub allow_outside_paths: bool,
    /// Environment variable K=V for a stdio server (repeatable; write ${VAR} to store a reference)
    #[arg(long = "env", value_name = "K=V", allow_hyphen_values = true)]
    pub env: Vec<String>,
    /// Working directory of a stdio server
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Client capabilities to declare in the handshake, comma-separated: roots, sampling,
    /// sampling.context, sampling.tools, elicitation, elicitation.form, elicitation.url, tasks,
    /// tasks.list, tasks.cancel, tasks.requests.sampling.createMessage,
    /// tasks.requests.elicitation.create, experimental.NAME; or none [default: none]. Recorded in the lock entry (verify declares them again)
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub client_capabilities: Option<String>,
    /// Pin digests only: do not record each tool's contract JSON (the snapshot) in the lock
    #[arg(long)]
    pub no_snapshot: bool,
    /// Do not pin the server's instructions text (verify then needs --ignore-instructions too)
    #[arg(long)]
    pub ignore_instructions: bool,
    /// Fetch limits and timeouts
    #[command(flatten)]
    pub limits: FetchLimitArgs,
    /// The stdio server's command and arguments, after `--`
    #[arg(last = true, value_name = "CMD ARGS")]
    pub command: Vec<String>,
}

/// Report format of `verify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable report
    Text,
    /// The stable JSON report schema (docs/REPORT_SCHEMA.md)
    Json,
    /// SARIF 2.1.0 for GitHub code scanning: one result per drifted, added or removed tool
    Sarif,
}

/// A transport named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TransportArg {
    /// A child process
    Stdio,
    /// Streamable HTTP or legacy HTTP+SSE
    Http,
    /// A tools/list dump
    File,
}

impl TransportArg {
    /// The lock's transport.
    pub fn transport(self) -> contractpin::lock::Transport {
        match self {
            TransportArg::Stdio => contractpin::lock::Transport::Stdio,
            TransportArg::Http => contractpin::lock::Transport::Http,
            TransportArg::File => contractpin::lock::Transport::File,
        }
    }
}

/// `contractpin verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The lock file to verify against
    #[arg(long, value_name = "PATH", default_value = DEFAULT_LOCK)]
    pub lock: PathBuf,
    /// Verify only this server (repeatable; default: every server in the lock)
    #[arg(long = "server", value_name = "NAME")]
    pub servers: Vec<String>,
    /// Do not fail when a server has tools (or instructions) that are not in the lock
    #[arg(long)]
    pub allow_new: bool,
    /// Do not compare the servers' instructions text with the lock's instructions_digest
    #[arg(long)]
    pub ignore_instructions: bool,
    /// Report format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// HTTP header 'Name: value' for the one server named with --server (repeatable; ${VAR} is
    /// expanded; never printed). Headers stored in the lock are sent to their own server only
    #[arg(
        long = "header",
        value_name = "'NAME: VALUE'",
        allow_hyphen_values = true
    )]
    pub headers: Vec<String>,
    /// Take every server's source (transport, command, env, cwd, url, headers, path) from this
    /// lock, e.g. the base branch's; a server whose source differs, or which it lacks, is not run
    #[arg(long, value_name = "PATH")]
    pub trusted_lock: Option<PathBuf>,
    /// Run only servers on these transports (comma-separated); others are not run (exit 1)
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub transports: Option<Vec<TransportArg>>,
    /// Allow a file `path` or stdio `cwd` outside the lock's directory
    #[arg(long)]
    pub allow_outside_paths: bool,
    /// Client capabilities to declare in the handshake, comma-separated: roots, sampling,
    /// sampling.context, sampling.tools, elicitation, elicitation.form, elicitation.url, tasks,
    /// tasks.list, tasks.cancel, tasks.requests.sampling.createMessage,
    /// tasks.requests.elicitation.create, experimental.NAME; or none [default: each lock entry's client_capabilities]. Overrides the lock for every selected server
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub client_capabilities: Option<String>,
    /// Fetch limits and timeouts
    #[command(flatten)]
    pub limits: FetchLimitArgs,
}

/// `contractpin approve`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("which").required(true).multiple(true).args(["tools", "all", "interactive", "instructions"])))]
pub struct ApproveArgs {
    /// The lock file to update
    #[arg(long, value_name = "PATH", default_value = DEFAULT_LOCK)]
    pub lock: PathBuf,
    /// The server whose tools to approve (its name in the lock)
    #[arg(long, value_name = "NAME")]
    pub server: String,
    /// Approve this drifted, added or removed tool (repeatable)
    #[arg(long = "tool", value_name = "NAME")]
    pub tools: Vec<String>,
    /// Approve every change of the server (tools and instructions; its serverInfo and
    /// protocol version are refreshed too)
    #[arg(long, conflicts_with_all = ["tools", "interactive", "instructions"])]
    pub all: bool,
    /// Ask change by change (y/n/q); needs a terminal on standard input
    #[arg(long, conflicts_with_all = ["tools", "instructions"])]
    pub interactive: bool,
    /// Approve the server's changed instructions: re-pin, pin or drop their digest
    #[arg(long)]
    pub instructions: bool,
    /// Approve only if the live server digest is DIGEST (sha256:<64 lowercase hex>), the `live`
    /// digest of the verify report you reviewed; otherwise exit 1 and write nothing. Binds the
    /// tools (every pin and snapshot written comes from that fetch), not the instructions nor
    /// the serverInfo and protocol version --all records (informational, outside every digest)
    #[arg(long, value_name = "DIGEST")]
    pub expect: Option<String>,
    /// Approve only if the live instructions digest is DIGEST (`instructions.live` of
    /// `verify --format json`; `none` for no instructions); binds the instructions digest, and
    /// is needed with --expect when changed instructions would be approved
    #[arg(long, value_name = "DIGEST")]
    pub expect_instructions: Option<String>,
    /// HTTP header 'Name: value' for this fetch of an http server (repeatable; ${VAR} is
    /// expanded; never printed or stored)
    #[arg(
        long = "header",
        value_name = "'NAME: VALUE'",
        allow_hyphen_values = true
    )]
    pub headers: Vec<String>,
    /// Run the server only if this lock (e.g. the base branch's) pins the same source
    /// (transport, command, env, cwd, url, headers, path, client capabilities); otherwise
    /// exit 1 and run and write nothing. The pins are still read from and written to --lock
    #[arg(long, value_name = "PATH")]
    pub trusted_lock: Option<PathBuf>,
    /// Run the server only if its transport is in this list (comma-separated); otherwise
    /// exit 1 and run and write nothing
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub transports: Option<Vec<TransportArg>>,
    /// Allow a file `path` or stdio `cwd` outside the lock's directory
    #[arg(long)]
    pub allow_outside_paths: bool,
    /// Fetch limits and timeouts
    #[command(flatten)]
    pub limits: FetchLimitArgs,
}

/// `contractpin wrap`.
#[derive(Debug, Args)]
pub struct WrapArgs {
    /// The MCP client configuration to rewrite
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// The lock the proxy reads (its absolute path goes into each wrapped entry)
    #[arg(long, value_name = "PATH", default_value = DEFAULT_LOCK)]
    pub lock: PathBuf,
    /// Print the change as a unified diff (values of env, headers and credentials masked) and write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Rewrite entries that run contractpin proxy otherwise than wrap would (another program, lock, name or options) to run this contractpin with this lock
    #[arg(long)]
    pub rewrap: bool,
}

/// `contractpin unwrap`.
#[derive(Debug, Args)]
pub struct UnwrapArgs {
    /// The wrapped MCP client configuration
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// Restore wrapped entries edited since wrap as well (those edits are lost)
    #[arg(long)]
    pub force: bool,
    /// Print the change as a unified diff and write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// `contractpin digest`.
#[derive(Debug, Args)]
pub struct DigestArgs {
    /// The tools/list document ('-' or absent: standard input)
    #[arg(value_name = "FILE|-")]
    pub file: Option<PathBuf>,
    /// Print the lock's server entry as JSON instead of text
    #[arg(long)]
    pub json: bool,
    /// Most tools accepted [default: 100000]
    #[arg(long, value_name = "N")]
    pub max_tools: Option<usize>,
    /// Document limits
    #[command(flatten)]
    pub limits: DocLimitArgs,
}

/// `contractpin canon`.
#[derive(Debug, Args)]
pub struct CanonArgs {
    /// The JSON document ('-' or absent: standard input)
    #[arg(value_name = "FILE|-")]
    pub file: Option<PathBuf>,
    /// Document limits
    #[command(flatten)]
    pub limits: DocLimitArgs,
}
