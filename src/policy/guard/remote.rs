//! Rule 4: deleting a remote branch (`git push R --delete B`, `-d`, `:B`, `:refs/heads/B`) is
//! refused when B has an open pull request or when `refs/remotes/R/B` holds commits that no
//! other ref has.

use super::{Finding, Guarded, Op, Verdict, list_commits};
use crate::git::{CommitInfo, PullRequest};

/// What the guard knows about one remote branch a push deletes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RemoteBranchState {
    /// The remote's name (or the URL as written when no configured remote matches).
    pub(crate) remote: String,
    /// The branch on the remote.
    pub(crate) branch: String,
    /// Commits of `refs/remotes/<remote>/<branch>` that no other ref has.
    pub(crate) only_copy: Vec<CommitInfo>,
    /// Its open pull request, if `gh` knows one.
    pub(crate) pr: Option<PullRequest>,
    /// Live sessions on other machines (known from `git dibs sync`) working on this branch.
    pub(crate) remote_sessions: Vec<String>,
    /// No remote-tracking ref of it exists here: what it holds is not known.
    pub(crate) unfetched: bool,
}

/// The branch a refspec deletes: `B`, `refs/heads/B` (with `--delete`), `:B`, `+:refs/heads/B`.
fn deleted_branch(refspec: &str, delete_flag: bool) -> Option<String> {
    let spec = refspec.trim_start_matches('+');
    let name = if delete_flag {
        spec
    } else {
        spec.strip_prefix(':')?
    };
    let name = name.strip_prefix("refs/heads/").unwrap_or(name);
    (!name.is_empty() && !name.starts_with("refs/")).then(|| name.to_owned())
}

/// `git push` deleting remote branches.
pub(crate) fn classify_git(args: &[String], open: bool) -> Option<(Op, Vec<String>)> {
    if args.first().map(String::as_str) != Some("push") {
        return None;
    }
    let t = super::transfer::parse(args)?;
    let (delete, prune) = (t.delete, t.prune || t.mirror);
    let (remote, specs) = t.remote_and_specs();
    let positionals = specs.into_iter();
    if remote.as_deref() == Some(".") {
        // This very repository: its branches are the branch rule's.
        return None;
    }
    if prune && !delete {
        let remote = remote.unwrap_or_else(|| "origin".to_owned());
        return Some((
            Op::PushPrune {
                remote: remote.clone(),
            },
            vec![remote],
        ));
    }
    let branches: Vec<String> = positionals
        .filter_map(|r| deleted_branch(&r, delete))
        .collect();
    if branches.is_empty() && !(open && delete) {
        return None;
    }
    let remote = remote.unwrap_or_else(|| "origin".to_owned());
    let mut targets = branches.clone();
    targets.push(remote.clone());
    Some((Op::PushDelete { remote, branches }, targets))
}

/// Rule 4: refuse when a deleted remote branch has an open pull request, the only copy of
/// commits, or a live session on another machine working on it.
pub(crate) fn check(g: &Guarded, states: &[RemoteBranchState]) -> Verdict {
    let mut parts = Vec::new();
    for s in states {
        let mut why = Vec::new();
        if let Some(pr) = &s.pr {
            let url = if pr.url.is_empty() {
                String::new()
            } else {
                format!(" ({})", pr.url)
            };
            why.push(format!("has open pull request #{}{url}", pr.number));
        }
        if !s.only_copy.is_empty() {
            why.push(format!(
                "holds {} commit(s) that no other ref has: {}",
                s.only_copy.len(),
                list_commits(&s.only_copy)
            ));
        }
        if !s.remote_sessions.is_empty() {
            why.push(format!(
                "is the branch that {} works on",
                s.remote_sessions.join(" and ")
            ));
        }
        if !why.is_empty() {
            parts.push(format!("{}/{} {}", s.remote, s.branch, why.join(" and ")));
        }
    }
    if parts.is_empty() {
        let unknown: Vec<String> = states
            .iter()
            .filter(|s| s.unfetched)
            .map(|s| format!("{}/{}", s.remote, s.branch))
            .collect();
        if unknown.is_empty() {
            return Verdict::Allow;
        }
        return Verdict::Ask(Finding::new(
            "remote-unknown",
            format!(
                "git-dibs cannot tell what `{}` deletes: {} was never fetched here, so whether it \
                 holds the only copy of commits is unknown. Fetch it first (git fetch {}) and \
                 look, or ask the person.",
                g.display,
                super::list(&unknown),
                states[0].remote
            ),
        ));
    }
    // Say only the consequences and remedies that apply to these branches.
    let mut loses = Vec::new();
    let mut instead = Vec::new();
    if states.iter().any(|s| s.pr.is_some()) {
        loses.push("breaks its pull request".to_owned());
        instead.push("merge or close the pull request first".to_owned());
    }
    if let Some(s) = states.iter().find(|s| !s.only_copy.is_empty()) {
        loses.push("loses those commits".to_owned());
        instead.push(format!(
            "keep them on a local branch (git branch keep-it {}/{}) and push that",
            s.remote, s.branch
        ));
    }
    if states.iter().any(|s| !s.remote_sessions.is_empty()) {
        loses.push("pulls the branch from under a session that works on it".to_owned());
        instead.push("wait until that session is done".to_owned());
    }
    Verdict::Block(Finding::new(
        "remote-branch",
        format!(
            "git-dibs refused `{}`: remote branch {}. Deleting it {}. Instead {}, or ask the \
             person.",
            g.display,
            parts.join("; remote branch "),
            loses.join(", "),
            instead.join("; ")
        ),
    ))
}
