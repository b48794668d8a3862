//! One module per subcommand.

mod approve;
mod canon;
mod digest;
mod init;
mod proxy;
mod verify;
pub(crate) mod wrap;

use crate::args::{Cli, Command};
use crate::fail::CliResult;

/// Whether the command may start a server (a child process): `digest` and
/// `canon` only read a file or standard input, so they leave no orphans to
/// reap at exit (the reaper's scan of `/proc` costs about a millisecond).
pub fn may_start_servers(cli: &Cli) -> bool {
    !matches!(cli.command, Command::Canon(_) | Command::Digest(_))
}

/// Runs the parsed command line; returns the exit code.
pub fn run(cli: Cli) -> CliResult {
    match cli.command {
        Command::Canon(args) => canon::run(&args),
        Command::Digest(args) => digest::run(&args),
        Command::Init(args) => init::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Approve(args) => approve::run(&args),
        Command::Wrap(args) => wrap::run_wrap(&args),
        Command::Unwrap(args) => wrap::run_unwrap(&args),
        Command::Proxy(args) => proxy::run(&args),
    }
}
