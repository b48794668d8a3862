//! `approve --expect` and `--expect-instructions`: bind an approval to the
//! report the reviewer read.
//!
//! A server can show `verify` (in CI) one contract and `approve`'s later
//! fetch another. The reviewer passes the `live` server digest of the report
//! they read (`--expect`) and, when instructions are approved, the live
//! instructions digest (`--expect-instructions`, from `verify --format
//! json`); the fetch approve makes must give the same digests, checked
//! before anything is shown as approvable or written. A mismatch is exit 1
//! (the server drifted from the reviewed report: `Failure::server`).

use contractpin::verify::ServerReport;
use contractpin::Digest;

use super::instructions_changed;
use crate::args::ApproveArgs;
use crate::commands::verify::Live;
use crate::fail::Failure;

/// The value of `--expect-instructions` that stands for no instructions
/// (verify's JSON report: `"live": null`).
const NO_INSTRUCTIONS: &str = "none";

/// The digests the reviewer read, from `--expect` and `--expect-instructions`.
pub(super) struct Expected {
    /// The live server digest of the reviewed report.
    server: Option<Digest>,
    /// The live instructions digest of the reviewed report; `Some(None)`
    /// when it had no instructions.
    instructions: Option<Option<Digest>>,
}

impl Expected {
    /// Parses the flags; a malformed value is exit 2 (the value is not
    /// echoed: a misplaced argument may be a secret).
    pub(super) fn from_args(args: &ApproveArgs) -> Result<Expected, Failure> {
        let server = args
            .expect
            .as_deref()
            .map(|v| parse(v, "--expect", "the `live` line of `contractpin verify`"))
            .transpose()?;
        let instructions = match args.expect_instructions.as_deref() {
            None => None,
            Some(NO_INSTRUCTIONS) => Some(None),
            Some(v) => Some(Some(parse(
                v,
                "--expect-instructions",
                "`instructions.live` in `contractpin verify --format json`, or `none`",
            )?)),
        };
        Ok(Expected {
            server,
            instructions,
        })
    }

    /// Checks the live digests (the server digest, and the instructions
    /// digest approve would pin) against the expected ones, then that
    /// `--expect` is not given for an approval of instructions it does not
    /// cover.
    pub(super) fn check(
        &self,
        args: &ApproveArgs,
        report: &ServerReport,
        live: &Live,
    ) -> Result<(), Failure> {
        let live_server = live.digests.digest;
        let live_instructions = live.facts.instructions.as_deref();
        let live_instructions = live_instructions.map(contractpin::instructions_digest);
        if let Some(want) = self.server.filter(|want| *want != live_server) {
            return Err(mismatch(
                args,
                "",
                &want.to_string(),
                live_server,
                "contracts",
            ));
        }
        if let Some(want) = self.instructions.filter(|w| *w != live_instructions) {
            let live = live_instructions.map_or_else(|| NO_INSTRUCTIONS.into(), |d| d.to_string());
            let want = want.map_or_else(|| NO_INSTRUCTIONS.into(), |d| d.to_string());
            return Err(mismatch(
                args,
                "instructions: ",
                &want,
                live,
                "instructions",
            ));
        }
        self.covers_instructions(args, report)
    }

    /// Exit 2 when `--expect` is given without `--expect-instructions` and
    /// changed instructions may be approved (`--instructions`, `--all`, or
    /// a question of `--interactive`): the server digest does not cover
    /// them.
    fn covers_instructions(
        &self,
        args: &ApproveArgs,
        report: &ServerReport,
    ) -> Result<(), Failure> {
        let may_approve = args.instructions || args.all || args.interactive;
        if self.server.is_none()
            || self.instructions.is_some()
            || !may_approve
            || !instructions_changed(report)
        {
            return Ok(());
        }
        Err(Failure::usage(format!(
            "server {:?}: the instructions changed and would be approved, but --expect covers \
             only the tools (the server digest); pass --expect-instructions with \
             `instructions.live` from `contractpin verify --format json` (`none` for no \
             instructions); {} was not changed",
            args.server,
            args.lock.display()
        )))
    }
}

/// `sha256:` + 64 lowercase hex digits, or exit 2 naming that form.
fn parse(value: &str, flag: &str, source: &str) -> Result<Digest, Failure> {
    Digest::parse(value.as_bytes()).ok_or_else(|| {
        Failure::usage(format!(
            "{flag} takes a digest: `sha256:` followed by 64 lowercase hex digits ({source}); \
             the value given is not one"
        ))
    })
}

/// The refusal when the live digest is not the reviewed one (exit 1).
fn mismatch(
    args: &ApproveArgs,
    what: &str,
    want: &str,
    live: impl std::fmt::Display,
    served: &str,
) -> Failure {
    Failure::server(format!(
        "server {:?}: {what}expected {want} (from the report you reviewed), live {live}: the \
         server now serves {served} other than the reviewed ones; {} was not changed",
        args.server,
        args.lock.display()
    ))
}
