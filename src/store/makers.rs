//! Who made a commit (`makers`): after a shell command moved a worktree's HEAD to a new commit
//! on no remote, one `<commit>\t<actor key>` line records the actor whose command it was, the
//! first one only. The guard reads it to tell a session's own commits from a live peer's
//! (`git reset HEAD~1` over one's own commit passes; over a peer's it is refused). Bounded:
//! the newest [`MAX_MAKERS`] lines are kept.

use super::actors::actor_key;
use super::{Actor, Session, Store, StoreError, fsio};

/// How many commits are remembered.
const MAX_MAKERS: usize = 1024;
/// The largest file read back (bytes).
const MAX_MAKERS_BYTES: u64 = 256 << 10;

impl Store {
    fn makers_text(&self) -> String {
        let path = self.dir.join("makers");
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() && m.len() <= MAX_MAKERS_BYTES => {
                fsio::read_text(&path).unwrap_or_default()
            }
            _ => String::new(),
        }
    }

    /// Remember that `actor` made `commit` (best effort; a commit already remembered keeps
    /// its first maker).
    pub(crate) fn remember_maker(&self, commit: &str, actor: Actor<'_>) {
        if commit.is_empty() || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
            return;
        }
        let old = self.makers_text();
        if old
            .lines()
            .any(|l| l.split_once('\t').is_some_and(|(c, _)| c == commit))
        {
            return;
        }
        let lines: Vec<&str> = old.lines().collect();
        let keep = lines.len().saturating_sub(MAX_MAKERS - 1);
        let mut text = String::new();
        for l in &lines[keep..] {
            text.push_str(l);
            text.push('\n');
        }
        text.push_str(&format!("{commit}\t{}\n", actor_key(actor)));
        let _ = fsio::write_atomic(&self.dir.join("makers"), text.as_bytes());
    }

    /// The records of this clone's sessions (main threads or sub-agents) that made any of
    /// `commits`, as remembered.
    pub(crate) fn sessions_that_made(&self, commits: &[&str]) -> Result<Vec<Session>, StoreError> {
        let text = self.makers_text();
        let keys: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .filter(|(c, _)| commits.contains(c))
            .map(|(_, k)| k)
            .collect();
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut out = self.sessions()?;
        out.retain(|s| keys.contains(&actor_key(s.actor()).as_str()));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Change;
    use super::super::tests::{apply_anon, key, store};
    use super::*;

    #[test]
    fn a_commit_keeps_its_first_maker_and_the_list_stays_bounded() {
        let (_dir, store) = store();
        for id in ["s1", "s2"] {
            apply_anon(&store, id, 100, &[Change::Touch(vec![key("a.rs")])]);
        }
        let c1 = "1".repeat(40);
        store.remember_maker(&c1, Actor::main("s1"));
        // A later HEAD move onto it (a checkout, a reset) does not make it s2's.
        store.remember_maker(&c1, Actor::main("s2"));
        store.remember_maker("not hex\tbroken", Actor::main("s2"));
        let made: Vec<String> = store
            .sessions_that_made(&[c1.as_str()])
            .unwrap()
            .into_iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(made, ["s1"]);
        assert!(store.sessions_that_made(&["abc"]).unwrap().is_empty());
        for n in 0..MAX_MAKERS + 10 {
            store.remember_maker(&format!("{n:040x}"), Actor::main("s2"));
        }
        assert!(store.sessions_that_made(&[c1.as_str()]).unwrap().is_empty());
        assert_eq!(store.makers_text().lines().count(), MAX_MAKERS);
    }
}
