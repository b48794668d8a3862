//! `contractpin`: pin MCP tool contracts and verify live servers against the lock.
//!
//! This binary parses arguments and prints; the digest, canonicalization,
//! lock and verification work goes through the library's safe Rust API
//! (the same one any Rust caller uses). It does not call the C ABI: that
//! would add unsafe code to the binary for no gain, and the ABI has suites
//! of its own (C, Go, Python, Miri, the `ffi` fuzz target).

mod args;
mod commands;
mod config_import;
mod fail;
mod fetch;
mod input;
mod limits;
mod neutral_dir;
mod output;
mod sarif;
mod source;

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::error::ErrorKind as ClapKind;
use clap::Parser;

use fail::{EXIT_OK, EXIT_USAGE};

/// Cleared when the parsed command cannot start a server: nothing to reap.
static MAY_HAVE_CHILDREN: AtomicBool = AtomicBool::new(true);

fn main() -> ExitCode {
    // On Linux, descendants of stdio servers that escape their process group
    // (`setsid`) are re-parented to us instead of init when their parent
    // dies; best effort (a no-op elsewhere).
    contractpin::mcp::become_child_subreaper();
    let code = run();
    // None of them may outlive contractpin.
    if MAY_HAVE_CHILDREN.load(Ordering::Relaxed) {
        contractpin::mcp::reap_orphans();
    }
    code
}

fn run() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        // A panic is a bug; it must still end with a message and exit 2, not a trace.
        let _ = writeln!(
            std::io::stderr(),
            "error: internal error (please report this bug): {info}"
        );
    }));
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            if let Some(failure) = fail::Failure::from_clap(&err) {
                output::error_line(&failure.message);
                return ExitCode::from(failure.code);
            }
            let code = match err.kind() {
                ClapKind::DisplayHelp | ClapKind::DisplayVersion => EXIT_OK,
                ClapKind::DisplayHelpOnMissingArgumentOrSubcommand => EXIT_USAGE,
                _ => EXIT_USAGE,
            };
            // Help and version go to stdout, errors (with the usage hint) to stderr.
            let _ = err.print();
            return ExitCode::from(code);
        }
    };
    if !commands::may_start_servers(&cli) {
        MAY_HAVE_CHILDREN.store(false, Ordering::Relaxed);
    }
    match std::panic::catch_unwind(move || commands::run(cli)) {
        Ok(Ok(code)) => ExitCode::from(code),
        Ok(Err(failure)) => {
            output::error_line(&failure.message);
            ExitCode::from(failure.code)
        }
        Err(_) => ExitCode::from(EXIT_USAGE),
    }
}
