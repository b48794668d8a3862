//! `contractpin approve`: re-pin chosen tools of one server after review.
//!
//! The server is fetched exactly as `verify` fetches it (its own lock
//! source, planned by [`verify::plan`] with the same `--trusted-lock` and
//! `--transports` rules; the same options, environment rules, credentials,
//! client capabilities and limits, through [`verify::fetch_live`]); there
//! is no way to name another source. With `--trusted-lock BASE`, a server
//! whose source BASE does not pin is refused (exit 1) before anything runs;
//! the pins are still read from and written to `--lock`. The
//! changes are shown ([`show_changes`], the one place that renders them),
//! then only the chosen tools are re-pinned ([`LockServer::approve`]): every
//! other tool keeps its old pin, drifted or not, and the entry's digest and
//! tool_count follow the resulting tools. A lock with snapshots gets the
//! approved tools' live contracts; a digest-only lock stays digest-only.
//! The secrets the server was given are masked in the changes shown and in
//! the `serverInfo` recorded; a snapshot holding one is refused (exit 2),
//! since a snapshot must be the exact bytes its digest pins.
//!
//! With `--expect` (and `--expect-instructions`), the live digests must be
//! the ones of the report the reviewer read ([`expect`]), checked before
//! anything is shown as approvable or written.
//!
//! Nothing is written unless the fetch succeeded and every named tool is
//! known; the write is [`lock::update`] (advisory lock, temporary file,
//! fsync, rename), and it aborts if the server's entry changed since it was
//! read. A lock that is a symbolic link, which the writer refuses, is
//! refused with its message before the server is run ([`lock::refuse_link`]).
//!
//! With `--all`, the entry's `server_info` and `protocol_version` are
//! refreshed from the same handshake. They are informational, outside every
//! digest (so outside `--expect`); a change is shown with the changes before
//! anything is written, and a line of the summary names each one recorded
//! ([`facts_summary`]).

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Read, Write};

use contractpin::lock::{self, Approval, Lock, LockServer, ServerInfo, UpdateError};
use contractpin::mcp::{Secrets, ServerSpec};
use contractpin::verify::{
    add_changes, verify_server, InstructionsStatus, ServerReport, ToolStatus, ToolVerdict,
};

mod expect;

use super::verify::{self, Live, Plan, Rules, Trusted};
use crate::args::ApproveArgs;
use crate::fail::{CliResult, Failure, EXIT_OK};
use crate::fetch::FetchOptions;
use crate::output::{self, printable, safe_lines, write_stdout};

/// Runs `approve`.
pub fn run(args: &ApproveArgs) -> CliResult {
    let limits = args.limits.limits();
    let opts = FetchOptions::from_args(&args.limits)?;
    if args.interactive && !std::io::stdin().is_terminal() {
        return Err(Failure::usage(
            "--interactive needs a terminal on standard input; \
             without one, name the tools with --tool NAME or use --all",
        ));
    }
    let expected = expect::Expected::from_args(args)?;
    let (_, lock) = verify::read_lock(&args.lock)?;
    // The writer refuses a symbolic link: refused now, before the server runs.
    lock::refuse_link(&args.lock).map_err(|e| cannot_write(&args.lock, e))?;
    let name = &args.server;
    let server = lock
        .servers
        .get(name)
        .ok_or_else(|| verify::not_pinned(name, &args.lock, &lock))?;
    let headers = verify::cli_headers(&args.headers, std::slice::from_ref(name), &lock)?;
    // Lives until the fetch is done: a stdio server may run in it.
    let trusted = Trusted::read(args.trusted_lock.as_deref())?;
    let spec = source(args, server, trusted.as_ref(), &headers)?;
    let secrets = verify::server_secrets(name, &spec, &opts)?;
    let mut live = verify::fetch_live(name, server, &spec, &opts, None, limits)?.map_err(|m| {
        Failure::server(format!(
            "server {name:?}: {m}; {} was not changed",
            args.lock.display()
        ))
    })?;
    // The serverInfo `--all` records is the masked one (informational).
    live.facts.server_info = live.facts.server_info.map(|i| secrets.mask_server_info(&i));
    let mut report = verify_server(name, server, &live.digests, false);
    // Parsed once: for the changes shown now and the snapshots written later.
    let contracts = contractpin::tool_contracts(&live.document, &limits);
    if let Ok(c) = &contracts {
        add_changes(&mut report, server, c, &limits);
    }
    report.check_facts(server, &live.facts, false);
    expected.check(args, &report, &live)?;
    let changed = (report.tools.iter()).filter(|t| !matches!(t.status, ToolStatus::Unchanged));
    if let Some(tool) = secret_name(changed.map(|t| t.name.as_str()), &secrets) {
        return Err(Failure::usage(format!(
            "server {name:?}: tool {tool}: {NAME_SECRET}; {} was not changed",
            args.lock.display()
        )));
    }
    secrets.mask_report(&mut report);
    let instructions = live.facts.instructions.as_deref().map(|t| secrets.mask(t));
    write_stdout(show_changes(&report, instructions.as_deref()).as_bytes())?;

    let mut chosen = choose(args, &report)?;
    if chosen.instructions && !instructions_changed(&report) {
        note("the instructions are unchanged; nothing to approve");
        chosen.instructions = false;
    }
    if chosen.tools.is_empty() && !chosen.instructions {
        write_stdout(
            format!(
                "nothing to approve; {} was not changed\n",
                args.lock.display()
            )
            .as_bytes(),
        )?;
        return Ok(EXIT_OK);
    }
    let contracts = if server.has_snapshots() {
        let contracts = snapshots(name, contracts)?;
        no_secret_in_snapshots(args, &chosen.tools, &contracts, &secrets)?;
        Some(contracts)
    } else {
        None
    };
    let (done, after) = save(args, server, &live, &chosen, contracts.as_ref())?;
    let unfit = |t: &&String| (contracts.as_ref()?.get(*t)).map(|c| !lock::snapshot_fits(c));
    for tool in chosen.tools.iter().filter(|t| unfit(t) == Some(true)) {
        output::warning_line(&no_snapshot(name, tool));
    }
    let mut text = instructions_summary(&report, chosen.instructions);
    text.push_str(&facts_summary(server, &after));
    text.push_str(&summary(&report, &done, server, &after, &args.lock));
    write_stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// The source to fetch the server from, by verify's rules ([`verify::plan`]:
/// `--transports`, and with `--trusted-lock` only a source equal to the
/// trusted lock's, a stdio server without a `cwd` in an empty directory).
/// A server they refuse is exit 1, before anything is run or written.
fn source(
    args: &ApproveArgs,
    server: &LockServer,
    trusted: Option<&Trusted>,
    cli_headers: &[(String, String)],
) -> Result<ServerSpec, Failure> {
    let name = &args.server;
    let rules = Rules {
        lock: &args.lock,
        allow_outside_paths: args.allow_outside_paths,
        transports: args.transports.as_deref(),
        trusted,
        cli_headers,
    };
    match verify::plan(name, server, &rules) {
        Ok(Plan::Run(spec)) => Ok(spec),
        Ok(Plan::Refuse(reason)) => Err(Failure::server(format!(
            "server {name:?}: {reason}; it was not run, and {} was not changed",
            args.lock.display()
        ))),
        Err(m) => Err(Failure::usage(format!("server {name:?}: {m}"))),
    }
}

/// The changes of the server against its pins, as shown before anything is
/// approved. The one place that renders them: the verify text report's
/// lines for this server (status, and each tool's JSON-pointer and word
/// changes), unabridged ([`output::approval_text`]: every change and every
/// word whole), with the live `instructions` text (masked) when they were
/// added or drifted, since `--instructions` and `--all` pin it.
fn show_changes(report: &ServerReport, instructions: Option<&str>) -> String {
    output::approval_text(report, instructions, output::Style::detect())
}

/// What to approve: tools (in the report's UTF-16 name order) and whether
/// the instructions too.
struct Chosen {
    tools: Vec<String>,
    instructions: bool,
}

/// Whether the report's instructions verdict is a change.
fn instructions_changed(report: &ServerReport) -> bool {
    report
        .instructions
        .is_some_and(|v| v.status != InstructionsStatus::Unchanged)
}

/// What to approve, from the flags or, with `--interactive`, the answers.
fn choose(args: &ApproveArgs, report: &ServerReport) -> Result<Chosen, Failure> {
    let changed = report
        .tools
        .iter()
        .filter(|t| !matches!(t.status, ToolStatus::Unchanged));
    if args.all {
        return Ok(Chosen {
            tools: changed.map(|t| t.name.clone()).collect(),
            instructions: true,
        });
    }
    if args.interactive {
        return ask_each(changed, report);
    }
    Ok(Chosen {
        tools: chosen_tools(args, report)?,
        instructions: args.instructions,
    })
}

/// The tools named with `--tool` that changed (exit 2 for a tool the
/// server neither pins nor lists; a note for an unchanged one).
fn chosen_tools(args: &ApproveArgs, report: &ServerReport) -> Result<Vec<String>, Failure> {
    let unknown: Vec<String> = args
        .tools
        .iter()
        .filter(|n| !report.tools.iter().any(|t| &t.name == *n))
        .map(|n| format!("{n:?}"))
        .collect();
    if !unknown.is_empty() {
        return Err(Failure::usage(format!(
            "server {:?} has no tool {} (neither pinned nor live); {} was not changed",
            report.name,
            unknown.join(", "),
            args.lock.display()
        )));
    }
    let mut chosen = Vec::new();
    for t in &report.tools {
        if !args.tools.contains(&t.name) {
            continue;
        }
        if t.status == ToolStatus::Unchanged {
            note(&format!(
                "tool {} is unchanged; nothing to approve",
                printable(&t.name)
            ));
        } else {
            chosen.push(t.name.clone());
        }
    }
    Ok(chosen)
}

/// One tool's change, for a question or a summary line: `drifted search
/// (changed: description)`.
fn change_label(t: &ToolVerdict) -> String {
    let mut label = format!("{} {}", t.status.name(), printable(&t.name));
    if let ToolStatus::Drifted { changed_fields } = &t.status {
        if !changed_fields.is_empty() {
            label.push_str(&format!(" (changed: {})", changed_fields.join(", ")));
        }
    }
    label
}

/// An answer to one question.
enum Answer {
    Yes,
    No,
    Quit,
}

/// Asks about each change on the terminal (questions on stderr, answers
/// from stdin): y approves, n keeps the old pin, q approves none of the
/// rest. The instructions come first when they changed. The end of input,
/// before every question is answered, aborts.
fn ask_each<'a>(
    changed: impl Iterator<Item = &'a ToolVerdict>,
    report: &ServerReport,
) -> Result<Chosen, Failure> {
    let mut chosen = Chosen {
        tools: Vec::new(),
        instructions: false,
    };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    if let Some(v) = report.instructions.filter(|_| instructions_changed(report)) {
        let question = format!("approve the {} instructions? [y/n/q] ", v.status.name());
        match ask(&mut input, &question)? {
            Answer::Yes => chosen.instructions = true,
            Answer::No => {}
            Answer::Quit => return Ok(chosen),
        }
    }
    for t in changed {
        let verb = if matches!(t.status, ToolStatus::Removed { .. }) {
            "drop"
        } else {
            "approve"
        };
        match ask(&mut input, &format!("{verb} {}? [y/n/q] ", change_label(t)))? {
            Answer::Yes => chosen.tools.push(t.name.clone()),
            Answer::No => {}
            Answer::Quit => break,
        }
    }
    Ok(chosen)
}

/// Longest answer line read (a terminal's line is shorter).
const MAX_ANSWER: u64 = 4096;

/// Asks one question until it gets y, n or q.
fn ask(input: &mut impl BufRead, question: &str) -> Result<Answer, Failure> {
    loop {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(safe_lines(question).as_bytes());
        let _ = err.flush();
        drop(err);
        let mut line = Vec::new();
        let n = input
            .by_ref()
            .take(MAX_ANSWER)
            .read_until(b'\n', &mut line)
            .map_err(|e| Failure::usage(format!("cannot read the answer: {e}")))?;
        if n == 0 {
            return Err(Failure::usage(
                "no answer (end of input); the lock was not changed",
            ));
        }
        match String::from_utf8_lossy(&line)
            .trim()
            .to_ascii_lowercase()
            .as_str()
        {
            "y" | "yes" => return Ok(Answer::Yes),
            "n" | "no" => return Ok(Answer::No),
            "q" | "quit" => return Ok(Answer::Quit),
            _ => note("answer y (approve), n (keep the old pin) or q (stop asking)"),
        }
    }
}

/// Prints `note: <message>` on stderr.
fn note(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "note: {}", safe_lines(message));
}

/// The live canonical contract of every tool, for a lock with snapshots.
fn snapshots(
    name: &str,
    contracts: Result<Vec<(String, Vec<u8>)>, contractpin::Error>,
) -> Result<BTreeMap<String, Vec<u8>>, Failure> {
    contracts
        .map(|v| v.into_iter().collect())
        .map_err(|e| Failure::server(format!("server {name:?}: invalid tools list: {e}")))
}

/// Exit 2 (nothing written) when the live contract of a tool to approve
/// holds a secret the server was given: a snapshot must hash to its pin, so
/// it cannot be stored masked, and it is never stored with the secret.
fn no_secret_in_snapshots(
    args: &ApproveArgs,
    chosen: &[String],
    contracts: &BTreeMap<String, Vec<u8>>,
    secrets: &Secrets,
) -> Result<(), Failure> {
    let leaks = |c: &Vec<u8>| secrets.found_in(&String::from_utf8_lossy(c));
    let Some(tool) = chosen.iter().find(|t| contracts.get(*t).is_some_and(leaks)) else {
        return Ok(());
    };
    Err(Failure::usage(format!(
        "server {:?}: tool {}: {SNAPSHOT_SECRET}; {} was not changed",
        args.server,
        printable(&secrets.mask(tool)),
        args.lock.display()
    )))
}

/// Why a contract is not snapshotted (approve and init).
pub(crate) const SNAPSHOT_SECRET: &str =
    "its contract holds a secret this server was given (an env value, a header value or URL \
     credentials); a lock snapshot must be the exact bytes its digest pins, so it cannot be \
     stored masked, and it is not stored: fix the server, or pin it by digest only \
     (init --force --no-snapshot)";

/// The first of `names` that holds a secret the server was given, masked
/// and printable (init and approve refuse to pin it: [`NAME_SECRET`]).
pub(crate) fn secret_name<'a>(
    names: impl IntoIterator<Item = &'a str>,
    secrets: &Secrets,
) -> Option<String> {
    let tool = names.into_iter().find(|n| secrets.found_in(n))?;
    Some(printable(&secrets.mask(tool)))
}

/// The warning for a tool pinned by digest only because its contract does
/// not fit a lock's snapshot ([`lock::snapshot_fits`]; init and approve).
pub(crate) fn no_snapshot(server: &str, tool: &str) -> String {
    format!(
        "server {server:?}: tool {}: no snapshot (nested deeper than {} levels, or larger than \
         the {} bytes a lock may have once indented); pinned by digest only",
        printable(tool),
        lock::MAX_SNAPSHOT_DEPTH,
        lock::MAX_LOCK_BYTES
    )
}

/// Why a tool whose name holds a secret is not pinned (approve and init).
pub(crate) const NAME_SECRET: &str =
    "its name holds a secret this server was given (an env value, a header value or URL \
     credentials); tool names are the lock's keys, so it can be pinned neither masked nor \
     as it is: fix the server";

/// Re-pins `chosen` in the lock under its advisory lock; aborts (nothing
/// written) if the server's entry is no longer the one that was compared.
/// Returns what was done and the entry as written.
fn save(
    args: &ApproveArgs,
    before: &LockServer,
    live: &Live,
    chosen: &Chosen,
    contracts: Option<&BTreeMap<String, Vec<u8>>>,
) -> Result<(Vec<Approval>, LockServer), Failure> {
    let name = &args.server;
    let generated_at = lock::timestamp_now().map_err(|e| Failure::usage(e.to_string()))?;
    let mut done = Vec::new();
    let result = lock::update(
        &args.lock,
        |current: Option<Lock>| -> Result<Lock, String> {
            let mut lock = current.ok_or("the lock file is gone")?;
            let entry = match lock.servers.get_mut(name) {
                Some(e) if e == before => e,
                Some(_) => return Err("its entry for this server changed while approving".into()),
                None => return Err("it no longer pins this server".into()),
            };
            done = entry
                .approve(&live.digests, &chosen.tools, contracts)
                .map_err(|e| e.to_string())?;
            if args.all {
                entry.set_facts(&live.facts, true);
            } else if chosen.instructions {
                entry.instructions_digest = live
                    .facts
                    .instructions
                    .as_deref()
                    .map(contractpin::instructions_digest);
            }
            lock.generated_at = generated_at;
            Ok(lock)
        },
    );
    let path = args.lock.display();
    match result {
        Ok(mut lock) => match lock.servers.remove(name) {
            Some(after) => Ok((done, after)),
            None => Err(Failure::usage(format!(
                "{path}: the server's entry is missing"
            ))),
        },
        Err(UpdateError::Aborted(why)) => Err(Failure::usage(format!(
            "{path}: {why}; nothing was written (run approve again)"
        ))),
        Err(UpdateError::Lock(e)) => Err(Failure::usage(format!("{path}: {e}"))),
        Err(UpdateError::Io(e)) => Err(cannot_write(&args.lock, e)),
    }
}

/// The lock at `path` cannot be written (exit 2).
fn cannot_write(path: &std::path::Path, e: std::io::Error) -> Failure {
    Failure::usage(format!("cannot write {}: {e}", path.display()))
}

/// The line for the instructions: approved (`re-pinned`, `pinned` or
/// `dropped`), or still different; empty when they did not change.
fn instructions_summary(report: &ServerReport, approved: bool) -> String {
    let Some(v) = report.instructions.filter(|_| instructions_changed(report)) else {
        return String::new();
    };
    let digest = |d: Option<contractpin::Digest>| d.map(|d| d.to_string()).unwrap_or_default();
    match (approved, v.status) {
        (false, status) => format!("not approved: {} instructions\n", status.name()),
        (true, InstructionsStatus::Removed) => "dropped the instructions digest\n".to_string(),
        (true, InstructionsStatus::Added) => {
            format!("pinned the instructions: {}\n", digest(v.live))
        }
        (true, _) => format!(
            "re-pinned the instructions: {} -> {}\n",
            digest(v.pinned),
            digest(v.live)
        ),
    }
}

/// A line for each handshake fact that `--all` recorded in place of
/// another (`server_info`, `protocol_version`; added or dropped too, which
/// the changes shown before cannot say): informational, outside every
/// digest and so outside `--expect`. Empty when none changed.
fn facts_summary(before: &LockServer, after: &LockServer) -> String {
    let info = |i: Option<&ServerInfo>| match i {
        None => "none".to_string(),
        Some(i) => {
            let title = i.title.as_deref().map(printable);
            let title = title.map_or_else(String::new, |t| format!(" (title {t})"));
            format!("{} {}{title}", printable(&i.name), printable(&i.version))
        }
    };
    let protocol = |v: Option<&String>| v.map_or_else(|| "none".to_string(), |v| printable(v));
    let mut out = String::new();
    let mut line = |key: &str, from: String, to: String| {
        out.push_str(&format!(
            "recorded {key}: {from} -> {to} (informational: no digest covers it)\n"
        ));
    };
    if before.server_info != after.server_info {
        let (from, to) = (before.server_info.as_ref(), after.server_info.as_ref());
        line("server_info", info(from), info(to));
    }
    if before.protocol_version != after.protocol_version {
        let (from, to) = (
            before.protocol_version.as_ref(),
            after.protocol_version.as_ref(),
        );
        line("protocol_version", protocol(from), protocol(to));
    }
    out
}

/// What was re-pinned, what still differs, and the server digest.
fn summary(
    report: &ServerReport,
    done: &[Approval],
    before: &LockServer,
    after: &LockServer,
    lock: &std::path::Path,
) -> String {
    let verdict = |n: &str| report.tools.iter().find(|t| t.name == n);
    let mut out = String::new();
    for d in done {
        let (Approval::Pinned(n) | Approval::Dropped(n)) = d;
        let Some(t) = verdict(n) else { continue };
        match d {
            Approval::Pinned(_) => {
                let to = t.live.map(|d| d.to_string()).unwrap_or_default();
                match t.pinned {
                    Some(from) => {
                        out.push_str(&format!("re-pinned {}: {from} -> {to}\n", change_label(t)))
                    }
                    None => out.push_str(&format!("pinned {}: {to}\n", change_label(t))),
                }
            }
            Approval::Dropped(_) => {
                out.push_str(&format!("dropped {}\n", change_label(t)));
            }
        }
    }
    let approved = |n: &str| {
        done.iter()
            .any(|d| matches!(d, Approval::Pinned(x) | Approval::Dropped(x) if x == n))
    };
    for t in &report.tools {
        if t.status != ToolStatus::Unchanged && !approved(&t.name) {
            out.push_str(&format!("not approved: {}\n", change_label(t)));
        }
    }
    let n = after.tool_count;
    out.push_str(&format!(
        "server {}: {} -> {}  ({n} tool{})\nwrote {}\n",
        printable(&report.name),
        before.digest,
        after.digest,
        if n == 1 { "" } else { "s" },
        lock.display()
    ));
    out
}
