//! `contractpin verify`: re-fetch pinned servers and compare (spec section 6).
//!
//! Before anything runs, each selected server gets a plan: its source (from
//! the lock, or with `--trusted-lock` from the trusted lock), or the reason
//! it is not run at all (its transport is not in `--transports`, or its
//! source differs from the trusted lock). A refused server is reported as
//! unreachable (exit 1), never started or fetched. Usage problems of any
//! server (an unset `${VAR}`, credentials over plain http, a path outside
//! the lock's directory) exit 2 before any server is started. The servers
//! that run are fetched several at once (`--jobs`, `fetch::fetch_all`) and
//! reported in lock order. What a server sent is shown with the secrets
//! it was given masked ([`server_secrets`]).

use std::path::Path;

use contractpin::lock::{self, cmp_utf16, Lock, LockServer};
use contractpin::mcp::{ClientOptions, Secrets, ServerSpec};
use contractpin::verify::{add_changes_from_list, overall_exit_code, verify_server, ServerReport};
use contractpin::{Limits, ServerDigest};

use crate::args::{Format, TransportArg, VerifyArgs};
use crate::fail::{CliResult, Failure};
use crate::fetch::{self, FetchOptions};
use crate::input::{io_reason, read_file};
use crate::neutral_dir::NeutralDir;
use crate::output::{self, write_stdout};
use crate::source::{parse_header, with_headers};

/// What verify (or approve) does with one server.
pub(crate) enum Plan {
    /// Fetch from this source and compare.
    Run(ServerSpec),
    /// Do not run it; report it unreachable with this reason.
    Refuse(String),
}

/// A trusted lock (`--trusted-lock`, e.g. the base branch's) and the empty
/// directory in which a stdio server without a `cwd` of its own runs, rather
/// than in the (untrusted) checkout; the directory lives as long as this.
pub(crate) struct Trusted {
    lock: Lock,
    neutral: NeutralDir,
}

impl Trusted {
    /// Reads the trusted lock at `path` (none without one) and makes its
    /// empty directory; exit 2 when either fails.
    pub(crate) fn read(path: Option<&Path>) -> Result<Option<Trusted>, Failure> {
        let Some(path) = path else { return Ok(None) };
        let lock = read_lock(path)?.1;
        let neutral = NeutralDir::new().map_err(|e| {
            Failure::usage(format!(
                "cannot make an empty working directory: {}",
                io_reason(&e)
            ))
        })?;
        Ok(Some(Trusted { lock, neutral }))
    }
}

/// What a server's [`plan`] follows: the flags verify and approve share.
pub(crate) struct Rules<'a> {
    /// The lock being checked (`--lock`): relative paths resolve beside it.
    pub lock: &'a Path,
    /// `--allow-outside-paths`.
    pub allow_outside_paths: bool,
    /// `--transports`: only these are run (all without it).
    pub transports: Option<&'a [TransportArg]>,
    /// `--trusted-lock`: only sources equal to its own are run.
    pub trusted: Option<&'a Trusted>,
    /// `--header` values, over the server's own headers.
    pub cli_headers: &'a [(String, String)],
}

/// Runs `verify`.
pub fn run(args: &VerifyArgs) -> CliResult {
    let opts = FetchOptions::from_args(&args.limits)?;
    let lock_path = &args.lock;
    let (bytes, lock) = read_lock(lock_path)?;
    let trusted = Trusted::read(args.trusted_lock.as_deref())?;
    let names = selected(&lock, args)?;
    let cli_headers = cli_headers(&args.headers, &args.servers, &lock)?;
    let cli_caps = fetch::client_capabilities(args.client_capabilities.as_deref())?;
    let rules = Rules {
        lock: lock_path,
        allow_outside_paths: args.allow_outside_paths,
        transports: args.transports.as_deref(),
        trusted: trusted.as_ref(),
        cli_headers: &cli_headers,
    };

    // Every plan first, and every source checked, before anything is
    // fetched: a usage problem exits 2 without half a report.
    let mut targets = Vec::new();
    for name in names {
        let server = &lock.servers[name];
        let plan = plan(name, server, &rules)
            .map_err(|m| Failure::usage(format!("server {name:?}: {m}")))?;
        targets.push((name, server, plan));
    }

    // Every server that runs is fetched (several at once), then each is
    // reported in lock order.
    let mut jobs = Vec::new();
    for (name, server, plan) in &targets {
        if let Plan::Run(spec) = plan {
            let mut opts = opts.clone();
            opts.client_capabilities = declared_capabilities(name, server, cli_caps.as_deref());
            jobs.push((spec.clone(), opts));
        }
    }
    let mut fetched = fetch::fetch_all(jobs, opts.jobs).into_iter();
    let mut reports = Vec::new();
    let mut instructions = Vec::new();
    for (name, server, plan) in targets {
        let result = match plan {
            Plan::Run(_) => fetched.next(),
            _ => None,
        };
        let (report, text) = report_of(name, server, &plan, result, args, &opts)?;
        reports.push(report);
        instructions.push(text);
    }
    reports.extend(dropped_servers(
        &lock,
        trusted.as_ref().map(|t| &t.lock),
        args,
    ));
    print_reports(args, &reports, &instructions, &bytes)?;
    Ok(overall_exit_code(&reports) as u8)
}

/// One server's report and its live instructions text (both masked), from
/// its plan and, when it ran, its fetch result.
fn report_of(
    name: &str,
    server: &LockServer,
    plan: &Plan,
    result: Option<fetch::FetchResult>,
    args: &VerifyArgs,
    opts: &FetchOptions,
) -> Result<(ServerReport, Option<String>), Failure> {
    let unreachable = |message: String| {
        let mut r = ServerReport::unreachable(name, message);
        r.pinned_digest = Some(server.digest);
        r.allow_new = args.allow_new;
        r
    };
    let spec = match plan {
        Plan::Refuse(reason) => return Ok((unreachable(format!("not run: {reason}")), None)),
        Plan::Run(spec) => spec,
    };
    let Some(result) = result else {
        return Ok((unreachable("internal error: no fetch result".into()), None));
    };
    let limits = args.limits.limits();
    let (mut report, text) = match live_from(name, server, result, limits)? {
        Ok(live) => {
            let mut r = verify_server(name, server, &live.digests, args.allow_new);
            add_changes_from_list(&mut r, server, &live.document, &limits);
            r.check_facts(server, &live.facts, args.ignore_instructions);
            (r, live.facts.instructions)
        }
        Err(message) => (unreachable(message), None),
    };
    let secrets = server_secrets(name, spec, opts)?;
    secrets.mask_report(&mut report);
    Ok((report, text.map(|t| secrets.mask(&t))))
}

/// A server's live tools: the fetched document, its digests and the
/// handshake's facts.
pub(crate) struct Live {
    /// The tools/list document as fetched (all pages).
    pub document: Vec<u8>,
    /// Its server and tool digests, with field digests for the tools whose
    /// digest is not the pinned one ([`contractpin::verify::live_digest_against`]).
    pub digests: ServerDigest,
    /// serverInfo, protocol version and instructions from the handshake.
    pub facts: contractpin::lock::ServerFacts,
}

/// Fetches and digests one server (`spec` from [`source_spec`]), printing
/// the client's warnings. `Err` (exit 2) for a usage problem; `Ok(Err)` with
/// the reason when the server could not be reached or its list is invalid.
pub(crate) fn fetch_live(
    name: &str,
    server: &LockServer,
    spec: &ServerSpec,
    opts: &FetchOptions,
    cli_caps: Option<&[String]>,
    limits: Limits,
) -> Result<Result<Live, String>, Failure> {
    let mut opts = opts.clone();
    opts.client_capabilities = declared_capabilities(name, server, cli_caps);
    let mut results = fetch::fetch_all(vec![(spec.clone(), opts)], Some(1));
    let result = results
        .pop()
        .ok_or_else(|| Failure::usage("internal error: no fetch result"))?;
    live_from(name, server, result, limits)
}

/// One server's fetch result as its live tools, printing the client's
/// warnings: `Err` (exit 2) for a usage problem, `Ok(Err)` with the reason
/// when the server could not be reached or its list is invalid.
fn live_from(
    name: &str,
    server: &LockServer,
    result: fetch::FetchResult,
    limits: Limits,
) -> Result<Result<Live, String>, Failure> {
    let fetched = match result {
        Err(e) if e.usage => {
            return Err(Failure::usage(format!("server {name:?}: {}", e.message)));
        }
        Err(e) => return Ok(Err(format!("cannot fetch the tools list: {}", e.message))),
        Ok(fetched) => fetched,
    };
    for w in &fetched.warnings {
        output::warning_line(&format!("server {name:?}: {w}"));
    }
    Ok(
        // Field digests only for the tools that changed (the only ones a
        // report or an approval reads).
        match contractpin::verify::live_digest_against(&fetched.document, limits, server) {
            Ok(digests) => Ok(Live {
                document: fetched.document,
                digests,
                facts: fetched.facts,
            }),
            Err(e) => Err(format!("invalid tools list: {e}")),
        },
    )
}

/// The secrets `spec` gives its server (env values, header values, URL
/// credentials; with `--inherit-env`, our credential-named variables), to
/// mask wherever a report shows or a lock stores what the server sent
/// (digests stay over the real bytes). Exit 2 on an unset `${VAR}`.
pub(crate) fn server_secrets(
    name: &str,
    spec: &ServerSpec,
    opts: &FetchOptions,
) -> Result<Secrets, Failure> {
    let client = ClientOptions {
        inherit_env: opts.inherit_env,
        ..ClientOptions::default()
    };
    Secrets::of(spec, &client).map_err(|e| Failure::usage(format!("server {name:?}: {e}")))
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
    crate::output::warn_unknown_keys(&path.display().to_string(), &lock);
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
pub(crate) fn cli_headers(
    headers: &[String],
    servers: &[String],
    lock: &Lock,
) -> Result<Vec<(String, String)>, Failure> {
    if headers.is_empty() {
        return Ok(Vec::new());
    }
    let [server] = servers else {
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
    headers
        .iter()
        .map(|h| parse_header(h).map_err(Failure::usage))
        .collect()
}

/// Decides how (or whether) to run one server (verify and approve): not
/// at all when its transport is not in `--transports`, or, with a trusted
/// lock, when that lock lacks it or pins another source; else from its
/// source (the trusted lock's, equal to its own), a stdio server without a
/// `cwd` of its own in the trusted lock's empty directory. `Err`: a usage
/// problem ([`source_spec`]).
pub(crate) fn plan(name: &str, server: &LockServer, rules: &Rules) -> Result<Plan, String> {
    if let Some(allowed) = rules.transports {
        if !allowed.iter().any(|t| t.transport() == server.transport) {
            let list: Vec<&str> = allowed.iter().map(|t| t.transport().as_str()).collect();
            return Ok(Plan::Refuse(format!(
                "transport {} is not allowed (--transports {})",
                server.transport,
                list.join(",")
            )));
        }
    }
    let source_of = match rules.trusted {
        None => server,
        Some(t) => match trusted_source(name, server, &t.lock) {
            Ok(ts) => ts,
            Err(reason) => return Ok(Plan::Refuse(reason)),
        },
    };
    let mut spec = source_spec(
        source_of,
        rules.lock,
        rules.allow_outside_paths,
        rules.cli_headers,
    )?;
    if let (Some(t), ServerSpec::Stdio { cwd, .. }) = (rules.trusted, &mut spec) {
        // Not the (untrusted) checkout: there `npx` would take a package it
        // commits under `node_modules`, and `python -m` a module at its
        // root, even for a command the trusted lock pins.
        if !matches!(
            source_of.source(),
            Some(lock::Source::Stdio { cwd: Some(_), .. })
        ) {
            *cwd = Some(t.neutral.path().to_path_buf());
        }
    }
    Ok(Plan::Run(spec))
}

/// The trusted lock's entry for `name` when its source equals `server`'s;
/// otherwise why the server is not run.
fn trusted_source<'a>(
    name: &str,
    server: &LockServer,
    trusted: &'a Lock,
) -> Result<&'a LockServer, String> {
    let Some(ts) = trusted.servers.get(name) else {
        return Err("source differs from the trusted lock (it does not pin this server)".into());
    };
    let differs = source_differences(server, ts);
    if !differs.is_empty() {
        return Err(format!(
            "source differs from the trusted lock ({})",
            differs.join(", ")
        ));
    }
    Ok(ts)
}

/// The checked spec of a lock entry's own source, `--header` values over
/// its headers: every `${VAR}` set, paths inside the lock's directory (unless
/// `allow_outside`), no credentials over plain http. `Err`: a usage problem.
pub(crate) fn source_spec(
    server: &LockServer,
    lock: &Path,
    allow_outside: bool,
    cli_headers: &[(String, String)],
) -> Result<ServerSpec, String> {
    let source = with_headers(
        server.source().ok_or("the server has no source")?,
        cli_headers,
    );
    let spec = fetch::spec(&source, lock, allow_outside)?;
    fetch::check(&spec).map_err(|e| e.message)?;
    Ok(spec)
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
    check(
        a.client_capabilities == b.client_capabilities,
        "client_capabilities",
    );
    out
}

/// With a trusted lock, an unreachable report (exit 1) for each server it
/// pins that `lock` does not (of those `--server` selects): dropping a
/// server's pins turns its check off once merged.
fn dropped_servers(lock: &Lock, trusted: Option<&Lock>, args: &VerifyArgs) -> Vec<ServerReport> {
    let Some(trusted) = trusted else {
        return Vec::new();
    };
    let mut names: Vec<&String> = (trusted.servers.keys())
        .filter(|n| !lock.servers.contains_key(*n))
        .filter(|n| args.servers.is_empty() || args.servers.contains(n))
        .collect();
    names.sort_by(|a, b| cmp_utf16(a, b));
    let dropped = |name: &String| {
        let mut r = ServerReport::unreachable(
            name.clone(),
            "not run: the trusted lock pins this server and this lock does not \
             (dropping a server's pins turns its check off)",
        );
        r.pinned_digest = Some(trusted.servers[name].digest);
        r
    };
    names.into_iter().map(dropped).collect()
}

/// Prints the report in the chosen format (and annotations on GitHub); the
/// text report shows each server's live `instructions` (by report index)
/// when they were added or drifted, and under each drifted server the
/// `approve` command that pins what it shows (with `--lock` and
/// `--trusted-lock` as given).
fn print_reports(
    args: &VerifyArgs,
    reports: &[ServerReport],
    instructions: &[Option<String>],
    bytes: &[u8],
) -> Result<(), Failure> {
    let lock_text = String::from_utf8_lossy(bytes);
    let annotations = output::github_actions();
    match args.format {
        Format::Json => {
            write_stdout(&contractpin::verify::report_json(reports))?;
            if annotations {
                output::annotate(reports, &args.lock, &lock_text, true);
            }
        }
        Format::Sarif => {
            write_stdout(&crate::sarif::report(reports, &args.lock, &lock_text))?;
            if annotations {
                output::annotate(reports, &args.lock, &lock_text, true);
            }
        }
        Format::Text => {
            if annotations {
                output::annotate(reports, &args.lock, &lock_text, false);
            }
            let style = output::Style::detect();
            let paths = output::LockPaths {
                lock: &args.lock,
                trusted: args.trusted_lock.as_deref(),
                transports: args.transports.as_deref(),
                allow_outside_paths: args.allow_outside_paths,
                headers: !args.headers.is_empty(),
            };
            let text = output::text_report(reports, instructions, &paths, style);
            write_stdout(text.as_bytes())?;
        }
    }
    Ok(())
}
