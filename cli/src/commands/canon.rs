//! `contractpin canon [FILE|-]`: canonical bytes, no trailing newline.

use contractpin::Context;

use crate::args::CanonArgs;
use crate::fail::{CliResult, Failure, EXIT_OK};
use crate::input::read_document;
use crate::output::write_stdout;

/// Runs `canon`.
pub fn run(args: &CanonArgs) -> CliResult {
    let limits = args.limits.limits(None);
    let input = read_document(args.file.as_deref(), limits.max_input)?;
    let mut context = Context::with_limits(limits);
    let canonical = context
        .canonicalize(&input)
        .map_err(|e| Failure::usage(e.to_string()))?;
    write_stdout(canonical)?;
    Ok(EXIT_OK)
}
