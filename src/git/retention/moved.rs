//! Retention for the ref updates git's `reference-transaction` hook announces, so an actor no
//! agent hook sees (a person's terminal, a GUI) cannot lose commits by moving a ref: a local
//! branch moved other than forward (`reset --hard`, `branch -f`, a rebase) keeps its old tip
//! while that is on no remote; a remote-tracking ref moved other than forward or gone (a fetch
//! after someone's force push, a prune) keeps its old tip while no other remote-tracking ref
//! holds it, so a commit whose retention went once pushed gets it back; a stash commit written
//! or dropped gets `refs/dibs/stash/<short sha>`.

use std::path::Path;

use super::{RETENTION_PREFIX, Retained, create_retention};
use crate::git::lanes::{LaneError, LaneRepo};

/// One ref update of a transaction, as git announces it (`None` for an all-zero id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RefMove<'a> {
    /// The full ref name.
    pub(crate) name: &'a str,
    /// The value before.
    pub(crate) old: Option<&'a str>,
    /// The value after.
    pub(crate) new: Option<&'a str>,
}

impl RefMove<'_> {
    /// Whether this update may leave a commit held by no ref, told from the names and ids
    /// alone (nothing is read): a local branch moved, a remote-tracking ref moved or deleted,
    /// the stash written or dropped. A new or deleted branch, a forward move (found later),
    /// `HEAD` and git-dibs' own refs are let through.
    pub(crate) fn may_drop(&self) -> bool {
        let moved = self.old.is_some_and(is_id) && self.old != self.new;
        if self.name == "refs/stash" {
            return self.new.is_some_and(is_id) || moved;
        }
        // A branch's deletion is refused in `prepared` when it would lose commits.
        let branch = self.name.starts_with("refs/heads/") && self.new.is_some();
        moved && (branch || self.name.starts_with("refs/remotes/"))
    }
}

impl RefMove<'_> {
    /// Whether git announced no old value for a local branch or remote-tracking ref it set:
    /// an update that did not check it (`git branch -f`, `checkout -B`, `update-ref` without
    /// one), or a new ref. See [`old_from_reflog`].
    pub(crate) fn unchecked(&self) -> bool {
        self.old.is_none()
            && self.new.is_some_and(is_id)
            && (self.name.starts_with("refs/heads/") || self.name.starts_with("refs/remotes/"))
    }
}

/// The last entry of ref `name`'s reflog under `common_dir` (the files backend): old id, new
/// id and message. Reads the file's last 4 KiB; `None` without a reflog.
fn last_entry(common_dir: &Path, name: &str) -> Option<(String, String, String)> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(common_dir.join("logs").join(name)).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(4096))).ok()?;
    let mut tail = Vec::new();
    file.take(4096).read_to_end(&mut tail).ok()?;
    let text = String::from_utf8_lossy(&tail);
    let line = text.lines().last()?;
    let (ids, message) = line.split_once('\t').unwrap_or((line, ""));
    let mut fields = ids.split(' ');
    let (old, new) = (fields.next()?, fields.next()?);
    Some((old.to_owned(), new.to_owned(), message.to_owned()))
}

/// The value ref `name` had before the update that set it to `new`, from the last entry of its
/// reflog (`None` without one, for a new ref, or when the last entry is not that update).
pub(crate) fn old_from_reflog(common_dir: &Path, name: &str, new: &str) -> Option<String> {
    let (old, logged, _) = last_entry(common_dir, name)?;
    (logged == new && is_id(&old) && !old.bytes().all(|b| b == b'0')).then_some(old)
}

/// Whether the reflog says the update that set `name` to `new` moved it forward: git's own
/// message of a commit, a merge commit or a fast-forward (`commit: …`, `commit (merge): …`,
/// `fetch: fast-forward`, `merge x: Fast-forward`, `pull: Fast-forward`). Spares the everyday
/// commit opening the repository; anything else (an amend, a reset, a forced update, no
/// reflog) is checked by ancestry.
pub(crate) fn forward_by_reflog(common_dir: &Path, name: &str, new: &str) -> bool {
    last_entry(common_dir, name).is_some_and(|(_, logged, message)| {
        logged == new
            && (message.starts_with("commit: ")
                || message.starts_with("commit (merge): ")
                || message.ends_with(": fast-forward")
                || message.ends_with(": Fast-forward"))
    })
}

/// Whether `s` is an object id (SHA-1 or SHA-256, hex), not `ref:<target>` of a symref update.
fn is_id(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// How many updates of one transaction are looked at, at most (a `fetch --prune` of a big
/// remote, a `remote remove`).
const MAX_UPDATES: usize = 64;

/// After a transaction committed `moves` (those [`RefMove::may_drop`] let in) in the
/// repository at `dir`: keep what each may have left held by nothing (see the module's doc).
/// A forward move, a deletion whose ref still resolves (`pack-refs` moving it into
/// `packed-refs`), or a commit a retention ref holds already keeps nothing. Neither pushes nor
/// sweeps (a git hook must not wait on the network, nor walk every retention ref).
pub(crate) fn keep_moved(dir: &Path, moves: &[RefMove<'_>]) -> Result<Retained, LaneError> {
    let repo = LaneRepo::open(dir)?;
    let mut out = Retained::default();
    let mut held: Option<Vec<(String, String)>> = None;
    for m in moves.iter().filter(|m| m.may_drop()).take(MAX_UPDATES) {
        if m.name == "refs/stash" {
            for commit in [m.new, m.old].into_iter().flatten() {
                if let Some(name) = crate::git::stashes::keep_commit(dir, &repo, commit)? {
                    out.created.push(name);
                }
            }
            continue;
        }
        let Some(old) = m.old else { continue };
        let forward = match m.new {
            Some(new) => repo.is_ancestor(old, new),
            None => repo.ref_tip(m.name).is_some(),
        };
        if forward || repo.commit_of(old).is_none() {
            continue;
        }
        // Kept already (the agent's own retention ref, or one this transaction made).
        let held = held.get_or_insert_with(|| repo.refs_under(RETENTION_PREFIX));
        if held.iter().any(|(_, tip)| repo.is_ancestor(old, tip)) {
            continue;
        }
        let (label, except) = match m.name.strip_prefix("refs/remotes/") {
            Some(label) => (format!("remotes/{label}"), Some(m.name)),
            None => (m.name.trim_start_matches("refs/heads/").to_owned(), None),
        };
        let (name, unpushed) = create_retention(dir, &repo, &label, old, except, &mut out)?;
        if unpushed {
            held.push((name, old.to_owned()));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_moves_that_may_drop_a_commit_are_let_in() {
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        let m = |name, old, new| RefMove { name, old, new };
        assert!(m("refs/heads/feat", Some(&a), Some(&b)).may_drop());
        assert!(m("refs/remotes/origin/feat", Some(&a), None).may_drop());
        assert!(m("refs/stash", None, Some(&a)).may_drop());
        assert!(m("refs/stash", Some(&a), None).may_drop());
        assert!(
            !m("refs/heads/feat", None, Some(&b)).may_drop(),
            "a new branch"
        );
        assert!(
            !m("refs/heads/feat", Some(&a), None).may_drop(),
            "refused in prepared"
        );
        assert!(!m("refs/heads/feat", Some(&a), Some(&a)).may_drop());
        assert!(!m("HEAD", Some(&a), Some(&b)).may_drop());
        assert!(!m("refs/dibs/retention/x/aaaaaaa", Some(&a), None).may_drop());
        assert!(!m("refs/tags/v1", Some(&a), Some(&b)).may_drop());
        assert!(!m("refs/heads/x", Some("ref:refs/heads/y"), Some(&b)).may_drop());
        assert!(m("refs/heads/x", None, Some(&b)).unchecked());
        assert!(!m("refs/stash", None, Some(&b)).unchecked());
    }

    #[test]
    fn the_old_value_comes_from_the_reflogs_last_entry_for_that_update() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, z) = ("a".repeat(40), "b".repeat(40), "0".repeat(40));
        let logs = dir.path().join("logs/refs/heads");
        std::fs::create_dir_all(&logs).unwrap();
        let entry = |old: &str, new: &str| format!("{old} {new} T <t@t> 1 +0000\tbranch: x\n");
        std::fs::write(logs.join("x"), entry(&z, &a) + &entry(&a, &b)).unwrap();
        let old = old_from_reflog(dir.path(), "refs/heads/x", &b);
        assert_eq!(old.as_deref(), Some(a.as_str()));
        assert_eq!(
            old_from_reflog(dir.path(), "refs/heads/x", &a),
            None,
            "not the last"
        );
        std::fs::write(logs.join("y"), entry(&z, &a)).unwrap();
        assert_eq!(
            old_from_reflog(dir.path(), "refs/heads/y", &a),
            None,
            "a new branch"
        );
        assert_eq!(old_from_reflog(dir.path(), "refs/heads/none", &a), None);
        let logged =
            |old: &str, new: &str, msg: &str| format!("{old} {new} T <t@t> 1 +0000\t{msg}\n");
        for (msg, forward) in [
            ("commit: x", true),
            ("fetch: fast-forward", true),
            ("pull: Fast-forward", true),
            ("commit (amend): x", false),
            ("reset: moving to HEAD~1", false),
            ("fetch: forced-update", false),
        ] {
            std::fs::write(logs.join("z"), logged(&a, &b, msg)).unwrap();
            assert_eq!(
                forward_by_reflog(dir.path(), "refs/heads/z", &b),
                forward,
                "{msg}"
            );
            assert!(
                !forward_by_reflog(dir.path(), "refs/heads/z", &a),
                "another update"
            );
        }
    }
}
