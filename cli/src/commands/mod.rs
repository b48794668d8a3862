//! One module per subcommand.

mod approve;
mod canon;
mod digest;
mod init;
mod proxy;
mod verify;
mod wrap;

use crate::args::{Cli, Command};
use crate::fail::CliResult;

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
