//! Re-approving some tools of a pinned server (`contractpin approve`): the
//! named tools take their live pins, every other tool keeps its old pin
//! (drifted or not), and the entry's `digest` and `tool_count` are
//! recomputed from the resulting tool set with the one server-digest rule
//! ([`LockServer::computed_digest`]). The entry's source settings are
//! never touched. A snapshot is stored only if it is the contract the live
//! digest pins (the check [`LockServer::set_snapshots`] makes), so an
//! approved entry is always one the lock reader accepts.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::error::{LockError, LockErrorKind};
use super::model::{snapshot_matches, LockServer, LockTool};
use super::path::child;
use crate::owned::ServerDigest;

/// Why [`LockServer::approve`] refused (the entry is left unchanged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApproveError {
    /// This name is neither pinned nor live.
    UnknownTool(String),
    /// The snapshot given for a live tool is not the contract its live
    /// digest pins: a [`LockError`] of kind
    /// [`LockErrorKind::SnapshotMismatch`] (the reader's refusal of such a
    /// snapshot), at `tools.NAME.contract`.
    Snapshot(LockError),
}

impl fmt::Display for ApproveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApproveError::UnknownTool(name) => {
                write!(f, "tool {name:?} is neither pinned nor live")
            }
            ApproveError::Snapshot(e) => write!(f, "{}: {}", e.path(), e.detail()),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ApproveError {}

/// What approving one tool did to the entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Approval {
    /// The tool is live: its pin (digest, field digests and, in a lock
    /// with snapshots, the snapshot) is now the live one.
    Pinned(String),
    /// The tool is pinned but not live: its entry was removed.
    Dropped(String),
}

impl LockServer {
    /// Whether this entry records snapshots (`contract`) at all: true when
    /// any of its tools has one. An entry without any is digest-only, and
    /// approving keeps it so.
    pub fn has_snapshots(&self) -> bool {
        self.tools.values().any(|t| t.contract.is_some())
    }

    /// Approves the tools named in `names` against the `live` digests of
    /// this server: a live tool takes its live pin, with its snapshot from
    /// `contracts` (name to canonical contract) when given and it
    /// [fits](super::snapshot_fits) (else it is pinned by digest only, as
    /// `init` does); a pinned tool
    /// that is not live is dropped. Other tools keep their pins. Then
    /// `digest` and `tool_count` are recomputed from the tools.
    ///
    /// A name that is neither pinned nor live
    /// ([`ApproveError::UnknownTool`]), or a snapshot in `contracts` for a
    /// live tool to approve whose SHA-256 is not that tool's live digest
    /// ([`ApproveError::Snapshot`], the check of
    /// [`set_snapshots`](LockServer::set_snapshots)), is an error and
    /// leaves the entry unchanged.
    pub fn approve(
        &mut self,
        live: &ServerDigest,
        names: &[String],
        contracts: Option<&BTreeMap<String, Vec<u8>>>,
    ) -> Result<Vec<Approval>, ApproveError> {
        if let Some(unknown) = names
            .iter()
            .find(|n| !self.tools.contains_key(*n) && !live.tools.iter().any(|t| &t.name == *n))
        {
            return Err(ApproveError::UnknownTool(unknown.clone()));
        }
        for name in names.iter().filter(|_| contracts.is_some()) {
            let snapshot = contracts.and_then(|c| c.get(name));
            let tool = live.tools.iter().find(|t| &t.name == name);
            let (Some(snapshot), Some(t)) = (snapshot, tool) else {
                continue;
            };
            if !snapshot_matches(snapshot, &t.digest) {
                return Err(ApproveError::Snapshot(LockError::new(
                    LockErrorKind::SnapshotMismatch,
                    child(&child("tools", &t.name), "contract"),
                    format!(
                        "the snapshot is not the contract the live digest {} pins; \
                         nothing was approved",
                        t.digest
                    ),
                )));
            }
        }
        let mut done = Vec::with_capacity(names.len());
        for name in names {
            match live.tools.iter().find(|t| &t.name == name) {
                Some(t) => {
                    let mut tool = LockTool::from_fields(t.digest, &t.fields);
                    let snapshot = contracts.and_then(|c| c.get(name));
                    tool.contract = snapshot.filter(|c| super::snapshot_fits(c)).cloned();
                    if let Some(old) = self.tools.get(name) {
                        // What a newer contractpin wrote stays (see `unknown`).
                        tool.keep_unknown_from(old);
                    }
                    self.tools.insert(name.clone(), tool);
                    done.push(Approval::Pinned(name.clone()));
                }
                None => {
                    self.tools.remove(name);
                    done.push(Approval::Dropped(name.clone()));
                }
            }
        }
        self.tool_count = self.tools.len();
        self.digest = self.computed_digest();
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::Source;
    use alloc::format;
    use alloc::string::ToString;

    fn list(json: &str) -> ServerDigest {
        crate::digest_tools_list(json.as_bytes()).unwrap()
    }

    /// The canonical contract of every tool of `json`, as approve gets them.
    fn contracts(json: &str) -> BTreeMap<String, Vec<u8>> {
        crate::tool_contracts(json.as_bytes(), &crate::Limits::DEFAULT)
            .unwrap()
            .into_iter()
            .collect()
    }

    fn entry(json: &str) -> LockServer {
        LockServer::from_server_digest(
            Source::File {
                path: "t.json".to_string(),
            },
            &list(json),
        )
    }

    const OLD: &str = r#"[{"name":"a","description":"1"},{"name":"b"},{"name":"gone"}]"#;
    const NEW: &str =
        r#"[{"name":"a","description":"2"},{"name":"b","description":"x"},{"name":"new"}]"#;

    #[test]
    fn approving_everything_equals_pinning_the_live_list() {
        let mut e = entry(OLD);
        let names: Vec<String> = ["a", "b", "gone", "new"].map(String::from).to_vec();
        let done = e.approve(&list(NEW), &names, None).unwrap();
        assert_eq!(done[2], Approval::Dropped("gone".to_string()));
        assert_eq!(e, entry(NEW));
    }

    #[test]
    fn other_tools_keep_their_pins_and_the_digest_follows_the_tools() {
        let old = entry(OLD);
        let mut e = old.clone();
        e.approve(&list(NEW), &["a".to_string()], None).unwrap();
        assert_eq!(e.tools["b"], old.tools["b"]);
        assert_eq!(e.tools["gone"], old.tools["gone"]);
        assert_eq!(e.tools["a"], entry(NEW).tools["a"]);
        assert_eq!(e.tool_count, 3);
        // The same tool set pinned from a list holding exactly those tools.
        let mixed = entry(r#"[{"name":"a","description":"2"},{"name":"b"},{"name":"gone"}]"#);
        assert_eq!(e.digest, mixed.digest);
    }

    /// A contract nested deeper than a lock's snapshot may be is pinned by
    /// digest only: a lock holding it could not be read back.
    #[test]
    fn a_snapshot_that_does_not_fit_is_left_out() {
        let mut e = entry(OLD);
        let depth = crate::lock::MAX_SNAPSHOT_DEPTH;
        let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let json = format!(r#"[{{"name":"a","inputSchema":{deep}}}]"#);
        let limits = crate::Limits {
            max_depth: depth as u32 + 8,
            ..crate::Limits::DEFAULT
        };
        let (live, contracts) =
            crate::digest_with_contracts(json.as_bytes(), &limits, Default::default()).unwrap();
        assert!(!crate::lock::snapshot_fits(&contracts[0].1));
        let contracts = contracts.into_iter().collect();
        e.approve(&live, &["a".to_string()], Some(&contracts))
            .unwrap();
        assert_eq!(e.tools["a"].contract, None);
        assert_eq!(e.tools["a"].digest, live.tools[0].digest);
    }

    #[test]
    fn an_unknown_name_changes_nothing_and_snapshots_are_set() {
        let old = entry(OLD);
        let mut e = old.clone();
        let err = e.approve(&list(NEW), &["a".to_string(), "zz".to_string()], None);
        assert_eq!(err, Err(ApproveError::UnknownTool("zz".to_string())));
        assert_eq!(e, old);
        assert!(!e.has_snapshots());
        e.approve(&list(NEW), &["new".to_string()], Some(&contracts(NEW)))
            .unwrap();
        assert_eq!(e.tools["new"].contract, Some(contracts(NEW)["new"].clone()));
        assert!(e.has_snapshots());
    }

    /// A snapshot that is not the contract the live digest pins is refused
    /// (the reader would refuse the lock), as `set_snapshots` leaves it out:
    /// nothing is approved, not even the tools named before it.
    #[test]
    fn a_snapshot_that_is_not_the_pinned_contract_is_refused() {
        let old = entry(OLD);
        let mut e = old.clone();
        let mut given = contracts(NEW);
        // b's snapshot: a's contract, which hashes to a's digest, not b's.
        let a = given["a"].clone();
        given.insert("b".to_string(), a);
        let names = ["a", "b"].map(String::from).to_vec();
        let err = e.approve(&list(NEW), &names, Some(&given)).unwrap_err();
        let ApproveError::Snapshot(lock_error) = &err else {
            panic!("{err:?}");
        };
        assert_eq!(
            lock_error.kind(),
            crate::lock::LockErrorKind::SnapshotMismatch
        );
        assert_eq!(lock_error.path(), "tools.b.contract");
        assert!(err
            .to_string()
            .contains("tools.b.contract: the snapshot is not"));
        assert_eq!(e, old);
        // The same check as set_snapshots, which leaves b digest-only.
        let mut pinned = entry(NEW);
        let skipped = pinned.set_snapshots(given.into_iter().collect());
        assert_eq!(skipped, ["b".to_string()]);
    }
}
