//! `contractpin proxy`: run a pinned server behind the checking proxy
//! (`contractpin::proxy`). Everything that can be wrong with the command
//! line, the lock or the entry exits 2 here, before the server is started.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use contractpin::guard::GuardMode;
use contractpin::lock::{self, LockServer};
use contractpin::mcp::ServerSpec;
use contractpin::proxy::{self as cp_proxy, OnDrift, ProxyOptions};

use crate::args::{ModeArg, OnDriftArg, ProxyArgs};
use crate::fail::{CliResult, Failure};
use crate::input::io_reason;
use crate::limits;
use crate::output;
use crate::source::{parse_header, with_headers};

/// The shutdown grace of a proxied server: the SDK clients' (2 s) would
/// outlast their own patience with the proxy (they send SIGTERM 2 s after
/// closing its stdin), so the verify default (1 s) is kept.
const GRACE: Duration = Duration::from_secs(1);

/// Runs `proxy`.
pub fn run(args: &ProxyArgs) -> CliResult {
    let opts = options(args)?;
    let (server, spec) = entry(args)?;
    cp_proxy::check(&spec).map_err(|e| Failure::usage(format!("server {:?}: {e}", args.name)))?;
    let log = log_sink(args.log.as_deref())?;
    cp_proxy::install_signal_handlers();
    let (input, output) = client_pipes()?;
    let outcome = cp_proxy::run(&spec, &server, &opts, input, output, log)
        .map_err(|e| Failure::usage(format!("server {:?}: {e}", args.name)))?;
    let code = outcome.exit_code();
    if code != 0 {
        output::error_line(&format!("server {:?}: {}", args.name, outcome.message));
    }
    if outcome.skipped_server_lines > 0 {
        output::warning_line(&format!(
            "server {:?}: dropped {} line(s) of its stdout that were not JSON-RPC messages",
            args.name, outcome.skipped_server_lines
        ));
    }
    Ok(code)
}

/// The proxy options from the flags (exit 2 on a bad value).
fn options(args: &ProxyArgs) -> Result<ProxyOptions, Failure> {
    let mut o = ProxyOptions::new(&args.name);
    o.mode = match args.mode {
        ModeArg::Enforce => GuardMode::Enforce,
        ModeArg::Observe => GuardMode::Observe,
    };
    o.on_drift = match (args.on_drift, args.mode) {
        (Some(OnDriftArg::Block), ModeArg::Observe) => {
            return Err(Failure::usage(
                "--on-drift block needs --mode enforce (observe mode never changes a listing)",
            ))
        }
        (Some(OnDriftArg::Block), _) => OnDrift::Block,
        _ => OnDrift::Hide,
    };
    o.limits = args.limits();
    limits::at_least_one(&[
        ("--max-line-bytes", args.max_line_bytes),
        ("--max-tools", args.max_tools),
    ])?;
    if let Some(n) = args.max_line_bytes {
        o.client.max_line_bytes = n;
    }
    // One bound per message, whichever way the server talks.
    o.client.max_response_bytes = o.client.max_line_bytes;
    if let Some(d) = limits::seconds("--timeout", args.timeout)? {
        o.client.request_timeout = d;
    }
    o.client.inherit_env = args.inherit_env;
    o.ignore_instructions = args.ignore_instructions;
    o.client.shutdown_grace = GRACE;
    Ok(o)
}

/// The lock entry and the spec to start it with (exit 2 when the lock is
/// missing or invalid, the name unknown, or a path outside the lock's
/// directory).
fn entry(args: &ProxyArgs) -> Result<(LockServer, ServerSpec), Failure> {
    let (_, lock) = super::verify::read_lock(&args.lock)?;
    let Some(server) = lock.servers.get(&args.name) else {
        return Err(super::verify::not_pinned(&args.name, &args.lock, &lock));
    };
    let spec = spec_of(server, args)
        .map_err(|m| Failure::usage(format!("server {:?}: {m}", args.name)))?;
    Ok((server.clone(), spec))
}

/// The lock entry as an MCP spec (`ServerSpec::from_source`, as init and
/// verify resolve one), with `--header` over the lock's headers.
fn spec_of(server: &LockServer, args: &ProxyArgs) -> Result<ServerSpec, String> {
    let source = server.source().ok_or("the server has no source")?;
    if !args.headers.is_empty() && source.transport() != lock::Transport::Http {
        return Err(format!(
            "--header applies only to an http server; this one is {}",
            source.transport()
        ));
    }
    let cli: Vec<(String, String)> = args
        .headers
        .iter()
        .map(|h| parse_header(h))
        .collect::<Result<_, _>>()?;
    crate::fetch::spec(
        &with_headers(source, &cli),
        &args.lock,
        args.allow_outside_paths,
    )
}

/// Our stdin and stdout as plain files: the pump buffers lines itself and
/// writes each burst in one system call, which `Stdout`'s line buffering
/// would split into one per line.
#[cfg(unix)]
fn client_pipes() -> Result<(std::fs::File, std::fs::File), Failure> {
    use std::os::fd::AsFd;
    let dup = |fd: std::io::Result<std::os::fd::OwnedFd>, what: &str| {
        fd.map(std::fs::File::from)
            .map_err(|e| Failure::usage(format!("cannot use {what}: {}", io_reason(&e))))
    };
    Ok((
        dup(
            std::io::stdin().as_fd().try_clone_to_owned(),
            "standard input",
        )?,
        dup(
            std::io::stdout().as_fd().try_clone_to_owned(),
            "standard output",
        )?,
    ))
}

/// Elsewhere, the standard handles.
#[cfg(not(unix))]
fn client_pipes() -> Result<(std::io::Stdin, std::io::Stdout), Failure> {
    Ok((std::io::stdin(), std::io::stdout()))
}

/// `--log FILE` opened for appending (exit 2 when it cannot be), or stderr.
fn log_sink(path: Option<&Path>) -> Result<Box<dyn Write + Send>, Failure> {
    let Some(path) = path else {
        return Ok(Box::new(std::io::stderr()));
    };
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| {
            Failure::usage(format!(
                "cannot open the log file {}: {}",
                path.display(),
                io_reason(&e)
            ))
        })?;
    Ok(Box::new(file))
}
