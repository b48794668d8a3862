//! `contractpin verify`: re-fetch pinned servers and compare (spec section 6).
//!
//! Before anything runs, each selected server gets a plan: its source (from
//! the lock, or with `--trusted-lock` from the trusted lock), or the reason
//! it is not run at all (its transport is not in `--transports`, or its
//! source differs from the trusted lock). A refused server is reported as
//! unreachable (exit 1), never started or fetched. Usage problems of any
//! server (an unset `${VAR}`, credentials over plain http, a path outside
//! the lock's directory) exit 2 before any server is started.

use contractpin::lock::{self, cmp_utf16, Lock, LockServer};
use contractpin::mcp::ServerSpec;
use contractpin::verify::{overall_exit_code, verify_server, ServerReport};

use crate::args::{Format, VerifyArgs};
use crate::fail::{CliResult, Failure};
use crate::fetch::{self, FetchOptions};
use crate::input::read_file;
use crate::output::{self, write_stdout};
use crate::source::{parse_header, with_headers};

/// What verify does with one server.
enum Plan {
    /// Fetch from this source and compare.
    Run(ServerSpec),
    /// Do not run it; report it unreachable with this reason.
    Refuse(String),
}

/// Runs `verify`.
pub fn run(args: &VerifyArgs) -> CliResult {
    let limits = super::init::doc_limits(&args.limits);
    let opts = FetchOptions::from_args(&args.limits)?;
    let lock_path = &args.lock;
    let (bytes, lock) = read_lock(lock_path)?;
    let trusted = match &args.trusted_lock {
        Some(p) => Some(read_lock(p)?.1),
        None => None,
    };
    let names = selected(&lock, args)?;
    let cli_headers = cli_headers(args, &lock)?;
    let cli_caps = fetch::client_capabilities(args.client_capabilities.as_deref())?;

    // Every plan first, and every source checked, before anything is
    // fetched: a usage problem exits 2 without half a report.
    let mut targets = Vec::new();
    for name in names {
        let server = &lock.servers[name];
        let plan = plan(name, server, trusted.as_ref(), args, &cli_headers)
            .map_err(|m| Failure::usage(format!("server {name:?}: {m}")))?;
        targets.push((name, server, plan));
    }

    let mut reports = Vec::new();
    for (name, server, plan) in targets {
        let unreachable = |message: String| {
            let mut r = ServerReport::unreachable(name.clone(), message);
            r.pinned_digest = Some(server.digest);
            r.allow_new = args.allow_new;
            r
        };
        let spec = match plan {
            Plan::Refuse(reason) => {
                reports.push(unreachable(format!("not run: {reason}")));
                continue;
            }
            Plan::Run(spec) => spec,
        };
        let mut opts = opts.clone();
        opts.client_capabilities = declared_capabilities(name, server, cli_caps.as_deref());
        let report = match fetch::fetch(&spec, &opts) {
            Err(e) if e.usage => {
                return Err(Failure::usage(format!("server {name:?}: {}", e.message)));
            }
            Err(e) => unreachable(format!("cannot fetch the tools list: {}", e.message)),
            Ok(fetched) => {
                for w in &fetched.warnings {
                    output::warning_line(&format!("server {name:?}: {w}"));
                }
                match contractpin::verify::live_digest_against(&fetched.document, limits, server) {
                    Ok(live) => verify_server(name, server, &live, args.allow_new),
                    Err(e) => unreachable(format!("invalid tools list: {e}")),
                }
            }
        };
        reports.push(report);
    }
    print_reports(args, &reports, &bytes)?;
    Ok(overall_exit_code(&reports) as u8)
}

/// The client capabilities to declare for one server: `--client-capabilities`
/// (with a warning when it differs from the lock entry's), else the entry's.
fn declared_capabilities(name: &str, server: &LockServer, cli: Option<&[String]>) -> Vec<String> {
    let pinned = server.client_capabilities.clone().unwrap_or_default();
    let Some(cli) = cli else { return pinned };
    if cli != pinned.as_slice() && server.transport != lock::Transport::File {
        let list = |v: &[String]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(",")
            }
        };
        output::warning_line(&format!(
            "server {name:?}: declaring client capabilities {} instead of the lock's {}",
            list(cli),
            list(&pinned)
        ));
    }
    cli.to_vec()
}

/// Reads and parses a lock named on the command line (exit 2 on failure).
pub(crate) fn read_lock(path: &std::path::Path) -> Result<(Vec<u8>, Lock), Failure> {
    let bytes = read_file(path, &format!("lock file {}", path.display()))?;
    let lock =
        Lock::parse(&bytes).map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?;
    Ok((bytes, lock))
}

/// The servers to verify, in lock order (the file's UTF-16 key order).
fn selected<'a>(lock: &'a Lock, args: &VerifyArgs) -> Result<Vec<&'a String>, Failure> {
    let mut names: Vec<&String> = lock.servers.keys().collect();
    names.sort_by(|a, b| cmp_utf16(a, b));
    if let Some(s) = args.servers.iter().find(|s| !lock.servers.contains_key(*s)) {
        return Err(not_pinned(s, &args.lock, lock));
    }
    if !args.servers.is_empty() {
        names.retain(|n| args.servers.iter().any(|s| s == *n));
    }
    if names.is_empty() {
        output::warning_line(&format!("{} pins no servers", args.lock.display()));
    }
    Ok(names)
}

/// Exit 2: `name` is not a server of the lock at `path` (naming those it pins).
pub(crate) fn not_pinned(name: &str, path: &std::path::Path, lock: &Lock) -> Failure {
    let mut known: Vec<&str> = lock.servers.keys().map(String::as_str).collect();
    known.sort_by(|a, b| cmp_utf16(a, b));
    Failure::usage(format!(
        "server {name:?} is not pinned in {} (pinned: {})",
        path.display(),
        if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        }
    ))
}

/// `--header` values: only for exactly one `--server`, which must be http.
fn cli_headers(args: &VerifyArgs, lock: &Lock) -> Result<Vec<(String, String)>, Failure> {
    if args.headers.is_empty() {
        return Ok(Vec::new());
    }
    let [server] = args.servers.as_slice() else {
        return Err(Failure::usage(
            "--header needs exactly one --server: headers go to that server only \
             (store a server's own headers in the lock with init --header 'Name: ${VAR}')",
        ));
    };
    if lock.servers[server].transport != lock::Transport::Http {
        return Err(Failure::usage(format!(
            "--header applies only to an http server; {server:?} is {}",
            lock.servers[server].transport
        )));
    }
    args.headers
        .iter()
        .map(|h| parse_header(h).map_err(Failure::usage))
        .collect()
}

/// Decides how (or whether) to run one server.
fn plan(
    name: &str,
    server: &LockServer,
    trusted: Option<&Lock>,
    args: &VerifyArgs,
    cli_headers: &[(String, String)],
) -> Result<Plan, String> {
    if let Some(allowed) = &args.transports {
        if !allowed.iter().any(|t| t.transport() == server.transport) {
            let list: Vec<&str> = allowed.iter().map(|t| t.transport().as_str()).collect();
            return Ok(Plan::Refuse(format!(
                "transport {} is not allowed (--transports {})",
                server.transport,
                list.join(",")
            )));
        }
    }
    let source_of = match trusted {
        None => server,
        Some(t) => match t.servers.get(name) {
            None => {
                return Ok(Plan::Refuse(
                    "source differs from the trusted lock (it does not pin this server)".into(),
                ))
            }
            Some(ts) => {
                let differs = source_differences(server, ts);
                if !differs.is_empty() {
                    return Ok(Plan::Refuse(format!(
                        "source differs from the trusted lock ({})",
                        differs.join(", ")
                    )));
                }
                ts
            }
        },
    };
    let source = with_headers(
        source_of.source().ok_or("the server has no source")?,
        cli_headers,
    );
    let spec = fetch::spec(&source, &args.lock, args.allow_outside_paths)?;
    fetch::check(&spec).map_err(|e| e.message)?;
    Ok(Plan::Run(spec))
}

/// The source keys in which two lock entries differ.
fn source_differences(a: &LockServer, b: &LockServer) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut check = |same: bool, key: &'static str| {
        if !same {
            out.push(key);
        }
    };
    check(a.transport == b.transport, "transport");
    check(a.command == b.command, "command");
    check(a.env == b.env, "env");
    check(a.cwd == b.cwd, "cwd");
    check(a.url == b.url, "url");
    check(a.headers == b.headers, "headers");
    check(a.path == b.path, "path");
    out
}

/// Prints the report in the chosen format (and annotations on GitHub).
fn print_reports(args: &VerifyArgs, reports: &[ServerReport], bytes: &[u8]) -> Result<(), Failure> {
    let lock_text = String::from_utf8_lossy(bytes);
    let annotations = output::github_actions();
    match args.format {
        Format::Json => {
            write_stdout(&contractpin::verify::report_json(reports))?;
            if annotations {
                output::annotate(reports, &args.lock, &lock_text, true);
            }
        }
        Format::Text => {
            if annotations {
                output::annotate(reports, &args.lock, &lock_text, false);
            }
            let style = output::Style::detect();
            write_stdout(output::text_report(reports, &args.lock, style).as_bytes())?;
        }
    }
    Ok(())
}
