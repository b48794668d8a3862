//! The CLI's error value: a message and the exit code it maps to.

use std::fmt;

/// Exit code: everything matches.
pub const EXIT_OK: u8 = 0;
/// Exit code: drift, or a server that could not be reached / returned an invalid list.
pub const EXIT_DRIFT: u8 = 1;
/// Exit code: the tool could not run (bad arguments, missing/corrupt lock, rejected input).
pub const EXIT_USAGE: u8 = 2;

/// A failure that ends the command: printed as `error: <message>` on stderr.
#[derive(Debug)]
pub struct Failure {
    /// The exit code.
    pub code: u8,
    /// The message (never contains a secret).
    pub message: String,
}

impl Failure {
    /// Exit 2: the tool could not run.
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            code: EXIT_USAGE,
            message: message.into(),
        }
    }

    /// Exit 1: a server could not be checked.
    pub fn server(message: impl Into<String>) -> Failure {
        Failure {
            code: EXIT_DRIFT,
            message: message.into(),
        }
    }
}

impl Failure {
    /// The failure to print instead of clap's own message when that message
    /// would echo an argument that may be a secret: a stray value (not
    /// starting with `-`), as `--header Authorization: $TOKEN` without
    /// quotes leaves the token. `None` when clap's message is safe (it names
    /// an unknown flag only by the part before any `=`).
    pub fn from_clap(err: &clap::Error) -> Option<Failure> {
        use clap::error::{ContextKind, ContextValue, ErrorKind};
        if err.kind() != ErrorKind::UnknownArgument {
            return None;
        }
        let flag_like = matches!(
            err.get(ContextKind::InvalidArg),
            Some(ContextValue::String(arg)) if arg.starts_with('-')
        );
        if flag_like {
            return None;
        }
        Some(Failure::usage(
            "unexpected argument (not shown: it may be a secret left outside its quotes); \
             quote each --header 'Name: value' and --env 'K=V', and put a stdio server's \
             command after `--`. For more information, try '--help'.",
        ))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Result of a command: the exit code on success.
pub type CliResult = Result<u8, Failure>;
