//! Rule: the host's own worktree tool removing the worktree the session is in (Claude Code's
//! `ExitWorktree` with `action: "remove"`, which deletes the worktree and its branch). It is put
//! to the person when that worktree holds uncommitted files, commits that exist on no remote, or
//! another live session or sub-agent works there; a clean worktree whose commits are all on a
//! remote passes silently. What "at risk" means is [`WorktreeState::at_risk_with_branch`]: as for
//! `git worktree remove`, and the branch's unpushed commits too, since the branch goes.

use super::worktree::WorktreeState;
use super::{Finding, Verdict, list};

/// What the guard knows when the host is about to remove the session's worktree.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ExitFacts {
    /// The worktree the session is in, with its status and unpushed commits.
    pub(crate) worktree: WorktreeState,
    /// Other live actors (sessions, sub-agents) working there, as messages name them.
    pub(crate) others: Vec<String>,
    /// Whether the tool was told to discard uncommitted changes.
    pub(crate) discard_changes: bool,
}

/// The rule id, shown as `[guard:exit-worktree]`.
pub(crate) const RULE: &str = "exit-worktree";

/// Ask the person before the host removes a worktree holding work or used by another live
/// actor; allow a clean, pushed worktree nobody else works in. The main worktree is never
/// removed by the tool, so it passes.
pub(crate) fn check_exit(facts: &ExitFacts) -> Verdict {
    let w = &facts.worktree;
    if w.main || (!w.at_risk_with_branch() && facts.others.is_empty()) {
        return Verdict::Allow;
    }
    let mut parts = Vec::new();
    if w.at_risk_with_branch() {
        parts.push(w.describe());
    }
    if !facts.others.is_empty() {
        parts.push(format!("live in it now: {}", list(&facts.others)));
    }
    let discard = if facts.discard_changes {
        " with discard_changes"
    } else {
        ""
    };
    Verdict::Ask(
        Finding::new(
            RULE,
            format!(
                "git-dibs stopped ExitWorktree (remove{discard}): {}. Removing the worktree \
                 deletes that work and its branch for good. Commit and push it first (or ask the \
                 person what to keep), or exit with action \"keep\".",
                parts.join("; ")
            ),
        )
        .with_worktrees(vec![w.audit()]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::CommitInfo;

    fn wt() -> WorktreeState {
        WorktreeState {
            root: "/r/.claude/worktrees/fix".into(),
            branch: Some("worktree-fix".into()),
            head: Some("abc".into()),
            ..WorktreeState::default()
        }
    }

    fn reason(v: &Verdict) -> &str {
        match v {
            Verdict::Ask(f) => &f.reason,
            other => panic!("expected ask, got {other:?}"),
        }
    }

    #[test]
    fn clean_pushed_and_alone_passes() {
        let facts = ExitFacts {
            worktree: wt(),
            ..ExitFacts::default()
        };
        assert_eq!(check_exit(&facts), Verdict::Allow);
        let main = ExitFacts {
            worktree: WorktreeState {
                main: true,
                status: vec![" M a".into()],
                ..wt()
            },
            ..ExitFacts::default()
        };
        assert_eq!(check_exit(&main), Verdict::Allow);
    }

    #[test]
    fn uncommitted_unpushed_or_occupied_is_asked_and_named() {
        let dirty = ExitFacts {
            worktree: WorktreeState {
                status: vec![" M src/a.rs".into(), "?? notes.md".into()],
                ..wt()
            },
            discard_changes: true,
            ..ExitFacts::default()
        };
        let r = reason(&check_exit(&dirty)).to_owned();
        assert!(r.contains("remove with discard_changes"), "{r}");
        assert!(
            r.contains(" M src/a.rs") && r.contains("?? notes.md"),
            "{r}"
        );
        assert!(r.ends_with("[guard:exit-worktree]"), "{r}");
        let Verdict::Ask(f) = check_exit(&dirty) else {
            unreachable!()
        };
        assert_eq!(f.worktrees[0].status.len(), 2, "audited with its status");
        let unpushed = ExitFacts {
            worktree: WorktreeState {
                unpushed: vec![CommitInfo {
                    id: "1234567890abcdef".into(),
                    summary: "half of the login fix".into(),
                }],
                ..wt()
            },
            ..ExitFacts::default()
        };
        let r = reason(&check_exit(&unpushed)).to_owned();
        assert!(
            r.contains("1234567") && r.contains("half of the login fix"),
            "{r}"
        );
        assert!(r.contains("(remove)"), "{r}");
        let occupied = ExitFacts {
            worktree: wt(),
            others: vec!["sub-agent Explore a1b2c3d4 of this session".into()],
            ..ExitFacts::default()
        };
        let r = reason(&check_exit(&occupied)).to_owned();
        assert!(
            r.contains("live in it now: sub-agent Explore a1b2c3d4 of this session"),
            "{r}"
        );
    }
}
