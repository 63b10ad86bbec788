//! The local branch and remote-tracking tips of a clone as last looked at after a shell command
//! (`branch-tips`):
//! a fingerprint of where git stores its branches, then one `<commit>\t<ref>` line per branch.
//! With it, a command that made or moved a branch that no worktree has checked out (plumbing
//! such as `git commit-tree` plus `git update-ref`, `git branch -f`, a script) is noticed by
//! `stat` alone, and only the branches that moved are looked at. Beside it, the length of each
//! reflog file (`reflogs`), so what a command appended to them is read and nothing else; and
//! the sessions whose last scan for unseen changes stopped at its budget (`scan-pending`), and
//! where the scan of a clone with many worktrees goes on (`scan-turn`).

use std::collections::BTreeMap;

use super::{Store, fsio};

/// The most branches remembered; a clone with more has the rest looked at again next time.
pub(crate) const MAX_TIPS: usize = 4096;
/// The largest tips file read back (bytes).
const MAX_TIPS_BYTES: u64 = 1 << 20;

/// Branch tips as last looked at.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct BranchTips {
    /// The fingerprint of the branch storage when they were read.
    pub(crate) fingerprint: String,
    /// Full ref name (`refs/heads/...`, `refs/remotes/...`, and the refs that keep commits:
    /// `refs/dibs/retention/...`, `refs/dibs/stash/...`) to commit id.
    pub(crate) tips: BTreeMap<String, String>,
}

impl Store {
    /// The branch tips last remembered; empty when none were, or the file is unusable.
    pub(crate) fn branch_tips(&self) -> BranchTips {
        let path = self.dir.join("branch-tips");
        let bytes = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() && m.len() <= MAX_TIPS_BYTES => {
                fsio::read(&path).unwrap_or_default()
            }
            _ => return BranchTips::default(),
        };
        let text = String::from_utf8_lossy(&bytes);
        let mut lines = text.lines();
        let fingerprint = lines.next().unwrap_or_default().to_owned();
        let tips = lines
            .filter_map(|l| l.split_once('\t'))
            .filter(|(c, r)| {
                !c.is_empty()
                    && (r.starts_with("refs/heads/")
                        || r.starts_with("refs/remotes/")
                        || crate::git::retention::is_kept_ref(r))
            })
            .map(|(c, r)| (r.to_owned(), c.to_owned()))
            .collect();
        BranchTips { fingerprint, tips }
    }

    /// Remember `tips` (best effort: a failure means the branches are looked at again).
    pub(crate) fn remember_branch_tips(&self, tips: &BranchTips) {
        let fingerprint = tips.fingerprint.replace(['\n', '\r'], " ");
        let mut text = format!("{fingerprint}\n");
        for (name, commit) in tips
            .tips
            .iter()
            .filter(|(n, c)| !n.contains(['\n', '\t']) && !c.contains(['\n', '\t']))
            .take(MAX_TIPS)
        {
            text.push_str(&format!("{commit}\t{name}\n"));
        }
        let _ = fsio::write_atomic(&self.dir.join("branch-tips"), text.as_bytes());
    }
}

impl Store {
    /// The reflog lengths last remembered (file to bytes); empty when none were.
    pub(crate) fn reflog_lengths(&self) -> BTreeMap<std::path::PathBuf, u64> {
        let path = self.dir.join("reflogs");
        let bytes = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() && m.len() <= MAX_TIPS_BYTES => {
                fsio::read(&path).unwrap_or_default()
            }
            _ => return BTreeMap::new(),
        };
        String::from_utf8_lossy(&bytes)
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .filter_map(|(n, p)| Some((std::path::PathBuf::from(p), n.parse().ok()?)))
            .collect()
    }

    /// Remember the reflog lengths `lengths` (best effort).
    pub(crate) fn remember_reflog_lengths(&self, lengths: &BTreeMap<std::path::PathBuf, u64>) {
        let mut text = String::new();
        for (path, len) in lengths.iter().take(MAX_TIPS) {
            let p = path.to_string_lossy();
            if !p.contains(['\n', '\t']) {
                text.push_str(&format!("{len}\t{p}\n"));
            }
        }
        let _ = fsio::write_atomic(&self.dir.join("reflogs"), text.as_bytes());
    }
}

impl Store {
    /// Whether the last scan for unseen changes of `session` stopped at its budget, so the next
    /// call scans even after a line that only reads.
    pub(crate) fn scan_pending(&self, session: &str) -> bool {
        let path = self.dir.join("scan-pending");
        std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.len() <= MAX_TIPS_BYTES)
            && fsio::read_text(&path).is_ok_and(|t| t.lines().any(|l| l == session))
    }

    /// Where the post-shell scan of a clone with more worktrees than one call looks at goes on
    /// (an index into its list of other worktrees; 0 when none was remembered).
    pub(crate) fn scan_turn(&self) -> usize {
        let path = self.dir.join("scan-turn");
        std::fs::symlink_metadata(&path)
            .is_ok_and(|m| m.is_file() && m.len() <= 32)
            .then(|| fsio::read_text(&path).ok())
            .flatten()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0)
    }

    /// Remember where the next post-shell scan goes on (best effort).
    pub(crate) fn set_scan_turn(&self, turn: usize) {
        let _ = fsio::write_atomic(&self.dir.join("scan-turn"), format!("{turn}\n").as_bytes());
    }

    /// Remember whether `session`'s scan stopped at its budget (best effort).
    pub(crate) fn set_scan_pending(&self, session: &str, pending: bool) {
        if pending == self.scan_pending(session) || session.contains(['\n', '\r']) {
            return;
        }
        let path = self.dir.join("scan-pending");
        let old = fsio::read_text(&path).unwrap_or_default();
        let mut lines: Vec<&str> = old.lines().filter(|l| *l != session).take(256).collect();
        if pending {
            lines.push(session);
        }
        let mut text = lines.join("\n");
        text.push('\n');
        let _ = fsio::write_atomic(&path, text.as_bytes());
    }
}
