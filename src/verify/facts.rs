//! The server-level part of a verification: the instructions verdict (the
//! `instructions` text reaches the model like a description, so it is
//! pinned by its digest, spec section 13) and the informational handshake
//! facts (`serverInfo`, protocol version) that let a report say whether a
//! changed contract came with a new server version.

use super::ServerReport;
use crate::digest::Digest;
use crate::lock::pretty::Pretty;
use crate::lock::{LockServer, ServerFacts, ServerInfo};

/// How a server's instructions compare with their pin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstructionsStatus {
    /// Same instructions digest.
    Unchanged,
    /// A different instructions digest.
    Drifted,
    /// Live instructions, none pinned (fails unless `allow_new`, like an
    /// added tool).
    Added,
    /// Pinned instructions, none live.
    Removed,
}

impl InstructionsStatus {
    /// `"unchanged"`, `"drifted"`, `"added"` or `"removed"`.
    pub fn name(self) -> &'static str {
        match self {
            InstructionsStatus::Unchanged => "unchanged",
            InstructionsStatus::Drifted => "drifted",
            InstructionsStatus::Added => "added",
            InstructionsStatus::Removed => "removed",
        }
    }
}

/// The verdict on a server's instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstructionsVerdict {
    /// The classification.
    pub status: InstructionsStatus,
    /// The pinned instructions digest (`None` for added).
    pub pinned: Option<Digest>,
    /// The live instructions digest (`None` for removed).
    pub live: Option<Digest>,
}

impl InstructionsVerdict {
    /// Compares a pinned instructions digest with the live text; `None`
    /// when neither side has instructions.
    pub fn of(pinned: Option<Digest>, live: Option<&str>) -> Option<InstructionsVerdict> {
        let live = live.map(crate::instructions_digest);
        let status = match (pinned, live) {
            (None, None) => return None,
            (Some(p), Some(l)) if p == l => InstructionsStatus::Unchanged,
            (Some(_), Some(_)) => InstructionsStatus::Drifted,
            (None, Some(_)) => InstructionsStatus::Added,
            (Some(_), None) => InstructionsStatus::Removed,
        };
        Some(InstructionsVerdict {
            status,
            pinned,
            live,
        })
    }
}

impl ServerReport {
    /// Adds the server-level comparison to a report of
    /// [`verify_server`](super::verify_server): the instructions verdict
    /// (unless `ignore_instructions`) and the pinned and live `serverInfo`
    /// and protocol version (informational: they never fail a server).
    pub fn check_facts(
        &mut self,
        pinned: &LockServer,
        live: &ServerFacts,
        ignore_instructions: bool,
    ) {
        self.instructions = if ignore_instructions {
            None
        } else {
            InstructionsVerdict::of(pinned.instructions_digest, live.instructions.as_deref())
        };
        self.pinned_server_info = pinned.server_info.clone();
        self.live_server_info = live.server_info.clone();
        self.pinned_protocol_version = pinned.protocol_version.clone();
        self.live_protocol_version = live.protocol_version.clone();
    }

    /// Whether the instructions fail this server: drifted, removed, or added
    /// without `allow_new`.
    pub fn instructions_failed(&self) -> bool {
        match self.instructions.map(|v| v.status) {
            Some(InstructionsStatus::Drifted | InstructionsStatus::Removed) => true,
            Some(InstructionsStatus::Added) => !self.allow_new,
            _ => false,
        }
    }

    /// Whether `serverInfo.version` differs between the lock and the live
    /// server; `None` when either side has no `serverInfo`.
    pub fn version_changed(&self) -> Option<bool> {
        match (&self.pinned_server_info, &self.live_server_info) {
            (Some(p), Some(l)) => Some(p.version != l.version),
            _ => None,
        }
    }
}

/// The report's `instructions` key: `null`, or `{live, pinned, status}`.
pub(super) fn write_instructions(p: &mut Pretty, r: &ServerReport) {
    p.key("instructions");
    let Some(v) = r.instructions else {
        p.null();
        return;
    };
    p.begin_object();
    p.key("live");
    p.opt_digest(v.live.as_ref());
    p.key("pinned");
    p.opt_digest(v.pinned.as_ref());
    p.key("status");
    p.string(v.status.name());
    p.end_object();
}

/// The report's `protocol_version` and `server_info` keys.
pub(super) fn write_server_facts(p: &mut Pretty, r: &ServerReport) {
    p.key("protocol_version");
    p.begin_object();
    p.key("live");
    p.opt_string(r.live_protocol_version.as_deref());
    p.key("pinned");
    p.opt_string(r.pinned_protocol_version.as_deref());
    p.end_object();
    p.key("server_info");
    p.begin_object();
    p.key("live");
    opt_info(p, r.live_server_info.as_ref());
    p.key("pinned");
    opt_info(p, r.pinned_server_info.as_ref());
    p.key("version_changed");
    match r.version_changed() {
        Some(b) => p.bool(b),
        None => p.null(),
    }
    p.end_object();
}

/// `{"name", "title", "version"}` (`title` null when absent), or `null`.
fn opt_info(p: &mut Pretty, info: Option<&ServerInfo>) {
    let Some(info) = info else {
        p.null();
        return;
    };
    p.begin_object();
    p.key("name");
    p.string(&info.name);
    p.key("title");
    p.opt_string(info.title.as_deref());
    p.key("version");
    p.string(&info.version);
    p.end_object();
}
