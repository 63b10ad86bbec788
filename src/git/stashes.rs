//! Stash commits kept: a stash commit (`git stash`, `git stash -u`) is held only by
//! `refs/stash` and its reflog, which `git stash drop`/`clear` and `git reflog expire` empty.
//! Each stash entry made within the snapshot expiry gets `refs/dibs/stash/<short sha>` (the
//! stash commit keeps its parents, the index and untracked-files commits among them). Such a
//! ref goes once its commit is in no stash entry and older than the snapshot expiry. Never pushed.

use std::path::Path;

use super::lanes::{LaneError, LaneRepo, git, short_sha};

/// The prefix of every kept stash commit's ref.
pub(crate) const STASH_PREFIX: &str = "refs/dibs/stash/";
/// How many stash entries (the newest) one call looks at.
const MAX_STASHES: usize = 32;

/// A kept stash commit that is in no stash entry now.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Dropped {
    /// The ref keeping it.
    pub(crate) reference: String,
    /// The stash commit, full id.
    pub(crate) commit: String,
    /// Its subject (`On main: message`, `WIP on main: ...`).
    pub(crate) subject: String,
    /// Its commit time, seconds since the Unix epoch.
    pub(crate) time: Option<i64>,
}

/// The stash entries' commits and commit times, newest first (empty without a stash).
fn entries(dir: &Path) -> Vec<(String, i64)> {
    let n = MAX_STASHES.to_string();
    let Ok(out) = git(
        dir,
        &["log", "-g", "--format=%H %ct", "-n", &n, "refs/stash", "--"],
    ) else {
        return Vec::new();
    };
    out.lines()
        .filter_map(|l| l.split_once(' '))
        .filter_map(|(c, t)| Some((c.to_owned(), t.parse().ok()?)))
        .collect()
}

/// Keep every stash entry made within `expiry` of `now` by a ref of its own, and drop the refs
/// of stash commits that are in no entry and older than that. Returns the refs created.
pub(crate) fn keep(dir: &Path, expiry_secs: u64, now: i64) -> Result<Vec<String>, LaneError> {
    let repo = LaneRepo::open(dir)?;
    let since = now.saturating_sub(i64::try_from(expiry_secs).unwrap_or(i64::MAX));
    let listed = entries(dir);
    let kept = repo.refs_under(STASH_PREFIX);
    let mut created = Vec::new();
    for (commit, time) in &listed {
        if *time >= since
            && let Some(name) = keep_commit(dir, &repo, commit)?
        {
            created.push(name);
        }
    }
    for (name, commit) in kept {
        let old = repo.commit_time(&commit).is_none_or(|t| t < since);
        if old && !listed.iter().any(|(c, _)| *c == commit) {
            git(dir, &["update-ref", "-d", &name, &commit])?;
        }
    }
    Ok(created)
}

/// Keep stash commit `commit` by a ref of its own unless one keeps it already (a git hook saw
/// `refs/stash` written or dropped). Returns the ref created.
pub(crate) fn keep_commit(
    dir: &Path,
    repo: &LaneRepo,
    commit: &str,
) -> Result<Option<String>, LaneError> {
    if repo.commit_of(commit).is_none()
        || repo
            .refs_under(STASH_PREFIX)
            .iter()
            .any(|(_, c)| c == commit)
    {
        return Ok(None);
    }
    let mut name = format!("{STASH_PREFIX}{}", short_sha(commit));
    if repo.ref_tip(&name).is_some() {
        name = format!("{STASH_PREFIX}{commit}");
    }
    git(
        dir,
        &[
            "update-ref",
            "-m",
            "git-dibs: keep stash",
            &name,
            commit,
            "",
        ],
    )?;
    Ok(Some(name))
}

/// The kept stash commits that are in no stash entry now, newest first.
pub(crate) fn dropped(dir: &Path) -> Result<Vec<Dropped>, LaneError> {
    let repo = LaneRepo::open(dir)?;
    let kept = repo.refs_under(STASH_PREFIX);
    if kept.is_empty() {
        return Ok(Vec::new());
    }
    let listed = entries(dir);
    let mut out: Vec<Dropped> = kept
        .into_iter()
        .filter(|(_, c)| !listed.iter().any(|(l, _)| l == c))
        .map(|(reference, commit)| Dropped {
            subject: git(dir, &["log", "-1", "--format=%s", &commit, "--"])
                .map(|s| s.trim().to_owned())
                .unwrap_or_default(),
            time: repo.commit_time(&commit),
            reference,
            commit,
        })
        .collect();
    out.sort_by_key(|d| std::cmp::Reverse(d.time));
    Ok(out)
}
