//! A scan left unfinished: files shell commands made that the scans after them have not all
//! put into a snapshot yet (more than the budgets of the calls so far took). A command that may
//! remove or rewrite files in a working tree, coming while that is so, is put to the person
//! (`[guard:scan-unfinished]`); every try goes on with the scan, so running it again once the
//! scan finished is silent. Pure: the facts come from the hook.

use std::path::PathBuf;

use super::Op;
use crate::protocol::Response;

/// What the scans before a command left unfinished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unfinished {
    /// How many changed files the last scans saw and could not take.
    pub(crate) files: usize,
    /// The worktrees they are in.
    pub(crate) roots: Vec<PathBuf>,
    /// How many files one try takes at most, per worktree.
    pub(crate) per_try: usize,
}

/// Whether `op` may remove or rewrite files in a working tree (not only refs, a remote, a
/// pull request).
pub(crate) fn touches_files(op: &Op) -> bool {
    !matches!(
        op,
        Op::BranchDelete { .. }
            | Op::PushDelete { .. }
            | Op::PrCreate { .. }
            | Op::SendSnapshots
            | Op::PushOver(_)
            | Op::PushPrune { .. }
            | Op::GhDelete(_)
            | Op::RepoDelete
    )
}

/// The answer to a command, given what the scans before it left (`left`) and whether it may
/// remove or rewrite files (`touches`: a command `WT_GUARD_BYPASS=1` leads does not count): a
/// refusal stays, a question gets this one added, anything else becomes this question.
pub(crate) fn answer(response: Response, left: Option<&Unfinished>, touches: bool) -> Response {
    let Some(left) = left.filter(|_| touches) else {
        return response;
    };
    let ours = message(left);
    match response {
        Response::Deny { .. } => response,
        Response::Ask { reason } => Response::Ask {
            reason: format!("{reason}\n{ours}"),
        },
        _ => Response::Ask { reason: ours },
    }
}

fn message(left: &Unfinished) -> String {
    let count = match left.files {
        0 => "some files".to_owned(),
        1 => "1 file".to_owned(),
        n => format!("{n} files"),
    };
    let roots: Vec<String> = left.roots.iter().map(|r| r.display().to_string()).collect();
    format!(
        "{count} that shell commands made in {} are in no snapshot yet (too many for one \
         scan), and this command may destroy them for good. Commit or stash them first \
         (`git stash -u`), or run it again: each try snapshots up to {} more. \
         [guard:scan-unfinished]",
        roots.join(", "),
        left.per_try
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn left(files: usize) -> Unfinished {
        Unfinished {
            files,
            roots: vec![PathBuf::from("/w/repo")],
            per_try: 4096,
        }
    }

    #[test]
    fn a_command_that_may_destroy_files_is_asked_about_while_a_scan_is_unfinished() {
        let asked = answer(Response::Silent, Some(&left(392)), true);
        let Response::Ask { reason } = &asked else {
            panic!("{asked:?}")
        };
        assert!(
            reason.starts_with("392 files that shell commands made in /w/repo"),
            "{reason}"
        );
        assert!(reason.ends_with("[guard:scan-unfinished]"), "{reason}");
        // Nothing left, or a command that touches no file: the answer stands.
        assert_eq!(answer(Response::Silent, None, true), Response::Silent);
        assert_eq!(
            answer(Response::Silent, Some(&left(3)), false),
            Response::Silent
        );
        // A refusal stays; a question gets this one too.
        let deny = Response::Deny {
            reason: "no".into(),
            person: None,
        };
        assert_eq!(answer(deny.clone(), Some(&left(3)), true), deny);
        let both = answer(Response::Ask { reason: "q".into() }, Some(&left(1)), true);
        assert!(matches!(both, Response::Ask { reason } if reason.starts_with("q\n1 file that")));
        assert!(!touches_files(&Op::RepoDelete));
        assert!(touches_files(&Op::Opaque));
    }
}
