//! Re-approving some tools of a pinned server (`contractpin approve`): the
//! named tools take their live pins, every other tool keeps its old pin
//! (drifted or not), and the entry's `digest` and `tool_count` are
//! recomputed from the resulting tool set with the one server-digest rule
//! ([`LockServer::computed_digest`]). The entry's source settings are
//! never touched.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::model::{LockServer, LockTool};
use crate::owned::ServerDigest;

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
    /// A name that is neither pinned nor live is an error (`Err(name)`)
    /// and leaves the entry unchanged.
    pub fn approve(
        &mut self,
        live: &ServerDigest,
        names: &[String],
        contracts: Option<&BTreeMap<String, Vec<u8>>>,
    ) -> Result<Vec<Approval>, String> {
        if let Some(unknown) = names
            .iter()
            .find(|n| !self.tools.contains_key(*n) && !live.tools.iter().any(|t| &t.name == *n))
        {
            return Err(unknown.clone());
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
        let deep = format!("{}{}", "[".repeat(depth + 1), "]".repeat(depth + 1));
        let contracts = BTreeMap::from([("a".to_string(), deep.into_bytes())]);
        e.approve(&list(NEW), &["a".to_string()], Some(&contracts))
            .unwrap();
        assert_eq!(e.tools["a"].contract, None);
        assert_eq!(e.tools["a"].digest, entry(NEW).tools["a"].digest);
    }

    #[test]
    fn an_unknown_name_changes_nothing_and_snapshots_are_set() {
        let old = entry(OLD);
        let mut e = old.clone();
        let err = e.approve(&list(NEW), &["a".to_string(), "zz".to_string()], None);
        assert_eq!(err, Err("zz".to_string()));
        assert_eq!(e, old);
        assert!(!e.has_snapshots());
        let contracts: BTreeMap<String, Vec<u8>> =
            [("new".to_string(), b"{}".to_vec())].into_iter().collect();
        e.approve(&list(NEW), &["new".to_string()], Some(&contracts))
            .unwrap();
        assert_eq!(e.tools["new"].contract.as_deref(), Some(&b"{}"[..]));
        assert!(e.has_snapshots());
    }
}
