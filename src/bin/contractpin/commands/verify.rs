//! `contractpin verify`: re-fetch pinned servers and compare (spec section 6).

use contractpin::lock::{cmp_utf16, Lock, Source};
use contractpin::verify::{overall_exit_code, ServerReport};

use crate::abi::{self, VerifyError};
use crate::args::{Format, VerifyArgs};
use crate::fail::{CliResult, Failure};
use crate::fetch::{self, FetchOptions};
use crate::input::io_reason;
use crate::output::{self, write_stdout};
use crate::source::{parse_header, resolve_from_lock, CliSource};

/// Runs `verify`.
pub fn run(args: &VerifyArgs) -> CliResult {
    let mut headers = Vec::new();
    for h in &args.headers {
        headers.push(parse_header(h).map_err(Failure::usage)?);
    }
    let limits = super::init::doc_limits(&args.limits);
    let opts = FetchOptions::from_args(&args.limits)?;
    let lock_path = &args.lock;
    let bytes = std::fs::read(lock_path).map_err(|e| {
        Failure::usage(format!(
            "cannot read lock file {}: {}",
            lock_path.display(),
            io_reason(&e)
        ))
    })?;
    let lock =
        Lock::parse(&bytes).map_err(|e| Failure::usage(format!("{}: {e}", lock_path.display())))?;

    // Lock order (the file's UTF-16 key order), or only the selected servers.
    let mut names: Vec<&String> = lock.servers.keys().collect();
    names.sort_by(|a, b| cmp_utf16(a, b));
    if !args.servers.is_empty() {
        for s in &args.servers {
            if !lock.servers.contains_key(s) {
                let known: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
                return Err(Failure::usage(format!(
                    "server {s:?} is not pinned in {} (pinned: {})",
                    lock_path.display(),
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                )));
            }
        }
        names.retain(|n| args.servers.iter().any(|s| s == *n));
    }
    if names.is_empty() {
        output::warning_line(&format!("{} pins no servers", lock_path.display()));
    }

    // Every source first, and every `${VAR}` checked, before anything is
    // fetched: a usage problem exits 2 without half a report.
    let mut targets = Vec::new();
    for name in names {
        let server = &lock.servers[name];
        let Some(source) = server.source() else {
            return Err(Failure::usage(format!(
                "{}: server {name:?} has no source",
                lock_path.display()
            )));
        };
        let source = match source {
            Source::Stdio { command, env, cwd } => CliSource::Stdio {
                command,
                env,
                cwd: cwd.map(|c| {
                    resolve_from_lock(&c, lock_path)
                        .to_string_lossy()
                        .into_owned()
                }),
            },
            Source::Http { url } => CliSource::Http {
                url,
                headers: headers.clone(),
            },
            Source::File { path } => CliSource::File {
                path: resolve_from_lock(&path, lock_path)
                    .to_string_lossy()
                    .into_owned(),
            },
        };
        fetch::check_references(&source)
            .map_err(|e| Failure::usage(format!("server {name:?}: {}", e.message)))?;
        targets.push((name, server, source));
    }

    let mut reports = Vec::new();
    for (name, server, source) in targets {
        let unreachable = |message: String| {
            let mut r = ServerReport::unreachable(name.clone(), message);
            r.pinned_digest = Some(server.digest);
            r.allow_new = args.allow_new;
            r
        };
        let report = match fetch::fetch(&source, &opts) {
            Err(e) if e.usage => {
                return Err(Failure::usage(format!("server {name:?}: {}", e.message)));
            }
            Err(e) => unreachable(format!("cannot fetch the tools list: {}", e.message)),
            Ok(fetched) => {
                for w in &fetched.warnings {
                    output::warning_line(&format!("server {name:?}: {w}"));
                }
                match abi::verify(&bytes, name, &fetched.document, args.allow_new, &limits) {
                    Ok(r) => r,
                    Err(VerifyError::Input(e)) => unreachable(format!("invalid tools list: {e}")),
                    Err(VerifyError::Lock(e)) => {
                        return Err(Failure::usage(format!("{}: {e}", lock_path.display())))
                    }
                    Err(VerifyError::UnknownServer) => {
                        return Err(Failure::usage(format!(
                            "server {name:?} is not pinned in {}",
                            lock_path.display()
                        )))
                    }
                }
            }
        };
        reports.push(report);
    }

    let code = overall_exit_code(&reports) as u8;
    let lock_text = String::from_utf8_lossy(&bytes);
    let annotations = output::github_actions();
    match args.format {
        Format::Json => {
            write_stdout(&contractpin::verify::report_json(&reports))?;
            if annotations {
                output::annotate(&reports, lock_path, &lock_text, true);
            }
        }
        Format::Text => {
            if annotations {
                output::annotate(&reports, lock_path, &lock_text, false);
            }
            let style = output::Style::detect();
            write_stdout(output::text_report(&reports, lock_path, style).as_bytes())?;
        }
    }
    Ok(code)
}
