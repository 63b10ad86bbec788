//! The facts of a `gh` command that deletes a pull request's branch: which branch (the current
//! one, one named, or a pull request's head as `gh pr view` says), the local branch's state and
//! the remote branch's, as for `git branch -D` and `git push --delete`; what is at risk within
//! reach when the branch cannot be known.

use anyhow::Result;

use super::facts::{branches, remote_branches};
use crate::git::{self, Worktree};
use crate::policy::guard::Guarded;
use crate::policy::guard::gh::{GhBranch, GhDelete, GhFacts};
use crate::protocol::Event;

/// Gather what deleting `d`'s branch in the clone of `wt` would lose.
pub(super) fn gh_facts(
    event: &Event,
    g: &Guarded,
    wt: &Worktree,
    d: &GhDelete,
    going: &super::facts::Going,
) -> Result<GhFacts> {
    let branch = match &d.branch {
        GhBranch::Current => wt
            .branch()
            .ok_or_else(|| "HEAD is detached here, so no branch is current".to_owned()),
        GhBranch::Named(b) => Ok(b.clone()),
        GhBranch::Pr(pr) => git::pr_head(&g.cwd, pr)
            .map_err(|why| format!("pull request {pr}'s branch is only known to GitHub; {why}")),
        GhBranch::Unnamed(why) => Err(why.clone()),
    };
    let branch = match branch {
        Ok(b) => b,
        Err(why) => {
            return Ok(GhFacts {
                unknown: Some(why),
                reach: super::reach::reach(event, g, wt)?,
                ..GhFacts::default()
            });
        }
    };
    let local = if d.local {
        branches(wt, std::slice::from_ref(&branch), None, going, false)?
    } else {
        Vec::new()
    };
    let remote = if d.remote {
        let name = remote_of(wt, &branch, d.repo.as_deref());
        let mut states = remote_branches(wt, &name, std::slice::from_ref(&branch), going)?;
        // The pull request it closes does not count against closing it.
        for s in &mut states {
            s.pr = None;
        }
        states
    } else {
        Vec::new()
    };
    Ok(GhFacts {
        branch: Some(branch),
        local,
        remote,
        ..GhFacts::default()
    })
}

/// The remote a branch is deleted on: the one whose URL names `OWNER/REPO` when given (else
/// that text, which no remote-tracking ref matches: unknown), or the branch's upstream remote,
/// or `origin`.
fn remote_of(wt: &Worktree, branch: &str, repo: Option<&str>) -> String {
    let Some(slug) = repo else {
        return git::Settings::load(&wt.git_dir)
            .string(&format!("branch.{branch}.remote"))
            .filter(|r| r != ".")
            .unwrap_or_else(|| "origin".to_owned());
    };
    let want = slug.to_ascii_lowercase();
    git::cli::CliRepo::open(&wt.root, None)
        .remotes()
        .into_iter()
        .find(|(_, urls)| {
            urls.iter().any(|u| {
                let u = u.to_ascii_lowercase();
                let u = u.trim_end_matches('/').trim_end_matches(".git");
                u.ends_with(&format!("/{want}")) || u.ends_with(&format!(":{want}"))
            })
        })
        .map_or_else(|| slug.to_owned(), |(name, _)| name)
}
